"""A declaration rewritten to read the scale through its component's own `!default` hook.

`.note-box-title { font-size: 12px }` becomes `font-size: $note-box-title-font-size` with
`$note-box-title-font-size: $font-size-small !default;` at the top of the note-box file
(Bootstrap's `$btn-font-size-sm: $font-size-sm !default`): a change to `$font-size-small` moves
every text that was 12px, a change to the hook moves this one. Only values libsass copies
unchanged are read from variables: a `/` outside a function would be divided once in a variable,
and calc() or var() arguments are not evaluated.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import scale as scale_mod

if TYPE_CHECKING:
    from tinycss2.ast import Declaration, Node

    from .parse import Item
    from .scale import Scale


@dataclass
class Hook:
    name: str  # without the $
    expression: str  # its default, reading the scale: `$space-3 $space-4`
    component: str


@dataclass
class Hooks:
    """Every hook so far, by name; the same name and expression is one hook."""

    reserved: set[str]  # names of primitives and roles
    by_name: dict[str, Hook] = field(default_factory=dict)

    def claim(self, base: str, expression: str, component: str, used: list[str]) -> str:
        """The hook's name; appended to `used` (a hook of the same name and default is shared)."""
        base = _name(base)
        if base in self.reserved:
            base += "-hook"
        name, n = base, 1
        while name in self.by_name and self.by_name[name].expression != expression:
            n += 1
            name = f"{base}-{n}"
        if name not in self.by_name:
            self.by_name[name] = Hook(name, expression, component)
        used.append(name)
        return name

    def drop(self, names: list[str]) -> None:
        for name in names:
            self.by_name.pop(name, None)

    def definitions(self) -> str:
        return "".join(f"${h.name}: {h.expression};\n" for h in self.by_name.values())


def declaration(decl: Declaration, item: Item, context: str, component: str, scale: Scale, hooks: Hooks,
                new: list[str]) -> str:
    """`name: value` for the SCSS, reading a hook where the value holds steps of the scale."""
    name = decl.name if decl.name.startswith("--") else decl.lower_name
    tokens = scale_mod.trim(decl.value)
    text = "".join(t.serialize() for t in tokens)
    bang = " !important" if decl.important else ""
    suffix = _suffix(item)
    if name.startswith("--"):
        return f"{name}: {_custom(name, tokens, text, suffix, item, component, scale, hooks, new)}{bang}"
    if scale_mod.top_level_slash(tokens):
        return f"{name}: {text}{bang}"
    expression = _expression(name, tokens, item, component, scale)
    if expression is None:
        return f"{name}: {text}{bang}"
    return f"{name}: ${hooks.claim(f'{context}-{name}{suffix}', expression, component, new)}{bang}"


def _custom(name: str, tokens: list[Node], text: str, suffix: str, item: Item, component: str, scale: Scale,
            hooks: Hooks, new: list[str]) -> str:
    """A custom property is the author's own role: its hook reads the palette, or holds its value."""
    if len(tokens) == 1 and scale_mod.is_colour(tokens[0]):
        ref = scale.ref("color", scale_mod.colour_key(tokens[0]), scale_mod.custom_family(name), item.dark,
                        component)
        if ref is not None:
            return f"#{{{'$' + hooks.claim(name[2:] + suffix, ref, component, new)}}}"
    if _simple(tokens):
        # inspect() keeps quotes that plain interpolation would drop ("Source Serif 4")
        return f"#{{inspect(${hooks.claim(name[2:] + suffix, text, component, new)})}}"
    return text


def _expression(prop: str, tokens: list[Node], item: Item, component: str, scale: Scale) -> str | None:
    """The value with each step of the scale as a reference, or None when it holds none."""
    kind = scale_mod.size_kind(prop)
    if kind in ("font-size", "line-height") and len(tokens) != 1:
        kind = None
    family = scale_mod.colour_family(prop)
    changed = False

    def one(token: Node, colours_only: bool) -> str:
        nonlocal changed
        ref = None
        if family is not None and scale_mod.is_colour(token):
            ref = scale.ref("color", scale_mod.colour_key(token), family, item.dark, component)
        elif kind is not None and not colours_only:
            key = scale_mod.size_key(token, kind)
            ref = scale.ref(kind, key, kind, item.dark, component) if key is not None else None
        if ref is not None:
            changed = True
            return ref
        if family is not None and token.type == "function" and token.lower_name in scale_mod.GRADIENTS:
            return f"{token.name}({''.join(one(t, True) for t in token.arguments)})"
        return str(token.serialize())

    text = "".join(one(t, False) for t in tokens)
    return text if changed else None


def _suffix(item: Item) -> str:
    """Where a hook applies beyond its selector: `-dark`, or the media query's words."""
    if item.dark:
        return "-dark"
    words = re.sub(r"[^a-z0-9]+", "-", " ".join(item.wrappers).lower().replace("@media", "")).strip("-")
    return f"-{words[:32].strip('-')}" if words else ""


def _simple(tokens: Iterable[Node]) -> bool:
    """A custom property value Sass reads back as written: no `/`, no functions but colours."""
    tokens = list(tokens)
    if not tokens:
        return False
    return all(t.type in ("hash", "ident", "dimension", "number", "percentage", "string", "whitespace")
               or (t.type == "literal" and t.value == ",") or scale_mod.is_colour(t) for t in tokens)


def _name(text: str) -> str:
    """A Sass variable name: letters, digits and dashes, starting with a letter."""
    name = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "token"
    return name if name[0].isalpha() else "t-" + name


def render(hooks: list[Hook]) -> list[str]:
    return [f"${h.name}: {h.expression} !default;" for h in hooks]
