"""A hand-written stylesheet as a list of Items: one per style rule, each with the
conditional at-rules around it (`@media …`), its text as written and where it starts.
tinycss2 does the parsing; a piece it cannot parse keeps its source text."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import tinycss2

if TYPE_CHECKING:
    from tinycss2.ast import Node, QualifiedRule

# At-rules whose block holds style rules: their rules are split into Items of their own,
# each keeping the at-rule around it, so a rule can join its component.
CONDITIONAL = ("media", "supports", "layer", "container", "document")
DARK_ATTRIBUTE = re.compile(r"""^(:root|html)?\[data-(theme|color-scheme|mode)=["']?dark["']?\]""")


@dataclass
class Item:
    source: str  # the CSS as written, wrappers included
    line: int
    col: int
    wrappers: tuple[str, ...] = ()  # at-rule preludes, outermost first, e.g. "@media (min-width: 600px)"
    rule: QualifiedRule | None = None  # None for other at-rules and parse errors
    keyword: str | None = None  # at-keyword of a non-conditional at-rule ("font-face")
    comments: list[str] = field(default_factory=list)  # comments written just before it
    error: str | None = None  # tinycss2's message when it could not parse this piece
    only_comments: bool = False  # comments after the last rule of a block

    @property
    def selector(self) -> str:
        if self.rule is not None:
            return " ".join(tinycss2.serialize(self.rule.prelude).split())
        return f"@{self.keyword}" if self.keyword else self.source.split("{")[0].strip()[:40]

    @property
    def dark(self) -> bool:
        """Whether it only applies in dark mode: a prefers-color-scheme: dark wrapper, or a
        selector that starts at a dark theme attribute (`[data-theme="dark"] …`)."""
        if any("prefers-color-scheme" in w and "dark" in w for w in self.wrappers):
            return True
        return self.rule is not None and bool(DARK_ATTRIBUTE.match(self.selector))


def items(text: str) -> list[Item]:
    """Every rule of `text`, in source order."""
    nodes = tinycss2.parse_stylesheet(text, skip_comments=False, skip_whitespace=True)
    return list(_walk(nodes, text, ()))


def _walk(nodes: Sequence[Node], text: str, wrappers: tuple[str, ...]) -> Iterator[Item]:
    comments: list[str] = []
    for i, node in enumerate(nodes):
        if node.type == "comment":
            comments.append(node.serialize())
            continue
        if node.type == "error":
            before, after = nodes[i - 1] if i else None, nodes[i + 1] if i + 1 < len(nodes) else None
            source, line, col = _unparsed(text, before, after)
            found = Item(source=_wrap(source, wrappers), line=line, col=col, wrappers=wrappers,
                         error=node.message, comments=comments)
        elif node.type == "at-rule" and node.lower_at_keyword in CONDITIONAL and node.content is not None:
            prelude = f"@{node.at_keyword} {' '.join(tinycss2.serialize(node.prelude).split())}".strip()
            inner = tinycss2.parse_rule_list(node.content, skip_comments=False, skip_whitespace=True)
            inside = list(_walk(inner, text, (*wrappers, prelude)))
            if inside and comments:
                inside[0].comments[:0] = comments
            yield from inside
            comments = []
            continue
        elif node.type == "at-rule":
            found = Item(source=_wrap(node.serialize(), wrappers), line=node.source_line, col=node.source_column,
                         wrappers=wrappers, keyword=node.lower_at_keyword, comments=comments)
        else:
            found = Item(source=_wrap(node.serialize(), wrappers), line=node.source_line, col=node.source_column,
                         wrappers=wrappers, rule=node, comments=comments)
        comments = []
        yield found
    if comments:  # after the last rule: kept, as a piece of their own that stays last
        last = nodes[-1]
        yield Item(source=_wrap("\n".join(comments), wrappers), line=last.source_line, col=last.source_column,
                   wrappers=wrappers, only_comments=True)


def _wrap(css: str, wrappers: tuple[str, ...]) -> str:
    for prelude in reversed(wrappers):
        css = f"{prelude} {{\n{css}\n}}"
    return css


def _offset(text: str, line: int, col: int) -> int:
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start + col - 1


def _unparsed(text: str, before: Node | None, after: Node | None) -> tuple[str, int, int]:
    """What lies between two parsed nodes, and where it starts: tinycss2 places an error
    where it noticed it (often the end of the text), not where the bad piece begins."""
    start = 0
    if before is not None:  # serialize() gives back the node's text, so its length is its extent
        start = _offset(text, before.source_line, before.source_column) + len(before.serialize())
    stop = _offset(text, after.source_line, after.source_column) if after is not None else len(text)
    while start < stop and text[start].isspace():
        start += 1
    line = text.count("\n", 0, start) + 1
    return text[start:stop].strip(), line, start - (text.rfind("\n", 0, start) + 1) + 1
