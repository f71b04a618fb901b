"""`theme init`: render an existing article once and write what a first green run needs:
`[tool.theme.visual]` in pyproject.toml, copies of the CDN libraries it loads (routed),
the CI workflow and, with lfs, the Git LFS rule for baselines. `make_plan` looks and
decides without writing; `Plan.write` writes atomically what differs.
"""

from __future__ import annotations

import re
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..config import key_position
from ..fsutil import atomic_write_bytes
from . import files, vendor
from .survey import PageSurvey, Survey, survey
from .errors import AdoptIncomplete, InitError
from .vendor import Library, Package

ROOT_CANDIDATES = ("dist", ".")  # where an article's pages are served from, in order of preference
VIEWPORTS = {"mobile": [390, 844], "desktop": [1280, 800]}
MAX_ROUNDS = 3  # a routed library may ask for another one; each round routes what the last one found
DRAWN_BY = {"iframe", "img", "video", "audio", "embed", "object", "picture", "frame"}


@dataclass
class Write:
    """One file init wants to be `data`; `state` is create, update, unchanged, conflict (it
    differs: replaced only with --force) or stale (in a vendored folder, not in the package)."""

    path: Path  # relative to the project
    data: bytes
    state: str
    what: str  # for the plan: "[tool.theme.visual]", "KaTeX 0.19.1", …
    where: str = ""  # file:line:col of the first difference, for a conflict


@dataclass
class Plan:
    project: Path
    lines: list[str] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)

    @property
    def conflicts(self) -> list[Write]:
        """What differs from what is there: replaced (or, stale, removed) only with --force."""
        return [w for w in self.writes if w.state in ("conflict", "stale")]

    def write(self, *, force: bool) -> None:
        """Write what differs; conflicts only with `force`."""
        for w in self.writes:
            if w.state in ("create", "update") or (w.state == "conflict" and force):
                atomic_write_bytes(self.project / w.path, w.data)
            elif w.state == "stale" and force:
                (self.project / w.path).unlink(missing_ok=True)


def find_pages(project: Path, root: Path | None) -> tuple[str, list[str]]:
    """(served root relative to the project, its top-level HTML pages); `root` is relative to the project."""
    candidates = [project / root] if root is not None else [project / c for c in ROOT_CANDIDATES]
    for folder in candidates:
        pages = sorted(p.name for p in folder.glob("*.html") if p.is_file()) if folder.is_dir() else []
        if pages:
            rel = Path(folder).resolve().relative_to(project.resolve()) if _inside(folder, project) else folder
            return rel.as_posix() or ".", pages
    where = project / root if root is not None else f"{project} or {project / 'dist'}"
    raise InitError(f"{where}: no HTML page found; pass --root FOLDER, the folder the article is served from")


def _inside(folder: Path, project: Path) -> bool:
    return Path(folder).resolve().is_relative_to(project.resolve())


def make_plan(project: Path, *, root: Path | None = None, lfs: bool = False, force: bool = False,
              packages: dict[str, Path] | None = None, build_check: bool = False) -> Plan:
    """Look at the article (renders it) and decide every file; writes nothing."""
    project = project.resolve()
    root_rel, pages = find_pages(project, root)
    served = (project / root_rel).resolve()
    plan = Plan(project)
    plan.lines.append(f"article: {served} ({len(pages)} page{'s' if len(pages) != 1 else ''}: {', '.join(pages)})")
    with tempfile.TemporaryDirectory(prefix="theme-init-") as staging:
        found, libraries = _survey_routed(served, pages, Path(staging), packages or {})
    for name in sorted(set(packages or {}) - {lib.name for lib, _ in libraries.values()}):
        plan.lines.append(f"note: --package {name} was not used: no page asks for {name} from a CDN")
    visual, notes = _visual(plan, root_rel, pages, found, libraries)
    _pyproject(plan, visual, notes, force)
    _vendored(plan, libraries, force)
    lfs = lfs or files.has_lfs_rule(_read(project / ".gitattributes"))
    _text(plan, Path(".github/workflows/visual.yml"), "the visual workflow",
          files.workflow(lfs=lfs, build_check=build_check or _has_entry(project), spec=files.install_spec()))
    if lfs:
        text = _read(project / ".gitattributes")
        new = files.gitattributes(text)
        plan.writes.append(Write(Path(".gitattributes"), new.encode(), _state(text, new, added=True),
                                 "snapshots/**/*.png under Git LFS"))
    return plan


def _survey_routed(served: Path, pages: list[str], staging: Path,
                   packages: dict[str, Path]) -> tuple[Survey, dict[str, tuple[Library, Package]]]:
    """Survey offline; route what a registry has to a staged copy; survey again until no
    new request can be routed. Returns the last survey and prefix → (library, package)."""
    libraries: dict[str, tuple[Library, Package]] = {}
    for _ in range(MAX_ROUNDS):
        route = {prefix: staging / str(n) for n, prefix in enumerate(libraries)}
        found = survey(served, pages, route)
        new = {}
        for url in found.aborted:
            lib = vendor.library_for(url)
            if lib is not None and lib.prefix not in libraries:
                new.setdefault(lib.prefix, lib)
        if not new:
            return found, libraries
        for prefix, lib in sorted(new.items()):
            package = vendor.fetch(lib, packages.get(lib.name))
            folder = staging / str(len(libraries))
            for rel, data in package.files.items():
                (folder / rel).parent.mkdir(parents=True, exist_ok=True)
                (folder / rel).write_bytes(data)
            libraries[prefix] = (lib, package)
    return survey(served, pages, {p: staging / str(n) for n, p in enumerate(libraries)}), libraries


def _visual(plan: Plan, root: str, pages: list[str], found: Survey,
            libraries: dict[str, tuple[Library, Package]]) -> tuple[dict, dict[str, str]]:
    """The managed keys of [tool.theme.visual], comments for some, and the plan's lines about them."""
    regions = _regions(found.pages)
    plan.lines.append("regions: " + (", ".join(f"{k} = {v!r}" for k, v in regions.items()) or
                                     "none found (only whole pages are checked)"))
    schemes, why = _schemes(found.pages)
    plan.lines.append(f"colour schemes: {', '.join(schemes)} ({why})")
    notes = {}
    if schemes == ["light"]:
        notes["color_schemes"] = (f"light only: {why}; dark baselines would equal the light ones.\n"
                                  'Add "dark" when the article gets a dark mode.')
    route = {}
    for prefix, (lib, pkg) in sorted(libraries.items()):
        folder = _folder(lib, libraries)
        route[prefix] = folder
        plan.lines.append(f"route {prefix} → {folder}/ (npm {pkg.name} {pkg.version}, {pkg.integrity[:20]}…, "
                          f"from the {pkg.source})")
        if re.fullmatch(r"\d+\.\d+\.\d+", lib.version) and pkg.version != lib.version:
            plan.lines.append(f"note: the page asks for {lib.name} {lib.version} and gets {pkg.version} "
                              "(--package); pass a tarball of the version it asks for to match it")
    mask = []
    for page in found.pages:
        for url in page.aborted:
            selector, how = _mask_for(page.blocked.get(url))
            if selector:
                mask.append(selector)
            plan.lines.append(f"blocked {url} ({page.page}): {how}")
        for path, status in page.missing:
            plan.lines.append(f"missing {path} ({page.page}): the local server answered {status}; "
                              "the page asks for a file that is not under the served folder")
        if page.maths_pending:
            plan.lines.append(f"maths: {page.maths_pending} of {page.maths} d-math in {page.page} were not typeset; "
                              "route the page's maths library to a local copy")
    mask = sorted(set(mask))
    visual = {"root": root, "pages": pages, "viewports": VIEWPORTS, "color_schemes": schemes,
              "regions": regions, "mask": mask, "route": route}
    return visual, notes


def _regions(pages: list[PageSurvey]) -> dict[str, str]:
    """Region key → selector, for the components some page has (with a box)."""
    def has(selector: str) -> bool:
        return any(p.components.get(selector, 0) for p in pages)

    out = {}
    for note in sorted({n["cls"]: n for p in pages for n in p.notes}.values(), key=lambda n: n["cls"]):
        out[note["cls"]] = note["selector"]
    if has("d-math[block]"):
        out["math"] = "d-math[block]"
    if has("d-code[block]"):
        out["code"] = "d-code[block]"
    figures = [s for s in ("figure", "d-figure") if has(s)]
    if figures == ["figure", "d-figure"]:
        nested = any(p.figure_in_d_figure for p in pages)
        out["figure"] = "d-figure, figure:not(d-figure figure)" if nested else "figure, d-figure"
    elif figures:
        out["figure"] = figures[0]
    for key in ("table", "aside"):
        if has(key):
            out[key] = key
    return out


def _schemes(pages: list[PageSurvey]) -> tuple[list[str], str]:
    """Light and dark when some page reacts to the colour scheme, else light only, and why."""
    for p in pages:
        s = p.scheme
        if s["rules"]:
            return ["light", "dark"], f"{p.page}'s CSS has {s['rules']} rule(s) that depend on it"
        if s["meta"]:
            return ["light", "dark"], f"{p.page} declares <meta name=\"color-scheme\" content=\"{s['meta']}\">"
        if s["sources"]:
            return ["light", "dark"], f"{p.page} has <source media=\"(prefers-color-scheme…)\">"
        if p.scheme_read and p.scheme_read.startswith("matchMedia"):
            return ["light", "dark"], f"a script of {p.page} asks for it ({p.scheme_read})"
    return ["light"], "no CSS rule depends on prefers-color-scheme and no script asks for it"


def _mask_for(element: dict | None) -> tuple[str | None, str]:
    """(a `mask` selector for what the blocked request would have drawn, or None; the plan's words)."""
    if element is None:
        return None, "no element asked for it (CSS or a script did); nothing to mask"
    if element["tag"] not in DRAWN_BY or element["inShadow"]:
        return None, f"asked for by a <{element['own']}>, which draws nothing itself; nothing to mask"
    value = element["value"].replace("\\", "\\\\").replace('"', '\\"')
    own = f'{element["own"]}[{element["attr"]}="{value}"]'
    selector = own if element["own"] == element["tag"] else f"{element['tag']}:has(> {own})"
    return selector, f"no registry has it; masked as {selector}"


def _folder(lib: Library, libraries: dict[str, tuple[Library, Package]]) -> str:
    """vendor/<name>, or vendor/<name>@<version> when two versions of one package are routed."""
    versions = {pkg.version for other, pkg in libraries.values() if other.name == lib.name}
    pkg = next(p for other, p in libraries.values() if other == lib)
    return f"vendor/{lib.name}" + (f"@{pkg.version}" if len(versions) > 1 else "")


def _pyproject(plan: Plan, visual: dict, notes: dict[str, str], force: bool) -> None:
    path = plan.project / "pyproject.toml"
    text = _read(path)
    try:
        new, differ = files.merged_pyproject(text, visual, notes, force=force)
    except tomllib.TOMLDecodeError as err:
        raise InitError(f"{path}: {err}; fix the TOML syntax, then run theme init again") from None
    if differ:
        where = key_position(path, differ[0], text=text, table="tool.theme.visual")
        plan.writes.append(Write(Path("pyproject.toml"), new.encode(), "conflict",
                                 f"{', '.join(differ)} in [tool.theme.visual]", where))
    else:
        # Adding the table to a pyproject.toml that has none replaces nothing: an update.
        plan.writes.append(Write(Path("pyproject.toml"), new.encode(), _state(text, new, added=True),
                                 "[tool.theme.visual]"))


def _vendored(plan: Plan, libraries: dict[str, tuple[Library, Package]], force: bool) -> None:
    """Each library's files under its folder, and vendor/VENDORED.md."""
    rows = []
    for prefix, (lib, pkg) in sorted(libraries.items()):
        folder = Path(_folder(lib, libraries))
        rows.append((lib, pkg, folder.as_posix()))
        on_disk = {p.relative_to(plan.project / folder).as_posix()
                   for p in (plan.project / folder).rglob("*") if p.is_file()}
        states = []
        for rel, data in pkg.files.items():
            old = _read_bytes(plan.project / folder / rel)
            state = "create" if old is None else "unchanged" if old == data else "conflict"
            states.append(Write(folder / rel, data, state, f"{pkg.name} {pkg.version}"))
        # Files the package does not have: the copy would not be the package's; removed with --force.
        states += [Write(folder / rel, b"", "stale", f"not in {pkg.name} {pkg.version}",
                         str(plan.project / folder / rel)) for rel in sorted(on_disk - set(pkg.files))]
        plan.writes += states
    if rows:
        md = vendor.vendored_md(rows)
        _text(plan, Path("vendor/VENDORED.md"), "versions and integrity of vendor/", md)


def _text(plan: Plan, rel: Path, what: str, new: str) -> None:
    text = _read(plan.project / rel)
    plan.writes.append(Write(rel, new.encode(), _state(text, new), what, f"{plan.project / rel}"))


def _state(old: str | None, new: str, added: bool = False) -> str:
    if old is None:
        return "create"
    if old == new:
        return "unchanged"
    return "update" if added else "conflict"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _has_entry(project: Path) -> bool:
    """Whether the project builds its stylesheet with theme (its SCSS entry exists)."""
    text = _read(project / "pyproject.toml") or ""
    try:
        entry = tomllib.loads(text).get("tool", {}).get("theme", {}).get("entry", "scss/style.scss")
    except tomllib.TOMLDecodeError:
        return False
    return (project / entry).is_file()


__all__ = ["AdoptIncomplete", "InitError", "Plan", "Write", "find_pages", "make_plan"]
