"""`theme init --scss`: a hand-written style.css turned into a starter scss/ of tokens and components.

adopt_stylesheet() converts, compiles with libsass, proves the result renders like the original
in a real Chromium (0 differing pixels in every variant), and only then writes scss/, [tool.theme]
entry/outputs and the compiled CSS into every copy of the stylesheet.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import AdoptError

if TYPE_CHECKING:
    from ...core.config import VisualConfig
    from .convert import Plan
    from .locate import Found

ENTRY = "scss/style.scss"


@dataclass
class Adoption:
    lines: list[str]  # what to print, one line each
    ok: bool  # renders the same in every variant (and, unless dry_run, written)
    files: dict[str, str] = field(default_factory=dict)  # path under root -> text, written or planned
    left_as_written: list[str] = field(default_factory=list)  # `file:line:col: selector: why`
    diff_pixels: dict[str, int] = field(default_factory=dict)  # variant -> differing pixels

    @property
    def exit_code(self) -> int:
        """For the CLI: 0 adopted (or would be), 1 the rendering differs (nothing written)."""
        return 0 if self.ok else 1


def adopt_stylesheet(root: Path, css: Path | None, *, dry_run: bool, force: bool,
                     browser: str | None = None) -> Adoption:
    """Adopt the stylesheet `css` (default: the article's style.css) of the project in `root`.

    `browser`: a Chromium executable for the render check (default: as `theme capture` finds one)."""
    from . import canon, convert, locate, parse, project

    root = Path(root).resolve()
    if not root.is_dir():
        raise AdoptError(f"{root}: not a folder; pass the article's project folder")
    css = _stylesheet_arg(css)
    if (root / "scss").exists() and not force:
        raise AdoptError(f"{_show(root / 'scss', root)}: already exists; pass --force to overwrite "
                         "its files, or move it away first")
    visual = project.visual_config(root)
    found = locate.locate(root, css, served_root=visual.root if visual else None)
    source_name = _show(found.source, root)
    try:
        original = found.source.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise AdoptError(f"{source_name}: not UTF-8 text ({err.reason}); save it as UTF-8") from None
    lines = [f"stylesheet: {source_name}; copies: {', '.join(_show(c, root) for c in found.copies)}"]
    for copy in found.differ:
        lines.append(f"copies differ: {_show(copy, root)} is not {source_name}; using {source_name}"
                     + (f", the one {_show(found.pages[0], root)} links" if found.pages else "")
                     + "; every copy gets the compiled CSS")
    plan = convert.plan(parse.items(original), source_name)
    compiled = _compile(plan.files)
    adoption = Adoption(lines=lines, ok=False, files=plan.files)
    _describe(adoption, plan, found.source, root)
    if canon.rules(compiled.decode("utf-8"), plan.scale.rem_px) != canon.rules(original, plan.scale.rem_px):
        lines.append(f"{source_name}: the compiled scss/ does not give back every rule; nothing written")
        return adoption
    if not found.pages:
        lines.append(f"{_show(found.served, root)}: no HTML page links it, so the rendering cannot be "
                     "compared; link it from the article's page; nothing written")
        return adoption
    adoption.ok = _renders_the_same(adoption, visual, found, compiled, browser)
    for regroup, why in _fallbacks(plan):
        if adoption.ok:
            break
        # A judgement made without the browser (a merge of units, the cascade analysis) and
        # the pixels say it was wrong: undo it, say why, and check again.
        plan = convert.plan(parse.items(original), source_name, regroup=regroup, merge_units=False)
        compiled, adoption.files = _compile(plan.files), plan.files
        lines.append(why.format(components=len(plan.components), parts=len(plan.parts)))
        adoption.ok = (canon.rules(compiled.decode("utf-8")) == canon.rules(original)
                       and _renders_the_same(adoption, visual, found, compiled, browser))
    if not adoption.ok:
        lines.append("the compiled stylesheet does not render like the original; nothing written")
        return adoption
    outputs = [_show(c, root) for c in found.copies]
    verb = "would write" if dry_run else "wrote"
    lines += [f"{verb} {path}" for path in sorted(plan.files)]
    lines.append(f"{verb} [tool.theme] entry = \"{ENTRY}\", outputs = {outputs} in pyproject.toml")
    lines.append(f"{verb} the compiled CSS ({len(compiled)} bytes) to {', '.join(outputs)}")
    if not dry_run:
        _write(root, plan.files, outputs, compiled)
    return adoption


def _fallbacks(plan: Plan) -> list[tuple[bool, str]]:
    """What to undo, in order, when the first plan does not render like the original."""
    out = []
    if plan.scale.merged:
        out.append((True, f"rem values read from the equal px steps ({', '.join(plan.scale.merged)}) changed "
                          f"the rendering: the page's root font size is not the stylesheet's "
                          f"{plan.scale.rem_px:g}px (a style attribute or a script sets it); every value "
                          "kept in its unit instead"))
    if plan.moved:
        out.append((False, "rules moved into their components changed the rendering; every rule kept in its "
                           "original place instead ({components} component files, {parts} parts included in place)"))
    return out


def _renders_the_same(adoption: Adoption, visual: VisualConfig | None, found: Found, compiled: bytes,
                      browser: str | None) -> bool:
    """Capture the linking pages with the original and the compiled CSS; one line per variant."""
    from ...core.config import VisualConfig
    from . import locate, render

    served_root = _served_root(visual, found)
    side = dataclasses.replace(visual, root=served_root) if visual else VisualConfig(
        root=served_root, viewports=render.VIEWPORTS, color_schemes=render.SCHEMES)
    pages = tuple(p.relative_to(served_root).as_posix() for p in found.pages if locate.inside(p, served_root))
    side = dataclasses.replace(side, pages=pages)
    outcomes = render.compare_renders(side, found.served, found.source.read_bytes(), compiled, browser)
    for outcome in outcomes:
        adoption.diff_pixels[outcome.variant] = outcome.diff_pixels
        where = "".join(f" at x={x} y={y} ({w}×{h} px)" for x, y, w, h in outcome.boxes[:1])
        size = "; page size differs" if outcome.size_mismatch else ""
        adoption.lines.append(f"render {outcome.variant}: {outcome.diff_pixels} differing pixels{where}{size}")
    return bool(outcomes) and all(o.diff_pixels == 0 and not o.size_mismatch for o in outcomes)


def _stylesheet_arg(css: Path | None) -> Path | None:
    if css is None:
        return None
    css = Path(css).resolve()
    if not css.is_file():
        raise AdoptError(f"{css}: no such stylesheet; pass the path of the article's style.css")
    return css


def _served_root(visual: VisualConfig | None, found: Found) -> Path:
    """The configured visual root when it holds the served copy, else the linking page's folder."""
    from .locate import inside

    if visual is not None and inside(found.served, visual.root):
        return visual.root.resolve()
    return found.pages[0].parent.resolve()


def _compile(files: dict[str, str]) -> bytes:
    """libsass through theme.stylesheet.build, on the planned files in a temporary folder."""
    from ...core.config import BuildConfig, Config
    from ...stylesheet import build as builder

    with tempfile.TemporaryDirectory(prefix="theme-adopt-scss-") as tmp:
        base = Path(tmp)
        for path, text in files.items():
            (base / path).parent.mkdir(parents=True, exist_ok=True)
            (base / path).write_text(text, encoding="utf-8")
        cfg = Config(project_dir=base, source=base / "pyproject.toml",
                     build=BuildConfig(entry=base / ENTRY, outputs=(base / "style.css",)))
        return builder.compile_theme(cfg).css


def _describe(adoption: Adoption, plan: Plan, source: Path, root: Path) -> None:
    from .scale import PLURALS

    ladders = ", ".join(f"{len(plan.scale.of_kind(kind))} {plural}" for kind, plural in PLURALS.items())
    dark = sum(1 for role in plan.scale.roles if role.dark)
    adoption.lines.append(f"scale: {ladders}; palette: {len(plan.scale.of_kind('color'))} colours; "
                          f"roles: {len(plan.scale.roles)} ({dark} with a dark value); "
                          f"hooks: {len(plan.hooks.by_name)}")
    if plan.scale.merged:
        adoption.lines.append(f"rem read as px (the stylesheet sets the root font size to {plan.scale.rem_px:g}px): "
                              + ", ".join(plan.scale.merged))
    included = f", with {', '.join(plan.parts)} included where the cascade needs them" if plan.parts else ""
    adoption.lines.append(f"components: {len(plan.components)} files ({', '.join(plan.components)}){included}, "
                          f"{len(plan.pieces)} rules")
    for piece in plan.pieces:
        if piece.left_as_written:
            where = f"{_show(source, root)}:{piece.item.line}:{piece.item.col}"
            adoption.left_as_written.append(f"{where}: {piece.item.selector}: {piece.left_as_written}")
            adoption.lines.append(f"left as written: {adoption.left_as_written[-1]}")


def _write(root: Path, files: dict[str, str], outputs: list[str], compiled: bytes) -> None:
    """scss/, then [tool.theme], then the outputs through `theme build` (all atomic)."""
    from ...core import config as configuration
    from ...core.fsutil import atomic_write_text
    from ...stylesheet import build as builder
    from . import project

    for path, text in sorted(files.items()):
        atomic_write_text(root / path, text)
    project.set_build(root / configuration.PYPROJECT, ENTRY, outputs)
    cfg = configuration.load(root / configuration.PYPROJECT)
    if builder.compile_theme(cfg).css != compiled:
        raise AdoptError(f"{root / ENTRY}: compiles to other bytes in the project than in the check; "
                         "outputs left as they were")
    builder.build(cfg)


def _show(path: Path, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return os.fspath(path)
