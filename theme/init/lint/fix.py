"""`theme lint --fix`: rewrite broken note-box content, touching only the bytes that must change.

Broken forms (a list or <p> inside the content's <p>, paragraphs faked with <br><br>, a half-done <div> fix:
tests/fixtures/lint/note_boxes_before.html) become <div class="note-box-content"><p>…</p><ul>…</ul></div>.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from xml.etree.ElementTree import Element

from ...core.fsutil import atomic_write_text
from .checks import classes_of
from .parse import COMMENT, END, START, Document, Token, parse_text, read_text

# Void elements (HTML spec 13.1.2): no end tag, never on the open-element stack.
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                  "source", "track", "wbr"})
# Start tags that close an open <p> (HTML spec 13.2.6.4.7 "in body"), <p> itself excluded
# because we treat it as a boundary marker. They are blocks: never wrapped in a <p>.
BLOCK = frozenset({
    "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div",
    "dl", "dd", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3",
    "h4", "h5", "h6", "header", "hgroup", "hr", "li", "listing", "main", "menu", "nav", "ol",
    "pre", "search", "section", "summary", "table", "ul", "xmp",
})
_MARKERS = ("p_open", "p_close", "br_open", "br_close", "br_drop")


@dataclass
class Item:
    kind: str  # inline, block, neutral, br, p_open, p_close, br_open, br_close, br_drop
    start: int
    end: int
    used: bool = False


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


def matching_end(tokens: list[Token], i: int) -> int | None:
    """Index of the end tag that closes the element opened by tokens[i], as the author nested it.

    An end tag closes the nearest open element of its name and everything opened
    after it (what the parser does for unclosed <p>/<li>); end tags with no open
    element of that name are ignored.
    """
    stack = [tokens[i]["name"]]
    for j in range(i + 1, len(tokens)):
        token = tokens[j]
        if token["type"] == START and token["name"] not in VOID:
            stack.append(token["name"])
        elif token["type"] == END and token["name"] in stack:
            while stack.pop() != token["name"]:
                pass
            if not stack:
                return j
    return None


def _items(doc: Document, first: int, last: int, start: int, end: int) -> list[Item]:
    """The top-level items of text[start:end]; tokens[first:last] are the tags inside it.

    Inline items (text, <em>, <d-math>…), blocks (<ul>, <table>…), <p>/</p> tags and <br>s."""
    items: list[Item] = []
    stack: list[str] = []
    opened: Item | None = None
    pos = start

    def text_until(offset: int) -> None:
        chunk = doc.text[pos:offset]
        if chunk.strip():
            lead = len(chunk) - len(chunk.lstrip())
            items.append(Item("inline", pos + lead, pos + len(chunk.rstrip())))

    for token in doc.tokens[first:last]:
        s, e = token["span"]
        kind, name = token["type"], token.get("name", "")  # comments have no name
        if not stack:
            text_until(s)
        if kind == COMMENT:
            if not stack:
                items.append(Item("neutral", s, e))
        elif kind == START and not stack:
            if name in ("p", "br"):
                items.append(Item("p_open" if name == "p" else "br", s, e))
            elif name in VOID:
                items.append(Item("block" if name in BLOCK else "inline", s, e))
            else:
                stack = [name]
                opened = Item("block" if name in BLOCK else "inline", s, e)
        elif kind == START:
            if name not in VOID:
                stack.append(name)
        elif kind == END and not stack:
            items.append(Item("p_close" if name == "p" else "neutral", s, e))
        elif kind == END and name in stack:
            while stack.pop() != name:
                pass
            if not stack and opened is not None:
                opened.end = e
                items.append(opened)
        pos = e
    if stack and opened is not None:  # an element left open runs to the end of the region
        opened.end = end
        items.append(opened)
    else:
        text_until(end)
    return items


def _pair_breaks(items: list[Item]) -> None:
    """Two or more <br> with only whitespace/comments between act as one paragraph break."""
    group: list[Item] = []
    for item in items + [Item("end", 0, 0)]:
        if item.kind == "br":
            group.append(item)
        elif item.kind != "neutral":
            if len(group) >= 2:
                group[0].kind, group[-1].kind = "br_close", "br_open"
                for middle in group[1:-1]:
                    middle.kind = "br_drop"
            group = []


def _paragraph_edits(items: list[Item]) -> list[Edit]:
    """Wrap each run of inline items in exactly one <p>…</p>, reusing adjacent markers.

    A marker (<p>, </p>, <br> pair) right before a run becomes its <p>, one right after its </p>;
    only missing tags are inserted, and _region_edits deletes unused markers."""
    edits: list[Edit] = []
    boundaries = [k for k, it in enumerate(items) if it.kind in ("block",) + _MARKERS]
    edges = [-1] + boundaries + [len(items)]
    for left, right in pairwise(edges):
        inline = [it for it in items[left + 1:right] if it.kind == "inline"]
        if not inline:
            continue
        before = items[left] if left >= 0 else None
        after = items[right] if right < len(items) else None
        if before is not None and before.kind in ("p_open", "br_open"):
            before.used = True
            if before.kind == "br_open":
                edits.append(Edit(before.start, before.end, "<p>"))
        else:
            edits.append(Edit(inline[0].start, inline[0].start, "<p>"))
        if after is not None and after.kind in ("p_close", "br_close"):
            after.used = True
            if after.kind == "br_close":
                edits.append(Edit(after.start, after.end, "</p>"))
        else:
            edits.append(Edit(inline[-1].end, inline[-1].end, "</p>"))
    return edits


def _region_edits(items: list[Item], region_start: int, close_div: bool) -> list[Edit]:
    _pair_breaks(items)
    edits = _paragraph_edits(items)
    closer = None
    if close_div:
        last = items[-1] if items else None
        if last is not None and last.kind == "p_close" and not last.used:
            last.used, closer = True, Edit(last.start, last.end, "</div>")
        else:
            at = last.end if last is not None else region_start
            closer = Edit(at, at, "</div>")
    edits += [Edit(it.start, it.end, "") for it in items if it.kind in _MARKERS and not it.used]
    return edits + ([closer] if closer else [])


def _content_edits(doc: Document, element: Element, index: dict[int, int], split_at: list[int]) -> list[Edit]:
    token = doc.origin.get(element)
    if token is None:
        return []
    i = index[id(token)]
    # The region the author meant as content: to the parent's end tag for the <p> form (the
    # parser closed the <p> early), to its own </div> for the <div> form.
    if element.tag == "p":
        parent = doc.parent(element)
        parent_token = doc.origin.get(parent) if parent is not None else None
        if parent_token is None:
            return []
        end_i = matching_end(doc.tokens, index[id(parent_token)])
        close_div = True
    elif element.tag == "div":
        end_i, close_div = matching_end(doc.tokens, i), False
    else:
        return []
    if end_i is None or end_i <= i:
        return []
    start, end = token["span"][1], doc.tokens[end_i]["span"][0]
    if not close_div and not any(start <= at < end for at in split_at):
        return []  # a <div> whose paragraphs the parser keeps whole: nothing to fix (so --fix is idempotent)
    items = _items(doc, i + 1, end_i, start, end)
    edits = _region_edits(items, start, close_div)
    if close_div:  # "<p" -> "<div"; the attributes keep their bytes
        edits.insert(0, Edit(token["span"][0], token["span"][0] + 2, "<div"))
    return edits


def _apply(text: str, edits: list[Edit]) -> str:
    out, pos = [], 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):  # sorted() is stable
        out.append(text[pos:edit.start])
        out.append(edit.text)
        pos = edit.end
    out.append(text[pos:])
    return "".join(out)


def fix_text(text: str) -> tuple[str, int]:
    """The fixed text and how many note-box contents were rewritten."""
    doc = parse_text(text)
    index = {id(token): k for k, token in enumerate(doc.tokens)}
    split_at = [doc.origin[s.p]["span"][0] for s in doc.splits if s.p in doc.origin]
    split_at += [token["span"][0] for token in doc.strays]
    edits: list[Edit] = []
    count = 0
    for el in doc.elements():
        if "note-box-content" in classes_of(el):
            found = _content_edits(doc, el, index, split_at)
            if found:
                count += 1
                edits += found
    return _apply(text, edits), count


def fix_file(path: Path, *, write: bool = True) -> tuple[str, str, int]:
    """(before, after, count) for one file; writes atomically when it changed and `write`."""
    before = read_text(path)
    after, count = fix_text(before)
    if write and after != before:
        atomic_write_text(Path(path), after)
    return before, after, count
