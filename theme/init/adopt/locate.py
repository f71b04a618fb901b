"""Where the article keeps its stylesheet: every copy under the project, and the one
the served page links (a `dist/` page before a `src/` one), with the pages that link it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import html5lib

# Never a copy of the article's stylesheet: tools, builds of other things, our own output.
SKIP_DIRS = {".git", "node_modules", "vendor", "scss", "snapshots", ".theme-artifacts", "visual-report",
             "__pycache__", ".venv", "venv", "site-packages"}
SERVED_NAMES = ("dist", "public", "_site", "site", "build", "docs")


@dataclass(frozen=True)
class Found:
    copies: tuple[Path, ...]  # every copy, sorted
    served: Path  # the copy the page links
    source: Path  # the stylesheet to convert: the one given, else `served`
    pages: tuple[Path, ...]  # HTML files that link `served`
    differ: tuple[Path, ...]  # copies whose bytes are not the served copy's


def copies_of(root: Path, name: str) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        found += [Path(folder) / f for f in files if f == name]
    return sorted(found)


def linked_stylesheets(page: Path) -> list[Path]:
    """Files the page's `<link rel=stylesheet>` elements name (site-absolute hrefs from its folder)."""
    try:
        tree = html5lib.parse(page.read_bytes(), namespaceHTMLElements=False)
    except OSError:
        return []
    out = []
    for link in tree.iter("link"):
        rel = (link.get("rel") or "").lower().split()
        href = link.get("href") or ""
        parts = urlsplit(href)
        if "stylesheet" not in rel or parts.scheme or parts.netloc or not parts.path:
            continue
        path = unquote(parts.path)
        base = page.parent
        out.append((base / path.lstrip("/")).resolve() if path.startswith("/") else (base / path).resolve())
    return out


def locate(root: Path, css: Path | None, *, served_root: Path | None = None) -> Found:
    """The copies under `root` (named like `css`, default style.css) and which one is served."""
    name = css.name if css is not None else "style.css"
    copies = copies_of(root, name)
    if css is not None and css.resolve() not in {c.resolve() for c in copies} and inside(css, root):
        copies = sorted([*copies, css])
    if not copies:
        from .errors import AdoptError
        where = css if css is not None else root / "**" / name
        raise AdoptError(f"{where}: no stylesheet named {name} under {root}; "
                         "pass the article's stylesheet (theme init --scss PATH)")
    linking = {c: _pages_linking(c, root) for c in copies}
    served = _choose(copies, linking, served_root)
    source = css if css is not None else served
    if css is not None:
        mine = [c for c in copies if c.resolve() == css.resolve() and linking[c]]
        served = mine[0] if mine else served
    differ = tuple(c for c in copies if c != source and c.read_bytes() != source.read_bytes())
    return Found(copies=tuple(copies), served=served, source=source, pages=tuple(linking[served]),
                 differ=differ)


def _choose(copies: list[Path], linking: dict[Path, list[Path]], served_root: Path | None) -> Path:
    def rank(copy: Path) -> tuple[bool, bool, bool, str]:
        pages = linking[copy]
        in_root = served_root is not None and any(inside(p, served_root) for p in pages)
        conventional = any(part in SERVED_NAMES for p in pages for part in p.parent.parts[-2:])
        return (not in_root, not pages, not conventional, str(copy))
    return min(copies, key=rank)


def _pages_linking(copy: Path, root: Path) -> list[Path]:
    pages = []
    target = copy.resolve()
    folder = copy.parent
    while True:
        pages += [p for p in sorted(folder.glob("*.html")) if target in linked_stylesheets(p)]
        if folder == root or not inside(folder.parent, root):
            break
        folder = folder.parent
    return pages


def inside(path: Path, folder: Path) -> bool:
    try:
        Path(path).resolve().relative_to(Path(folder).resolve())
        return True
    except ValueError:
        return False
