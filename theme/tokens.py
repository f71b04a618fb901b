"""Design tokens as the browser receives them, read back from the compiled CSS (pure, tinycss2).

Why the CSS, not the SCSS maps: it is what a page gets after `!default`, map-merges and Sass arithmetic, so it
cannot drift; LibSass cannot enumerate variables, and a second SCSS evaluator would be a second truth.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import tinycss2

if TYPE_CHECKING:
    from tinycss2.ast import Node, QualifiedRule

# Tokens: the `--theme-*` properties of `:root` (light) and `[data-theme="dark"]` (dark), which the color-mode
# mixin prints from the same map as the media-query block (dark_media_matches checks they agree).
PREFIX = "theme"
DARK_ATTRIBUTE_SELECTOR = '[data-theme="dark"]'
DARK_MEDIA = "(prefers-color-scheme: dark)"
DARK_MEDIA_SELECTOR = ':root:not([data-theme="light"])'


@dataclass(frozen=True)
class Token:
    name: str  # the token's key, e.g. "note-box-background"
    property: str  # the custom property, e.g. "--theme-note-box-background"
    light: str  # value under the light scheme
    dark: str  # value under the dark scheme (same as light when dark does not override it)


def read_tokens(css: str, prefix: str = PREFIX) -> list[Token]:
    """Every `--<prefix>-*` custom property of :root, in stylesheet order, with its dark value."""
    light = declarations(css, ":root")
    dark = declarations(css, DARK_ATTRIBUTE_SELECTOR)
    start = f"--{prefix}-"
    return [
        Token(name=prop[len(start):], property=prop, light=value, dark=dark.get(prop, value))
        for prop, value in light.items()
        if prop.startswith(start)
    ]


def to_json(tokens: list[Token]) -> str:
    """Deterministic JSON: {"tokens": [{name, property, light, dark}, …]} in stylesheet order."""
    return json.dumps({"tokens": [asdict(t) for t in tokens]}, indent=2, ensure_ascii=False)


def declarations(css: str, selector: str, media: str | None = None) -> dict[str, str]:
    """Declarations (name → value) of every rule whose selector list contains `selector`.

    `media=None` reads top-level rules only; otherwise rules inside `@media <media>`
    (compared with whitespace squeezed). Later declarations win, as in the cascade.
    """
    out: dict[str, str] = {}
    for rule in _rules(tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True), media):
        if selector in _selectors(rule):
            out.update(_declarations(rule))
    return out


def resolve(value: str, table: dict[str, str], depth: int = 0) -> str:
    """Substitute `var(--x)` / `var(--x, fallback)` from `table` until no var() is left."""
    if depth > 20:  # a cycle; CSS makes such values invalid, and so do we
        raise ValueError(f"custom property cycle while resolving {value!r}")

    def one(m: re.Match[str]) -> str:
        name, fallback = m.group(1), m.group(2)
        if name in table:
            return resolve(table[name], table, depth + 1)
        if fallback is not None:
            return resolve(fallback.strip(), table, depth + 1)
        raise KeyError(name)

    return _VAR.sub(one, value)


def dark_media_matches(css: str) -> bool:
    """True when the media-query dark block and the [data-theme="dark"] block agree."""
    return declarations(css, DARK_MEDIA_SELECTOR, media=DARK_MEDIA) == declarations(
        css, DARK_ATTRIBUTE_SELECTOR
    )


# ---------------------------------------------------------------- helpers

_VAR = re.compile(r"var\(\s*(--[\w-]+)\s*(?:,\s*([^()]*(?:\([^()]*\))*[^()]*))?\)")


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def _rules(nodes: Iterable[Node], media: str | None) -> Iterator[QualifiedRule]:
    for node in nodes:
        if node.type == "qualified-rule" and media is None:
            yield node
        elif node.type == "at-rule" and node.lower_at_keyword == "media" and node.content:
            if media is not None and _squeeze(tinycss2.serialize(node.prelude)) == _squeeze(media):
                yield from _rules(tinycss2.parse_rule_list(node.content, True, True), None)


def _selectors(rule: QualifiedRule) -> list[str]:
    return [_squeeze(s) for s in tinycss2.serialize(rule.prelude).split(",")]


def _declarations(rule: QualifiedRule) -> dict[str, str]:
    out: dict[str, str] = {}
    for decl in tinycss2.parse_blocks_contents(rule.content, skip_comments=True, skip_whitespace=True):
        if decl.type == "declaration":
            out[decl.name if decl.name.startswith("--") else decl.lower_name] = (
                tinycss2.serialize(decl.value).strip()
            )
    return out
