"""`theme lint`: find the markup that silently defeats the theme.

Classes (TL020) are checked against the stylesheets each page loads (sources.py), plus what its scripts
supply, learned by rendering it once in Chromium (render.py; skipped with render=False): the sheets they
add and the classes they write or look up (script_classes.py). A page whose own script was blocked in
that render gets TL023 instead of TL020. TL021 (a warning) and TL040/TL041 judge the article as a
whole, so they run only on the configured pages. Codes: model.CODES.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence
from urllib.parse import quote

from ...core.config import Config
from ...core.errors import LintError
from . import checks
from . import render as render_mod
from .css import classes_in_files
from .model import ERROR, WARNING, Problem, display
from .parse import Document, parse_file
from .sources import Sources, page_sources

__all__ = ["LintResult", "has_scripts", "lint", "site_root", "targets"]


@dataclass
class LintResult:
    problems: list[Problem]
    files: list[Path] = field(default_factory=list)
    sources: dict[Path, str] = field(default_factory=dict)  # page -> where its classes came from

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == WARNING]


def _src_root(config: Config) -> Path | None:
    """article/src beside article/dist (the configured root), when that folder exists."""
    if config.visual is None:
        return None
    src = config.visual.root.parent / "src"
    return src if src.is_dir() and src.resolve() != config.visual.root.resolve() else None


def targets(paths: Sequence[Path] | None, config: Config | None) -> list[Path]:
    """The HTML files to lint, in a stable order: the given paths (folders: every *.html below),
    else the configured pages under `visual.root` plus their copies under its sibling `src`
    when that exists (a Distill repo keeps both)."""
    if paths:
        found: list[Path] = []
        for path in map(Path, paths):
            found += sorted(path.rglob("*.html")) if path.is_dir() else [path]
        return found
    if config is None or config.visual is None:
        raise LintError(f"{config.source if config else 'pyproject.toml'}: no [tool.theme.visual] pages "
                        "to lint; pass PATHS or add [tool.theme.visual] pages")
    src = _src_root(config)
    files = [config.visual.root / page for page in config.visual.pages]
    if src is not None:
        files += [src / page for page in config.visual.pages if (src / page).exists()]
    return files


def _counterpart(path: Path, config: Config | None) -> tuple[Path, Path] | None:
    """(this copy's folder, the other copy's path) for a page under root or src."""
    src = _src_root(config) if config is not None else None
    if src is None or config is None or config.visual is None:
        return None
    root = config.visual.root
    resolved = path.resolve()
    for here, there in ((root, src), (src, root)):
        try:
            rel = resolved.relative_to(here.resolve())
        except ValueError:
            continue
        return here, there / rel
    return None


def _copy_problems(docs: dict[Path, Document], config: Config | None) -> list[Problem]:
    problems, seen = [], set()
    for path, doc in docs.items():
        pair = _counterpart(path, config)
        if pair is None:
            continue
        other = pair[1]
        key = frozenset({path.resolve(), other.resolve()})
        if key in seen:
            continue
        seen.add(key)
        if not other.exists():
            problems.append(Problem(doc.path, 1, 1, "TL041", f"no copy at {display(other)}; "
                                    "copy this page there (src/ and dist/ keep the same pages)"))
            continue
        other_doc = docs.get(other) or parse_file(other)
        problems += checks.check_copies(doc, other_doc)
    return problems


def _local_scripts(doc: Document) -> list[str]:
    """Text of the page's local <script src> files (they may add theme classes at run time)."""
    texts = []
    for el in doc.elements():
        src = el.get("src") if el.tag == "script" else None
        if not src or "://" in src or src.startswith(("//", "data:")):
            continue
        path = doc.path.parent / src.split("?")[0].split("#")[0]
        try:
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue  # a missing script is not a lint matter here
    return texts


def site_root(page: Path, config: Config | None) -> Path:
    """The folder a page is served from: the configured root or its src/ twin when the page is
    inside one, else the page's own folder (where `/style.css` resolves)."""
    roots = [config.visual.root, _src_root(config)] if config is not None and config.visual else []
    for root in filter(None, roots):
        if root.resolve() in page.resolve().parents:
            return root
    return page.parent


_SCRIPT_TYPES = ("", "module", "text/javascript", "application/javascript")


def has_scripts(doc: Document) -> bool:
    """Whether the page runs any script (a JSON <script> like Distill's front matter does not)."""
    return any(el.tag == "script" and (el.get("src") or (
        (el.get("type") or "").strip().lower() in _SCRIPT_TYPES and (el.text or "").strip()))
        for el in doc.elements())


def _summary(page: Path, sources: Sources, rendered: render_mod.Rendered | None, scripts: bool,
             render: bool) -> str:
    said = f"{display(page)}: classes from {', '.join(sources.read) or 'no stylesheet'}"
    if rendered is not None:
        when = " (an earlier render: no file it loaded has changed)" if rendered.cached else ""
        said += (f"; rendered in Chromium{when}: {rendered.sheets} stylesheet(s) its scripts added "
                 f"({', '.join(rendered.hosts) or 'none'})")
    elif scripts and not render:
        said += "; its scripts not run (--no-render): classes they supply are unknown"
    if rendered is not None and rendered.blocked:
        said += (f"; blocked in the render: {', '.join(rendered.blocked)} (route an address to a local "
                 "copy to load it)")
    if sources.not_read:
        said += (f"; not read (remote): {', '.join(sources.not_read)}; pass a local copy with --css "
                 "or route its address")
    return said


def lint(paths: Sequence[Path] | None, config: Config | None, *, css: Sequence[Path] = (),
         render: bool = True) -> LintResult:
    """Run every check; LintError (exit 2) when a page or a stylesheet cannot be read.
    `css`: more stylesheets every page counts as loaded (--css); the config's built
    outputs count too when they exist."""
    files = targets(paths, config)
    outputs = [p for p in config.build.outputs if p.is_file()] if config is not None else []
    docs = {path: parse_file(path) for path in files}
    route = config.visual.route if config is not None and config.visual else {}
    sources = {path: page_sources(doc, site_root(path, config), [*css, *outputs], route) for path, doc in docs.items()}
    scripted = [path for path in files if has_scripts(docs[path])]
    rendered: dict[Path, render_mod.Rendered] = {}
    if render and scripted:
        rendered = render_mod.render({p: (site_root(p, config), sources[p]) for p in scripted}, route)
    problems: list[Problem] = []
    for path, doc in docs.items():
        url = _page_url(path, site_root(path, config))
        problems += _page_problems(doc, sources[path], rendered.get(path), path in scripted, url, route)
    problems += _copy_problems(docs, config)
    if not paths and outputs:
        problems += _unused_problems(outputs, docs, rendered)
    said = {p: _summary(p, sources[p], rendered.get(p), p in scripted, render) for p in files}
    return LintResult(sorted(set(problems), key=lambda p: (str(p.path), p.line, p.col, p.code)), files, said)


def _page_problems(doc: Document, sources: Sources, rendered: render_mod.Rendered | None, scripted: bool, page_url: str,
                   route: Mapping[str, Path]) -> list[Problem]:
    """One page's checks, its classes defined by its own sheets first, then by its rendered ones
    and known to its scripts. A page whose own <script src> was blocked in the render did not
    run as published: what its classes mean is unknown, so TL023 says so instead of TL020."""
    defined = dict(sources.defined)
    for name, where in (rendered.defined.items() if rendered is not None else ()):
        defined.setdefault(name, where)
    unread = scripted and rendered is None
    blocked = checks.check_blocked_scripts(doc, page_url, {url: _why_blocked(url, route)
                                                           for url in rendered.blocked}) if rendered else []
    known = rendered.script_classes if rendered is not None else set()
    return checks.check_document(doc, None if blocked else defined, unread, known) + blocked + sources.problems


def _page_url(page: Path, root: Path) -> str:
    """The page's address as the render serves it (only its path matters: what a render blocks
    is remote, and a protocol-relative address resolves to http: as on the local server)."""
    try:
        rel = page.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        rel = page.name
    return f"http://127.0.0.1/{quote(rel)}"


def _why_blocked(url: str, route: Mapping[str, Path]) -> str:
    from ...capture.lanes import routed_file  # the capture's own rule

    if routed_file(route, url)[0]:
        return "blocked: a [tool.theme.visual] route prefix covers it, but no file is there"
    return "blocked: it is not on this machine and no [tool.theme.visual] route covers it"


def _unused_problems(outputs: list[Path], docs: dict[Path, Document],
                     rendered: dict[Path, render_mod.Rendered]) -> list[Problem]:
    """TL021: theme classes no page uses, in its markup, its rendered DOM or its local scripts."""
    used = {cls for doc in docs.values() for cls, _ in checks.used_classes(doc)}
    used |= {cls for r in rendered.values() for cls in r.dom_classes | r.script_classes}
    scripts = [text for doc in docs.values() for text in _local_scripts(doc)]
    return checks.check_unused_classes(classes_in_files(outputs), used, scripts)
