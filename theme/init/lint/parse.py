"""Parse HTML exactly as a browser does (html5lib) and remember where every tag came from.

html5lib keeps no source positions, so two small subclasses add them (not a second tokenizer): `_SpanTokenizer`
(tag spans, and each <p> a start tag closed implicitly) and `_OriginTreeBuilder` (each element's start tag).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, cast
from xml.etree.ElementTree import Element

import html5lib
from html5lib import _tokenizer
from html5lib.constants import tokenTypes
from html5lib.treebuilders import getTreeBuilder

from ...core.errors import LintError

START, END, COMMENT = tokenTypes["StartTag"], tokenTypes["EndTag"], tokenTypes["Comment"]
_SPANNED = (START, END, COMMENT)
# The newline forms html5lib folds into "\n" (HTMLInputStream.readChunk) before counting lines;
# columns are unaffected, so a line table on the same forms maps (line, col) back to offsets of
# the original text, which `--fix` edits.
_NEWLINE = re.compile(r"\r\n|\r|\n")
# An html5lib token as its tokenizer makes it (a plain dict: "type", "name", "data", …),
# plus "span": its (start, end) offsets in the source text, which _SpanTokenizer adds.
Token = dict[str, Any]
ToOffset = Callable[[int, int], int]  # (line, column) as html5lib counts them -> offset in the text


@dataclass
class Split:
    """A <p> closed early by a start tag (`breaker`), or a stray </p> (`breaker` is the end tag)."""

    p: Element | None  # the etree element of the <p> that was closed (None for a stray </p>)
    breaker: Token  # the token that closed it


@dataclass
class Document:
    path: Path
    text: str  # the decoded original text (newlines untouched)
    root: Element  # etree root (<html>)
    tokens: list[Token]  # tag and comment tokens in source order; token["span"] = (start, end) offsets
    origin: dict[Element, Token]  # etree element -> its start-tag token (absent for implied elements)
    splits: list[Split] = field(default_factory=list)
    strays: list[Token] = field(default_factory=list)  # stray </p> end-tag tokens
    _line_starts: list[int] = field(default_factory=list)
    _parents: dict[Element, Element] = field(default_factory=dict)

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column (in characters) of an offset of `text`."""
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return line + 1, offset - self._line_starts[line] + 1

    def where(self, element: Element | None) -> tuple[int, int]:
        """line:col of an element's start tag, or of its nearest positioned ancestor."""
        while element is not None:
            token = self.origin.get(element)
            if token is not None:
                return self.line_col(token["span"][0])
            element = self._parents.get(element)
        return 1, 1

    def parent(self, element: Element) -> Element | None:
        return self._parents.get(element)

    def elements(self) -> Iterator[Element]:
        """Every element in document order (comments skipped)."""
        for el in self.root.iter():
            if isinstance(el.tag, str):
                yield el


def line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in _NEWLINE.finditer(text)]


class _SpanTokenizer(_tokenizer.HTMLTokenizer):
    """html5lib's tokenizer, plus the source span of each tag/comment token.

    html5lib constructs its own tokenizer inside `HTMLParser._parse`; `_Parser.reset`
    (called right after, before any input is read) re-classes that instance to this
    subclass, which only adds state and never changes how tokens are produced.
    """

    def adopt(self, to_offset: ToOffset) -> None:
        self._open_at = (1, 0)
        self.recorded: list[Token] = []
        self.to_offset = to_offset

    def _mark(self) -> None:
        # Called on entering a state right after the "<" was consumed.
        line, col = self.stream.position()
        self._open_at = (line, col - 1)

    def tagOpenState(self) -> bool:
        self._mark()
        return super().tagOpenState()

    def rcdataLessThanSignState(self) -> bool:
        self._mark()
        return super().rcdataLessThanSignState()

    def rawtextLessThanSignState(self) -> bool:
        self._mark()
        return super().rawtextLessThanSignState()

    def scriptDataLessThanSignState(self) -> bool:
        self._mark()
        return super().scriptDataLessThanSignState()

    def __iter__(self) -> Iterator[Token]:  # type: ignore[override]  # html5lib's tokens, plus "span"
        tree = self.parser.tree
        for made in super().__iter__():
            token = cast(Token, made)  # the stub's TypedDict knows no "span"
            kind = token["type"]
            if kind in _SPANNED:
                # The queue is drained after every state step, so "now" is just past the ">".
                token["span"] = (self.to_offset(*self._open_at), self.to_offset(*self.stream.position()))
                self.recorded.append(token)
            # A <p> open before a start tag and closed after it was closed implicitly by that tag
            # (HTML spec 13.2.6.4.7, "in body"): the note-box bug, learnt from the parser itself
            # rather than from a copy of the spec's lists.
            open_before = [e for e in tree.openElements if e.name == "p"]
            made_before = tree.p_made
            yield token
            if kind == START and open_before:
                still_open = {id(e) for e in tree.openElements}
                closed = [e for e in open_before if id(e) not in still_open]
                for p in closed:
                    self.parser.splits.append(Split(p._element, token))
            elif kind == END and token["name"] == "p" and tree.p_made > made_before:
                # The spec answers a </p> with no open <p> by inserting an empty one.
                self.parser.strays.append(token)


def _origin_tree_builder() -> type:
    base = getTreeBuilder("etree")

    # html5lib makes its etree builder class at run time: mypy cannot see it as a base.
    class _OriginTreeBuilder(base):  # type: ignore[valid-type,misc]
        # html5lib's own element wrappers (etree's Element inside, as `_element`)
        def reset(self) -> None:
            super().reset()
            self.origin: dict[Element, Token] = {}
            self.p_made = 0  # <p> elements inserted so far, implied ones included

        def createElement(self, token: Token) -> Any:
            element = super().createElement(token)
            self._remember(element, token)
            return element

        def insertElementNormal(self, token: Token) -> Any:
            element = super().insertElementNormal(token)
            self._remember(element, token)
            return element

        def _remember(self, element: Any, token: Token) -> None:
            self.p_made += token["name"] == "p"
            if "span" in token:  # implied tokens (html, head, tbody…) have none
                self.origin.setdefault(element._element, token)

    return _OriginTreeBuilder


_TREE = _origin_tree_builder()


class _Parser(html5lib.HTMLParser):
    def __init__(self, to_offset: ToOffset):
        super().__init__(tree=_TREE, namespaceHTMLElements=False)
        self.to_offset = to_offset

    def reset(self) -> None:
        super().reset()
        self.splits: list[Split] = []
        self.strays: list[Token] = []
        if not isinstance(self.tokenizer, _SpanTokenizer):
            self.tokenizer.__class__ = _SpanTokenizer
        self.span_tokenizer().adopt(self.to_offset)

    def span_tokenizer(self) -> _SpanTokenizer:
        """The tokenizer, re-classed by reset()."""
        return cast(_SpanTokenizer, self.tokenizer)


def parse_text(text: str, path: Path = Path("<string>")) -> Document:
    """Parse `text` as a whole HTML document, keeping source positions."""
    starts = line_starts(text)

    def to_offset(line: int, col: int) -> int:
        return min(starts[line - 1] + col, len(text))

    parser = _Parser(to_offset)
    parser.parse(text)
    root = parser.tree.getDocument()
    html = next(el for el in root.iter() if el.tag == "html")
    doc = Document(
        path=path, text=text, root=html, tokens=parser.span_tokenizer().recorded,
        origin=parser.tree.origin, splits=parser.splits, strays=parser.strays,
        _line_starts=starts,
    )
    doc._parents = {child: el for el in html.iter() for child in el}
    return doc


def read_text(path: Path) -> str:
    """The file decoded as UTF-8, or a LintError that says what to do."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise LintError(f"{path}: cannot read: {err.strerror}; check the path") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise LintError(
            f"{path}: not UTF-8 (byte 0x{data[err.start]:02x} at offset {err.start}); save the file as UTF-8"
        ) from None


def parse_file(path: Path) -> Document:
    return parse_text(read_text(path), Path(path))
