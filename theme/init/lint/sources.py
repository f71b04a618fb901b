"""The stylesheets a page loads, read without a browser: its <link rel=stylesheet> and <style>
elements, resolved as the browser would from the page's address, and every local @import they
make. Each class keeps the file:line:col of its first definition; what cannot be read is listed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Mapping, Sequence
from urllib.parse import unquote, urlsplit
from xml.etree.ElementTree import Element

from .css import ClassDef, Sheet, Shift, parse_sheet, read_css
from .model import Problem, display
from .parse import Document, line_starts

_RAWTEXT_END = re.compile(r"</style", re.I)


@dataclass
class Sources:
    """Class definitions for one page and where they came from."""

    defined: dict[str, ClassDef] = field(default_factory=dict)
    read: list[str] = field(default_factory=list)  # what was read, for the summary line
    not_read: list[str] = field(default_factory=list)  # remote sheets: addresses the lint cannot open
    files: set[Path] = field(default_factory=set)  # resolved stylesheet files read
    style_texts: set[str] = field(default_factory=set)  # the page's own <style> texts, as parsed
    problems: list[Problem] = field(default_factory=list)  # TL022: a linked or imported sheet is missing

    def add(self, classes: dict[str, ClassDef]) -> None:
        for name, where in classes.items():
            self.defined.setdefault(name, where)


def is_remote(address: str) -> bool:
    """An address with a scheme (https:, data:) or a network path (//host/…)."""
    return address.startswith("//") or bool(urlsplit(address).scheme)


def resolve(address: str, base: Path, site_root: Path) -> Path:
    """The file a local address names: from `site_root` when it starts with /, else from `base`."""
    path = unquote(urlsplit(address).path)
    joined = (site_root / path.lstrip("/")) if path.startswith("/") else (base / path)
    return Path(os.path.normpath(joined))  # `..` is taken lexically, as in a URL


def stylesheet_links(doc: Document) -> Iterator[tuple[Element, str]]:
    """(element, href) of every <link> whose rel includes "stylesheet"."""
    for el in doc.elements():
        rel = (el.get("rel") or "").lower().split()
        href = el.get("href")
        if el.tag == "link" and "stylesheet" in rel and href:
            yield el, href.strip()


def style_blocks(doc: Document) -> Iterator[tuple[Element, int, str]]:
    """(element, offset of its text in the page, raw text) of every <style> with a known position."""
    for el in doc.elements():
        token = doc.origin.get(el)
        if el.tag != "style" or token is None:
            continue
        start = token["span"][1]
        end = _RAWTEXT_END.search(doc.text, start)
        yield el, start, doc.text[start:end.start() if end else len(doc.text)]


def page_sources(doc: Document, site_root: Path, extra: Sequence[Path] = (),
                 route: Mapping[str, Path] | None = None) -> Sources:
    """Every class the page's own stylesheets define, then those of `extra` (--css, theme outputs).
    A remote sheet is read from its local copy when a `route` prefix covers its address."""
    sources = Sources()
    for el, href in stylesheet_links(doc):
        line, col = doc.where(el)
        _follow(sources, href, doc.path.parent, site_root, (doc.path, line, col), route or {})
    for el, start, text in style_blocks(doc):
        sources.style_texts.add(el.text or "")
        line, col = doc.line_col(start)
        sheet = parse_sheet(text, doc.path, _shift(doc, start, text))
        sources.read.append(f"<style> at {display(doc.path)}:{line}:{col}")
        _take(sources, sheet, doc.path, site_root, route or {})
    for path in extra:
        if Path(path).resolve() not in sources.files:
            _read_file(sources, Path(path), site_root, route or {})
    return sources


def _shift(doc: Document, start: int, text: str) -> Shift:
    """Maps a position inside a <style> block's text to its position in the page."""
    starts = line_starts(text)
    return lambda line, col: doc.line_col(start + starts[line - 1] + col - 1)


def _follow(sources: Sources, address: str, base: Path, site_root: Path, at: tuple[Path, int, int],
            route: Mapping[str, Path]) -> None:
    if is_remote(address):
        path = _routed(address, route)
        if path is None:
            sources.not_read.append(address)
            return
    else:
        path = resolve(address, base, site_root)
    if path.resolve() in sources.files:
        return  # linked twice, or an @import cycle
    if not path.is_file():
        where, line, col = at
        sources.problems.append(Problem(where, line, col, "TL022",
            f"stylesheet {address} is missing ({display(path)}); fix the address or create the file"))
        return
    _read_file(sources, path, site_root, route)


def _routed(address: str, route: Mapping[str, Path]) -> Path | None:
    """The local copy of a remote address under a `route` prefix, as the capture serves it."""
    if not any(address.startswith(prefix) for prefix in route):
        return None
    from ...capture.lanes import routed_file  # the capture's own rule; loads it only when needed

    return routed_file(route, address)[1]


def _read_file(sources: Sources, path: Path, site_root: Path, route: Mapping[str, Path]) -> None:
    sources.files.add(path.resolve())
    sources.read.append(display(path))
    _take(sources, parse_sheet(read_css(path), path), path, site_root, route)


def _take(sources: Sources, sheet: Sheet, path: Path, site_root: Path, route: Mapping[str, Path]) -> None:
    """A sheet's classes, then those of its @imports, which resolve from the file holding
    them (`path`: the stylesheet, or the page for a <style> block)."""
    sources.add(sheet.classes)
    for address, line, col in sheet.imports:
        _follow(sources, address, path.parent, site_root, (path, line, col), route)
