"""CSS reduced to what a browser acts on, to tell whether libsass kept a rule's meaning.

Comments, whitespace, quote style, `.5` against `0.5`, `#fff` against `white` or
`hsl()` against the hex libsass prints make no difference; dropped empty rules neither.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

import tinycss2
import tinycss2.color3

if TYPE_CHECKING:
    from tinycss2.ast import Node

from .parse import CONDITIONAL

_TIGHT = {",", ">", "+", "~", "/", ":", "(", ")"}  # no whitespace matters around these
# (name, value, !important) of each declaration, or the block's raw tokens when it holds more
Declarations = tuple[tuple[str, str, bool], ...] | str
# (the at-rules around it as (keyword, prelude), its selector or at-rule, its declarations)
Rule = tuple[tuple[tuple[str, str], ...], str, Declarations | None]


def rules(css: str, rem_px: float | None = None) -> Counter[Rule]:
    """Each rule as (wrappers, selector, declarations), counted (order is checked elsewhere).

    `rem_px`: the root font size when the stylesheet fixes it in px; declared lengths in rem
    are then read as px (`1rem` and `16px` are one value), for a scale that merged them."""
    found: Counter[Rule] = Counter()
    _collect(tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True), (), found, rem_px)
    return found


def _collect(nodes: Iterable[Node], wrappers: tuple[tuple[str, str], ...], found: Counter[Rule],
             rem_px: float | None) -> None:
    for node in nodes:
        if node.type == "qualified-rule":
            decls = declarations(node.content, rem_px)
            if decls:  # libsass drops empty rules; so does the cascade
                found[(wrappers, value(node.prelude), decls)] += 1
        elif node.type == "at-rule" and node.lower_at_keyword in CONDITIONAL and node.content is not None:
            inner = tinycss2.parse_rule_list(node.content, skip_comments=True, skip_whitespace=True)
            _collect(inner, (*wrappers, (node.lower_at_keyword, value(node.prelude))), found, rem_px)
        elif node.type == "at-rule":
            if node.lower_at_keyword == "charset":
                continue  # libsass writes its own; the encoding is UTF-8 either way
            body = declarations(node.content, rem_px) if node.content is not None else None
            found[(wrappers, f"@{node.lower_at_keyword} {value(node.prelude)}", body)] += 1
        # parse errors: a browser drops them as tinycss2 does, so they are nothing to keep


def declarations(content: list[Node] | None, rem_px: float | None = None) -> Declarations:
    parsed = tinycss2.parse_blocks_contents(content or [], skip_comments=True, skip_whitespace=True)
    out = []
    for d in parsed:
        if d.type != "declaration":
            return value(content or [])  # nested rules or errors: compare the raw tokens
        name = d.name if d.name.startswith("--") else d.lower_name
        out.append((name, value(d.value, rem_px), d.important))
    return tuple(out)


def value(tokens: Iterable[Node], rem_px: float | None = None) -> str:
    """One canonical string for a list of component values (rem as px when `rem_px` is set)."""
    parts: list[str] = []
    for token in tokens:
        if token.type == "comment":
            continue
        if token.type == "whitespace":
            if parts and parts[-1] != " ":
                parts.append(" ")
            continue
        parts.append(_atom(token, rem_px))
    tight: list[str] = []
    for i, part in enumerate(parts):
        if part == " " and (not tight or tight[-1] in _TIGHT or i + 1 == len(parts) or parts[i + 1] in _TIGHT):
            continue
        tight.append(part)
    return "".join(tight)


def _atom(token: Node, rem_px: float | None = None) -> str:
    kind = token.type
    if kind == "dimension" and rem_px is not None and token.lower_unit == "rem":
        return f"{_number(token.value * rem_px)}px"
    if kind in ("hash", "ident", "function"):
        colour = tinycss2.color3.parse_color(token)
        if colour is not None and not isinstance(colour, str):
            return "rgba(%d,%d,%d,%s)" % (*(round(c * 255) for c in colour[:3]), round(colour.alpha, 3))
    if kind == "number":
        return _number(token.value)
    if kind == "percentage":
        return _number(token.value) + "%"
    if kind == "dimension":
        return f"{_number(token.value)}{token.lower_unit}"
    if kind == "string":
        return repr(token.value)
    if kind == "url":
        return f"url({token.value})"
    if kind == "hash":
        return f"#{token.value}"
    if kind == "ident":
        return str(token.value)
    if kind == "at-keyword":
        return f"@{token.value}"
    if kind == "function":
        return f"{token.lower_name}({value(token.arguments, rem_px)})"
    if kind in ("() block", "[] block", "{} block"):
        return f"{kind[0]}{value(token.content, rem_px)}{kind[1]}"
    return str(token.serialize())


def _number(number: float) -> str:
    return repr(float(number))
