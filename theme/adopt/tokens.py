"""Which values of a declaration become design tokens, and the SCSS that reads them.

Colours (anywhere a colour property lists one), font sizes, line heights and font
families, spacings (margin, padding, gap) and custom properties. Only values libsass
copies unchanged qualify: a `/` outside a function would be divided once in a variable.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import tinycss2
import tinycss2.color3

if TYPE_CHECKING:
    from tinycss2.ast import Declaration, Node

KINDS = ("colors", "typography", "spacing", "custom-properties")
_COLOUR_PROPERTY = re.compile(
    r"^(color|background(-color)?|border(-(top|right|bottom|left|block|inline)(-(start|end))?)?(-color)?"
    r"|outline(-color)?|box-shadow|text-shadow|text-decoration(-color)?|fill|stroke|caret-color"
    r"|column-rule(-color)?|accent-color|text-emphasis-color)$")
_SPACING = re.compile(r"^(margin|padding)(-(top|right|bottom|left|block|inline)(-(start|end))?)?$|^(row-|column-)?gap$")
_COLOUR_FUNCTIONS = {"rgb", "rgba", "hsl", "hsla"}
_GRADIENTS = {"linear-gradient", "radial-gradient", "repeating-linear-gradient", "repeating-radial-gradient"}


@dataclass
class Token:
    name: str  # without the $
    value: str  # SCSS value as written in the stylesheet
    kind: str  # one of KINDS
    dark: bool


@dataclass
class Registry:
    """Every token so far, by name; the same name and value is one token."""

    tokens: dict[str, Token] = field(default_factory=dict)

    def claim(self, base: str, value: str, kind: str, dark: bool, new: list[str]) -> str:
        base = _name(base + ("-dark" if dark else ""))
        name, n = base, 1
        while name in self.tokens and self.tokens[name].value != value:
            n += 1
            name = f"{base}-{n}"
        if name not in self.tokens:
            self.tokens[name] = Token(name, value, kind, dark)
            new.append(name)
        return name

    def drop(self, names: list[str]) -> None:
        for name in names:
            self.tokens.pop(name, None)


def declaration(decl: Declaration, context: str, dark: bool, registry: Registry, new: list[str]) -> str:
    """`name: value` for the SCSS, with token references where the value has tokens."""
    name = decl.name if decl.name.startswith("--") else decl.lower_name
    tokens = _trim(decl.value)
    text = "".join(t.serialize() for t in tokens)
    bang = " !important" if decl.important else ""
    if name.startswith("--"):
        if _simple(tokens):
            kind = "colors" if _colour(tokens[0]) and len(tokens) == 1 else "custom-properties"
            var = registry.claim(name[2:], text, kind, dark, new)
            # inspect() keeps quotes that plain interpolation would drop ("Source Serif 4")
            return f"{name}: #{{inspect(${var})}}{bang}"
        return f"{name}: {text}{bang}"
    if _top_level_slash(tokens):
        return f"{name}: {text}{bang}"
    base = f"{context}-{name}"
    one_size = len(tokens) == 1 and tokens[0].type in ("dimension", "percentage", "number")
    if name in ("font-size", "line-height") and one_size:
        return f"{name}: ${registry.claim(base, text, 'typography', dark, new)}{bang}"
    if name == "font-family" and all(t.type in ("ident", "string", "whitespace") or _comma(t) for t in tokens):
        return f"{name}: ${registry.claim(base, text, 'typography', dark, new)}{bang}"
    if _SPACING.match(name) and _spacing(tokens):
        return f"{name}: ${registry.claim(base, text, 'spacing', dark, new)}{bang}"
    if _COLOUR_PROPERTY.match(name):
        suffix = "" if name.endswith("color") or name in ("fill", "stroke") else "-color"

        def claim(value: str) -> str:
            return "$" + registry.claim(base + suffix, value, "colors", dark, new)

        return f"{name}: {_colours_replaced(tokens, claim)}{bang}"
    return f"{name}: {text}{bang}"


def _colours_replaced(tokens: Iterable[Node], claim: Callable[[str], str]) -> str:
    """The value with each colour a token, inside gradients too (libsass reads variables there)."""
    parts = []
    for token in tokens:
        if _colour(token):
            parts.append(claim(token.serialize()))
        elif token.type == "function" and token.lower_name in _GRADIENTS and not _top_level_slash(token.arguments):
            parts.append(f"{token.name}({_colours_replaced(token.arguments, claim)})")
        else:
            parts.append(token.serialize())
    return "".join(parts)


def _trim(values: Iterable[Node]) -> list[Node]:
    tokens = [t for t in values if t.type != "comment"]
    while tokens and tokens[0].type == "whitespace":
        tokens.pop(0)
    while tokens and tokens[-1].type == "whitespace":
        tokens.pop()
    return tokens


def _comma(token: Node) -> bool:
    return bool(token.type == "literal" and token.value == ",")


def _top_level_slash(tokens: Iterable[Node]) -> bool:
    return any(t.type == "literal" and t.value == "/" for t in tokens)


def _colour(token: Node) -> bool:
    if token.type not in ("hash", "ident", "function"):
        return False
    if token.type == "function":
        if token.lower_name not in _COLOUR_FUNCTIONS or _top_level_slash(token.arguments):
            return False
    if token.type == "ident" and token.lower_value in ("transparent", "currentcolor"):
        return False
    parsed = tinycss2.color3.parse_color(token)
    return parsed is not None and not isinstance(parsed, str)


def _spacing(tokens: Iterable[Node]) -> bool:
    words = [t for t in tokens if t.type != "whitespace"]
    fits = all(t.type in ("dimension", "percentage") or (t.type == "number" and t.value == 0)
               or (t.type == "ident" and t.lower_value == "auto") for t in words)
    return fits and any(t.type == "dimension" and t.value != 0 for t in words)


def _simple(tokens: Sequence[Node]) -> bool:
    """A custom property value Sass reads back as written: no `/`, no functions but colours."""
    if not tokens:
        return False
    return all(t.type in ("hash", "ident", "dimension", "number", "percentage", "string", "whitespace")
               or _comma(t) or _colour(t) for t in tokens)


def _name(text: str) -> str:
    """A Sass variable name: letters, digits and dashes, starting with a letter."""
    name = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "token"
    return name if name[0].isalpha() else "t-" + name


def render(tokens: list[Token], header: str) -> str:
    lines = [f"// {line}" for line in header.splitlines()]
    lines += [f"${t.name}: {t.value} !default;" for t in tokens]
    return "\n".join(lines) + "\n"
