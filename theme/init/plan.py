"""`theme init`: render an existing article and write what a first green run needs:
`[tool.theme.visual]` merged into pyproject.toml, copies of the files it loads from CDNs
(vendor/, routed), `.gitignore` entries, the CI workflow and, with lfs, the Git LFS rule
for baselines. `make_plan` looks and decides without writing; `Plan.write` writes
atomically what differs. What the user wrote stays theirs (files.merged_pyproject).
"""

from __future__ import annotations

import re
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomlkit

from ..capture.cdn import Library, script_service
from ..capture.launch import kept_browsers
from ..capture.naming import LIVE_CANVAS
from ..capture.resources import ESSENTIAL, allowed
from ..check import steady
from ..check.steady import Part
from ..core.config import key_position
from ..core.fsutil import atomic_write_bytes
from . import files
from .errors import InitError
from .staging import Staging
from .survey import DESKTOP, PageSurvey, Survey, failing_states, survey, twice
from .vendor import BUNDLED, Vendored, banner_version, vendored_md

# The page server's origin as allow_blocked reads the page's own files against (any port).
LOCAL = "http://127.0.0.1"

ROOT_CANDIDATES = ("dist", ".")  # where an article's pages are served from, in order of preference
VIEWPORTS = {"mobile": [390, 844], "desktop": [1280, 800]}
MAX_ROUNDS = 4  # a routed library may ask for another one; each round routes what the last one found
WORKFLOW = Path(".github/workflows/visual.yml")
COMPOSE_FILES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")
SCHEMES = {"light", "dark", "light-attr", "dark-attr"}
EXAMPLE_SPEC = "theme @ git+https://github.com/OWNER/theme@COMMIT"
DRAWN_BY = {"iframe", "img", "video", "audio", "embed", "object", "picture", "frame"}


@dataclass
class Write:
    """One file init wants to be `data`; `state` is create, update, unchanged, conflict (it
    differs: replaced only with --force), stale (in a vendored folder, not the package's
    file: removed only with --force) or unloaded (the package's file, which no page loaded:
    kept, removed with --force)."""

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
    # Addresses a page needs that stay blocked (no mask draws over them, allow_blocked does
    # not name them): the checks refuse those pages, so init exits 1 and the baselines wait.
    blocked: list[str] = field(default_factory=list)

    @property
    def conflicts(self) -> list[Write]:
        """What differs from what is there: replaced (or, stale, removed) only with --force."""
        return [w for w in self.writes if w.state in ("conflict", "stale")]

    def changes(self, *, force: bool) -> list[Write]:
        """The writes that change a file: conflicts and removals only with `force`."""
        return [w for w in self.writes
                if w.state in ("create", "update") or (force and w.state in ("conflict", "stale", "unloaded"))]

    def write(self, *, force: bool) -> None:
        """Write what differs; conflicts only with `force`."""
        for w in self.writes:
            if w.state in ("create", "update") or (w.state == "conflict" and force):
                atomic_write_bytes(self.project / w.path, w.data)
            elif w.state in ("stale", "unloaded") and force:
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
              packages: dict[str, Path] | None = None, build_check: bool = False,
              requirement: str | None = None) -> Plan:
    """Look at the article (renders it) and decide every file; writes nothing."""
    project = project.resolve()
    root_rel, pages = find_pages(project, root)
    install = _install_spec(project, requirement)
    served = (project / root_rel).resolve()
    plan = Plan(project)
    plan.lines.append(f"article: {served} ({len(pages)} page{'s' if len(pages) != 1 else ''}: {', '.join(pages)})")
    existing = _existing_visual(project)
    owned = _owned_routes(project)
    route = existing.get("route")
    theirs = route if isinstance(route, dict) else {}
    mine = {prefix: project / str(target) for prefix, target in theirs.items() if prefix not in owned}
    # One browser for every look below (kept_browsers): each is a Session of its own config.
    with tempfile.TemporaryDirectory(prefix="theme-init-") as folder, kept_browsers():
        staging = Staging(Path(folder), packages or {}, mine)
        found = _survey_routed(served, pages, staging, {} if force else existing)
        vendored = staging.vendored(found.routed)
        masks = sorted({s for p in found.pages for s in p.moving} | set(_blocked_masks(found.pages)))
        allowed_now = sorted({*found.aborted, *(m[0] for p in found.pages for m in p.missing)})
        held = twice(served, pages, staging.route(), masks=masks, allowed=allowed_now)
        failing = failing_states(served, pages, staging.route(), _proposed(found.pages), masks=masks,
                                 allowed=allowed_now, viewports={k: (w, h) for k, (w, h) in VIEWPORTS.items()})
    asked = {lib.name for lib in staging.libraries.values()} | {name for name, _ in staging.failed}
    for name in sorted(set(packages or {}) - asked):
        plan.lines.append(f"note: --package {name} was not used: no page asks for {name} from a CDN")
    if staging.registry_down:
        plan.lines.insert(1, f"no npm registry: {staging.registry_down}; init went on without it (what theme "
                             "ships, files under the article, --package), and what needs it is blocked below; "
                             "to adopt offline pass --package NAME=PATH for each, or fill npm's cache first "
                             "(npm cache add NAME@VERSION where the registry answers)")
    visual, notes = _visual(plan, root_rel, pages, found, staging, vendored, held, failing)
    allow = existing.get("allow_blocked")
    allow = tuple(str(a) for a in allow) if isinstance(allow, list) else ()
    plan.blocked = sorted({u for u in plan.blocked if not allowed(u, allow, LOCAL)})
    _pyproject(plan, visual, notes, force, frozenset(owned))
    _vendored(plan, vendored, force)
    _gitignore(plan, existing)
    lfs = lfs or files.has_lfs_rule(_read(project / ".gitattributes"))
    if install.spec is None:
        plan.lines.append(f"workflow: not written: {install.why}; to add it, run theme init --theme-requirement "
                          f"SPEC again (e.g. '{EXAMPLE_SPEC}'), or write {WORKFLOW} by hand")
    else:
        plan.lines += install.lines
        _workflow(plan, existing, install.spec, lfs=lfs, build_check=build_check or _has_entry(project))
    if lfs:
        _lfs(plan)
    return plan


def _workflow(plan: Plan, existing: dict[str, Any], spec: str, *, lfs: bool, build_check: bool) -> None:
    """The workflow; it starts the compose `browser` service when the article has one."""
    compose = next((_read(plan.project / n) for n in COMPOSE_FILES if (plan.project / n).is_file()), None)
    text = files.workflow(lfs=lfs, build_check=build_check, spec=spec,
                          browser_service=files.has_browser_service(compose),
                          artifacts=str(existing.get("artifacts", ".theme-artifacts")))
    _text(plan, WORKFLOW, "the visual workflow", text)


def _lfs(plan: Plan) -> None:
    text = _read(plan.project / ".gitattributes")
    new = files.gitattributes(text)
    plan.writes.append(Write(Path(".gitattributes"), new.encode(), _state(text, new, added=True),
                             "snapshots/**/*.png under Git LFS"))


def _install_spec(project: Path, requirement: str | None) -> files.Install:
    """How the workflow installs theme: --theme-requirement, else where pip installed this
    theme from when CI can reach it too, else what the article's workflow already says,
    else the remote and commit of the git checkout theme is installed from. Without any,
    the spec is None and the workflow is left out (the plan says how to add it)."""
    if requirement is not None:
        if not requirement.strip() or any(c in requirement for c in '"\n\\'):
            raise InitError(f"--theme-requirement {requirement!r}: not a pip requirement; pass one like "
                            f"'{EXAMPLE_SPEC}'")
        return files.Install(requirement.strip())
    found = files.install_spec()
    if found.spec and not found.checkout:
        return found
    said = files.spec_in_workflow(_read(project / WORKFLOW))
    return files.Install(said) if said else found


def _existing_visual(project: Path) -> dict[str, Any]:
    """The [tool.theme.visual] table already in pyproject.toml, or {}."""
    path = project / "pyproject.toml"
    try:
        table = tomllib.loads(_read(path) or "")
    except tomllib.TOMLDecodeError as err:
        raise InitError(f"{path}: {err}; fix the TOML syntax, then run theme init again") from None
    visual = table.get("tool", {}).get("theme", {}).get("visual", {})
    return visual if isinstance(visual, dict) else {}


def _owned_routes(project: Path) -> set[str]:
    """The route prefixes an earlier theme init wrote: vendor/VENDORED.md names them."""
    return set(re.findall(r"`(https?://[^`\s]+)`", _read(project / "vendor/VENDORED.md") or ""))


def _survey_routed(served: Path, pages: list[str], staging: Staging, kept: dict[str, Any]) -> Survey:
    """Survey at the desktop viewport, offline. When nothing there can be routed to a package
    copy, look at the other viewports and schemes the checks will use (`kept`: the user's,
    when they stay), so the files only they load are found (and routed). When something can,
    route it to the staged package and survey again at every look at once, desktop light
    first (its facts), until nothing new can be routed: one load of each look a round."""
    found = survey(served, pages, staging.route())
    if not staging.add(found.aborted):
        others = _looks(found, kept)[1:]
        if not others:
            return found
        found = found.joined(survey(served, pages, staging.route(), looks=tuple(others)))
        if not staging.add(found.aborted):
            return found
    for _ in range(MAX_ROUNDS):
        found = survey(served, pages, staging.route(), looks=tuple(_looks(found, kept)))
        if not staging.add(found.aborted):
            break
    return found


def _looks(found: Survey, kept: dict[str, Any]) -> list[tuple[str, int, int, str]]:
    """Every viewport and scheme of the checks (the user's kept ones, else init's), desktop
    light first."""
    viewports = kept.get("viewports")
    if not (isinstance(viewports, dict) and all(_size(v) for v in viewports.values()) and viewports):
        viewports = VIEWPORTS
    schemes = kept.get("color_schemes")
    if not (isinstance(schemes, list) and set(schemes) <= SCHEMES and schemes):
        schemes = _schemes(found.pages)[0]
    looks = [(str(name), w, h, s) for s in schemes for name, (w, h) in viewports.items()]
    return [DESKTOP, *(look for look in looks if look != DESKTOP)]


def _size(value: object) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(n, int) and n > 0 for n in value)


def _visual(plan: Plan, root: str, pages: list[str], found: Survey, staging: Staging,
            vendored: list[Vendored], held: dict[str, list[Part] | str],
            failing: dict[tuple[str, str], str]) -> tuple[dict[str, Any], dict[str, str]]:
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
    for row in vendored:
        route.update(row.routes)
        plan.lines += _route_lines(row, staging)
    mask, services = [], []
    for page in found.pages:
        for url in page.aborted:
            if (service := script_service(url)) is not None:
                services.append(service[0])
                slot = _slot(page.blocked.get(url))
                mask += [slot] if slot else []
                plan.lines.append(f"service {url} ({page.page}): {service[1]}, which no package can hold: "
                                  "allowed to stay blocked" + (f", its slot masked as {slot}" if slot else ""))
                continue
            selector, how = _blocked(url, page.blocked.get(url), staging)
            if selector:
                mask.append(selector)
            else:
                plan.blocked.append(url)
            plan.lines.append(f"blocked {url} ({page.page}): {how}")
        for path, status, kind in page.missing:
            if kind in ESSENTIAL:  # the checks refuse the page without it: no update can pass yet
                plan.blocked.append(LOCAL + path)
                plan.lines.append(f"missing {path} ({page.page}): the local server answered {status}; a {kind} "
                                  "the page needs is not under the served folder, and the checks refuse the page "
                                  "until it is there or allow_blocked lists it")
            else:
                plan.lines.append(f"missing {path} ({page.page}): the local server answered {status}; the page "
                                  f"asks for it ({kind}) and is checked as it shows without it")
        if page.maths_pending:
            plan.lines.append(f"maths: {page.maths_pending} of {page.maths} d-math in {page.page} were not typeset; "
                              "route the page's maths library to a local copy")
    if services:
        notes["allow_blocked"] = ("Script services that fetch what they show (code embeds, comments): no package can\n"
                                  "hold them, so the checks render the page without them and mask the slot each fills.")
    mask += _moving(plan, found.pages, notes)
    mask += _unsteady(plan, held, notes)
    mask = sorted(set(mask))
    visual = {"root": root, "pages": pages, "viewports": VIEWPORTS, "color_schemes": schemes,
              "regions": regions, "mask": mask, "route": dict(sorted(route.items())),
              "allow_overflow": _overflowing(plan, found.pages, notes), "states": _states(plan, found.pages, failing),
              "allow_blocked": sorted(set(services))}
    return visual, notes


# The Distill runtime's reader states: its hover boxes (a panel in the shadow root of the
# d-cite or d-footnote) and keyboard focus on a link. (what a page must have, the state)
BUILT_IN_STATES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("d-cite", {"name": "cite-hover", "steps": [{"hover": "d-cite"}],
                "capture": {"hover-box": "d-cite d-hover-box .panel"}, "contrast": "text"}),
    ("d-footnote", {"name": "footnote-hover", "steps": [{"hover": "d-footnote"}],
                    "capture": {"hover-box": "d-footnote d-hover-box .panel"}, "contrast": "text"}),
    ("d-article a[href]", {"name": "link-focus", "steps": [{"focus": "d-article a[href]"}],
                           "capture": {"focused": "d-article a[href]:focus"}, "contrast": "focus"}),
)


def _proposed(pages: list[PageSurvey], where: dict[str, list[str]] | None = None) -> list[dict[str, Any]]:
    """The built-in reader states of the components some page has, on the pages that have them
    (`where`: state name -> the pages it may have, when some already failed there)."""
    out = []
    for needs, state in BUILT_IN_STATES:
        having = [p.page for p in pages if p.components.get(needs, 0) and p.page in (where or {}).get(
            state["name"], [p.page])]
        if not having:
            continue
        only = {"pages": having} if len(having) < len(pages) else {}
        out.append({"name": state["name"], **only, **{k: v for k, v in state.items() if k != "name"}})
    return out


def _states(plan: Plan, pages: list[PageSurvey], failing: dict[tuple[str, str], str]) -> list[dict[str, Any]]:
    """The built-in reader states that rendered in every viewport (survey.failing_states), each
    said in the plan; one that failed on a page is said and left out there."""
    for (name, page), why in sorted(failing.items()):
        plan.lines.append(f"state {name} ({page}): not proposed there, it fails {why}")
    names = {s["name"]: s.get("pages", [p.page for p in pages]) for s in _proposed(pages)}
    where = {name: [p for p in having if (name, p) not in failing] for name, having in names.items()}
    out = _proposed(pages, where)
    for state in out:
        plan.lines.append(f"state {state['name']}: {state['steps'][0]} then capture {state['capture']} "
                          f"(contrast {state['contrast']}), on {', '.join(where[state['name']])}")
    return out


def _moving(plan: Plan, pages: list[PageSurvey], notes: dict[str, str]) -> list[str]:
    """Masks for what a script keeps changing once the page is done (an animation on a loop):
    no capture can hold it still, so a check of it would fail at random."""
    found = sorted({s for p in pages for s in p.moving})
    for page in pages:
        for selector in page.moving:
            plan.lines.append(f"moving {selector} ({page.page}): a script keeps changing it after the page is done; "
                              "masked, as no capture can hold it still")
    if found:
        notes["mask"] = (f"{', '.join(found)}: a script keeps changing them (an animation on a loop);\n"
                         "no capture can hold them still. Remove them here once they stop.")
    return found


def _unsteady(plan: Plan, held: dict[str, list[Part] | str], notes: dict[str, str]) -> list[str]:
    """Masks for what still differs between two renders of a page under page time and seeded
    random numbers (survey.twice): driven from outside the page's scripts, so a check of it
    would fail at random. The last resort, said as such; a part no element holds is said and
    left, as is a page that could not be rendered twice."""
    found: list[str] = []
    for page, parts in held.items():
        if isinstance(parts, str):
            plan.lines.append(f"twice: {page} could not be rendered to see whether it holds still: {parts}")
            continue
        for words, selector in parts:
            if selector is None:
                plan.lines.append(f"unsteady: {words} ({page}) {steady.HOLDS_STILL}; no element holds it, "
                                  "so the first update will refuse the page")
                continue
            found.append(selector)
            plan.lines.append(f"unsteady {selector} ({page}): {steady.HOLDS_STILL}, with page time and seeded "
                              "random numbers; masked, as the last resort")
    if found:
        notes["mask"] = "\n".join(filter(None, [notes.get("mask"), (
            f"{', '.join(sorted(set(found)))}: differ between two renders of the same page, with page time\n"
            "and seeded random numbers (driven from outside the page's scripts). Remove them once they hold still.")]))
    return found


def _overflowing(plan: Plan, pages: list[PageSurvey], notes: dict[str, str]) -> list[str]:
    """The pages wider than a viewport as they are now, accepted as the status quo (a page
    that starts to overflow later fails its check), each said in the plan and the config."""
    said = []
    for page in pages:
        for viewport, over in sorted(page.overflow.items()):
            widest = "; ".join(f"{o['selector']} reaches x={o['right']}" for o in over["widest"][:2])
            said.append(f"{page.page} is {over['width']} px wide in the {over['view']} px {viewport} viewport"
                        + (f" ({widest})" if widest else ""))
    for line in said:
        plan.lines.append(f"overflow: {line}: readers get a horizontal scrollbar; accepted in allow_overflow "
                          "as the page is now (fix the layout, then remove it there)")
    if said:
        notes["allow_overflow"] = ("\n".join(said) + "\nReaders get a horizontal scrollbar: fix the layout, "
                                   "then remove the page here.")
    return sorted({p.page for p in pages if p.overflow})


def _route_lines(row: Vendored, staging: Staging) -> list[str]:
    """One plan line per route to `row`'s folder: where from, what, how much of it was loaded."""
    pkg = row.package
    origin = (f"{pkg.name} {pkg.version}, {pkg.source}" if pkg.source == BUNDLED
              else f"npm {pkg.name} {pkg.version}, from the {pkg.source}")
    lines = []
    for prefix, target in sorted(row.routes.items()):
        lib = staging.libraries[prefix]
        slash = "" if lib.one_file else "/"
        lines.append(f"route {prefix} → {target}{slash} ({origin}, {pkg.integrity[:20]}…; "
                     f"{len(row.files)} of {len(pkg.files)} files kept: those the pages loaded and the licence)")
        if lib.note:
            lines.append(f"note: {prefix} is {lib.name} {pkg.version}, {lib.note}{_banner(lib, staging)}")
        if re.fullmatch(r"\d+\.\d+\.\d+", lib.version) and pkg.version != lib.version:
            lines.append(f"note: the page asks for {lib.name} {lib.version} and gets {pkg.version} "
                         "(--package); pass a tarball of the version it asks for to match it")
    if lines and not pkg.licence_files:
        lines.append(f"note: {pkg.name} {pkg.version} ships no licence text (its package.json's license: "
                     f"{pkg.licence}); check its terms before you publish vendor/ with the article")
    return lines


def _banner(lib: Library, staging: Staging) -> str:
    """What the opening comment of the file a one-file route serves says of its version."""
    package, staged = staging.packages[lib.spec], staging.targets[lib.prefix]
    rel = staged.relative_to(staging.roots[lib.spec]).as_posix()
    said = banner_version(package.files.get(rel, b""))
    if said is None:
        return ""
    if said != package.version:
        return f"; but {rel} says {said} at its top: check which version the page needs"
    return f" ({rel} says {said} at its top)"


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
    for d in sorted({d["key"]: d for p in pages for d in p.drawn}.values(), key=lambda d: d["key"]):
        out.setdefault(d["key"], d["selector"])  # a figure a script draws in a block of its own
    if has(LIVE_CANVAS):  # a canvas a script draws without a <figure> or such a block: its own image
        out["canvas"] = LIVE_CANVAS
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


def _blocked(url: str, element: dict[str, Any] | None, staging: Staging) -> tuple[str | None, str]:
    """(a `mask` selector for what the blocked request would have drawn, or None; the plan's words)."""
    from ..capture.lanes import routed_file

    if routed_file(staging.user_routes, url)[0]:
        prefix = next(p for p in sorted(staging.user_routes, key=len, reverse=True) if url.startswith(p))
        return None, f"your route {prefix} has no such file; add it there or fix the route"
    if url in staging.unserved:
        return None, staging.unserved[url]
    if routed_file(staging.targets, url)[0]:
        return None, "its package has no such file (the CDN makes it); copy it into the project and route it"
    return _mask_for(element)


def _blocked_masks(pages: list[PageSurvey]) -> list[str]:
    """The masks init will propose for what blocked requests would have drawn (an embed's frame,
    a script service's slot): the pages are rendered twice with them painted over, as an update
    will, so a blocked frame's error page that draws differently on each load is not unsteady."""
    out = []
    for page in pages:
        for url in page.aborted:
            element = page.blocked.get(url)
            mask = _slot(element) if script_service(url) is not None else _mask_for(element)[0]
            out += [mask] if mask else []
    return out


def _slot(element: dict[str, Any] | None) -> str | None:
    """The element a blocked embed script fills, when it holds nothing else (survey.js `slot`):
    `div:has(> script[src="…"])`; else None."""
    if element is None or element["own"] != "script" or not element.get("slot"):
        return None
    value = element["value"].replace("\\", "\\\\").replace('"', '\\"')
    return f'{element["slot"]}:has(> script[src="{value}"])'


def _mask_for(element: dict[str, Any] | None) -> tuple[str | None, str]:
    if element is None:
        return None, ("no element asked for it (CSS or a script did): no known package has it; "
                      "copy it into the project and route its address there")
    if element["tag"] not in DRAWN_BY or element["inShadow"]:
        return None, (f"asked for by a <{element['own']}>, which draws nothing itself but the page needs it: "
                      "no known package has it; copy it into the project and route its address there")
    value = element["value"].replace("\\", "\\\\").replace('"', '\\"')
    own = f'{element["own"]}[{element["attr"]}="{value}"]'
    selector = own if element["own"] == element["tag"] else f"{element['tag']}:has(> {own})"
    return selector, f"no registry has it; masked as {selector}"


def _pyproject(plan: Plan, visual: dict[str, Any], notes: dict[str, str], force: bool, owned: frozenset[str]) -> None:
    path = plan.project / "pyproject.toml"
    text = _read(path)
    merged = files.merged_pyproject(text, visual, notes, force=force, owned=owned)
    for key, yours, init in merged.kept:
        where = key_position(path, key.partition(".")[2] or key, text=text, table="tool.theme.visual")
        again = " (--force replaces it)" if key in files.WHOLE else ""
        plan.lines.append(f"note: {where}: {key} in [tool.theme.visual] is yours ({_toml(yours)}); theme init "
                          f"would write {_toml(init)}; kept{again}")
    what = "[tool.theme.visual]" + (f" ({', '.join(merged.replaced)} replaced)" if merged.replaced else "")
    # Adding to a pyproject.toml replaces nothing of the user's: an update, never a conflict.
    plan.writes.append(Write(Path("pyproject.toml"), merged.text.encode(), _state(text, merged.text, added=True), what))


def _toml(value: object) -> str:
    """`value` as TOML writes it (the plan quotes both sides of a kept key)."""
    if isinstance(value, dict):
        item = tomlkit.inline_table()
        item.update(value)
        return item.as_string().strip()
    return str(tomlkit.item(value).as_string())


def _vendored(plan: Plan, vendored: list[Vendored], force: bool) -> None:
    """Each package's loaded files under its folder, and vendor/VENDORED.md. A file already
    in the folder that no page loaded is kept when it is the package's own (removed with
    --force); any other file there is not the package's: removed only with --force."""
    rows = []
    for row in vendored:
        folder, pkg = Path(row.folder), row.package
        kept = dict(row.files)
        for rel, data in row.files.items():
            old = _read_bytes(plan.project / folder / rel)
            state = "create" if old is None else "unchanged" if old == data else "conflict"
            plan.writes.append(Write(folder / rel, data, state, f"{pkg.name} {pkg.version}"))
        for path in sorted(p for p in (plan.project / folder).rglob("*") if p.is_file()):
            rel = path.relative_to(plan.project / folder).as_posix()
            if rel in row.files:
                continue
            if pkg.files.get(rel) == path.read_bytes():
                plan.writes.append(Write(folder / rel, b"", "unloaded", "loaded by no page", str(path)))
                if not force:
                    kept[rel] = pkg.files[rel]
            else:
                plan.writes.append(Write(folder / rel, b"", "stale", f"not in {pkg.name} {pkg.version}", str(path)))
        rows.append(Vendored(pkg, row.folder, dict(sorted(kept.items())), row.routes))
    if rows:
        _text(plan, Path("vendor/VENDORED.md"), "versions and integrity of vendor/", vendored_md(rows), added=True)


def _gitignore(plan: Plan, existing: dict[str, Any]) -> None:
    """The folders runs write (artefacts, report) in .gitignore, appended to what is there."""
    folders = [str(existing.get("artifacts", ".theme-artifacts")), str(existing.get("report", "visual-report"))]
    text = _read(plan.project / ".gitignore")
    new = files.gitignore(text, [f for f in folders if not f.startswith("..") and not Path(f).is_absolute()])
    plan.writes.append(Write(Path(".gitignore"), new.encode(), _state(text, new, added=True),
                             "what runs write, not committed: " + ", ".join(f"{f.strip('/')}/" for f in folders)))


def _text(plan: Plan, rel: Path, what: str, new: str, added: bool = False) -> None:
    text = _read(plan.project / rel)
    plan.writes.append(Write(rel, new.encode(), _state(text, new, added), what, f"{plan.project / rel}"))


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
    return (project / str(entry)).is_file()


__all__ = ["Plan", "Write", "find_pages", "make_plan"]
