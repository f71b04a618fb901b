"""The article's scale: equal values clustered into primitives ordered by size, its colours as a
palette, and roles that name what is clear (body and small text, text, link, border, surfaces).

Primitives are named by kind and order (`$font-size-3`, `$space-2`, `$radius-1`), colours by hue
and lightness (`$gray-850`, `$blue-600`), never by selector. Values are clustered only when they
are equal after parsing (`12px` and `12.0px`); px and rem are ordered together (rem at the root
size the stylesheet sets, else 16px) but never merged, so every rule compiles to what was written.
"""

from __future__ import annotations

import colorsys
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import tinycss2
import tinycss2.color3

from .parse import DARK_ATTRIBUTE

if TYPE_CHECKING:
    from tinycss2.ast import Node

    from .parse import Item

SIZE_KINDS = ("font-size", "line-height", "space", "radius")
PLURALS = {"font-size": "font sizes", "line-height": "line heights", "space": "spaces", "radius": "radii"}
_TITLES = {**PLURALS, "space": "spaces (margin, padding, gap)"}
_SPACING = re.compile(r"^(margin|padding)(-(top|right|bottom|left|block|inline)(-(start|end))?)?$|^(row-|column-)?gap$")
_RADIUS = re.compile(r"^border(-(top|bottom|start|end)-(left|right|start|end))?-radius$")
_COLOUR_PROPERTY = re.compile(
    r"^(color|background(-color)?|border(-(top|right|bottom|left|block|inline)(-(start|end))?)?(-color)?"
    r"|outline(-color)?|box-shadow|text-shadow|text-decoration(-color)?|fill|stroke|caret-color"
    r"|column-rule(-color)?|accent-color|text-emphasis-color)$")
_COLOUR_FUNCTIONS = {"rgb", "rgba", "hsl", "hsla"}
GRADIENTS = {"linear-gradient", "radial-gradient", "repeating-linear-gradient", "repeating-radial-gradient"}
_ABSOLUTE = {"px", "rem"}
_FAMILIES = ["gray", "red", "orange", "yellow", "green", "teal", "blue", "purple", "pink"]
_HUES = [(15, "red"), (45, "orange"), (70, "yellow"), (165, "green"), (195, "teal"), (255, "blue"),
         (290, "purple"), (345, "pink"), (360, "red")]


@dataclass
class Primitive:
    name: str  # without the $
    kind: str  # one of SIZE_KINDS, or "color"
    value: str  # as first written
    order: tuple[float, ...]  # where it sits in its ladder


@dataclass
class Role:
    """A name for what a value is for: `$font-size-small`, `$color-text` (and `$color-text-dark`)."""

    name: str
    kind: str  # "font-size", "line-height" or "color"
    family: str  # which properties may read it: "font-size", "line-height", "text", "surface", "border"
    light: str | None  # the primitive it points at, by name
    dark: str | None = None
    why: str = ""


@dataclass
class Scale:
    primitives: dict[tuple[str, str], Primitive] = field(default_factory=dict)  # (kind, key) -> primitive
    roles: list[Role] = field(default_factory=list)
    # (kind, "1.0rem") -> (kind, "16.0px"): a rem value read from its equal px step
    aliases: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    merged: list[str] = field(default_factory=list)  # "0.5rem into 8px", for the adoption's lines
    rem_px: float | None = None  # the fixed root size, when rem values were merged (canon.rules reads it)

    def primitive(self, kind: str, key: str) -> Primitive:
        return self.primitives[self.aliases.get((kind, key), (kind, key))]

    def ref(self, kind: str, key: str, family: str, dark: bool, component: str) -> str | None:
        """`$name` a value reads: a role of its family with that value in its scheme (the
        component's own surface first), else the primitive."""
        primitive = self.primitives.get(self.aliases.get((kind, key), (kind, key)))
        if primitive is None:
            return None
        own = f"color-surface-{component}"
        for role in sorted(self.roles, key=lambda r: r.name != own):
            colour = role.kind == "color"
            target = (role.dark or role.light) if dark and colour else role.light
            if role.family == family and target == primitive.name:
                return "$" + role.name + ("-dark" if dark and colour else "")
        return "$" + primitive.name

    def of_kind(self, kind: str) -> list[Primitive]:
        return sorted((p for p in self.primitives.values() if p.kind == kind), key=lambda p: p.order)

    def names(self) -> set[str]:
        names = {p.name for p in self.primitives.values()}
        for role in self.roles:
            names |= {role.name, role.name + "-dark"}
        return names


# ------------------------------------------------------------ what a declaration holds


@dataclass(frozen=True)
class Use:
    """One scale value in one declaration."""

    kind: str
    key: str
    text: str  # as written
    family: str  # role family of the property
    component: str
    selector: str
    prop: str
    dark: bool


def trim(values: Iterable[Node]) -> list[Node]:
    tokens = [t for t in values if t.type != "comment"]
    while tokens and tokens[0].type == "whitespace":
        tokens.pop(0)
    while tokens and tokens[-1].type == "whitespace":
        tokens.pop()
    return tokens


def top_level_slash(tokens: Iterable[Node]) -> bool:
    return any(t.type == "literal" and t.value == "/" for t in tokens)


def is_colour(token: Node) -> bool:
    if token.type not in ("hash", "ident", "function"):
        return False
    if token.type == "function" and (token.lower_name not in _COLOUR_FUNCTIONS or top_level_slash(token.arguments)):
        return False
    if token.type == "ident" and token.lower_value in ("transparent", "currentcolor", "inherit", "initial"):
        return False
    parsed = tinycss2.color3.parse_color(token)
    return parsed is not None and not isinstance(parsed, str)


def colour_key(token: Node) -> str:
    rgba = tinycss2.color3.parse_color(token)
    assert rgba is not None and not isinstance(rgba, str)
    r, g, b = (round(c * 255) for c in rgba[:3])
    return f"#{r:02x}{g:02x}{b:02x}" + ("" if rgba.alpha == 1 else f"/{round(rgba.alpha, 3)}")


def size_kind(prop: str) -> str | None:
    """Which ladder a length of this property belongs to."""
    if prop in ("font-size", "line-height"):
        return prop
    if _SPACING.match(prop):
        return "space"
    if _RADIUS.match(prop):
        return "radius"
    return None


def colour_family(prop: str) -> str | None:
    if not _COLOUR_PROPERTY.match(prop):
        return None
    if prop == "color":
        return "text"
    if prop.startswith("background"):
        return "surface"
    if prop.startswith(("border", "outline")):
        return "border"
    return "other"


def custom_family(name: str) -> str:
    """A custom property's role family, from its name (`--note-background` is a surface)."""
    for word, family in (("background", "surface"), ("surface", "surface"), ("border", "border")):
        if word in name:
            return family
    return "text" if "color" in name or "text" in name else "other"


def size_key(token: Node, kind: str) -> str | None:
    """The value's key in its ladder, or None when it is no step of a scale (0, negative, calc)."""
    if kind == "line-height" and token.type == "number" and token.value > 0:
        return f"{float(token.value)!r}"
    if token.type == "dimension" and token.value > 0 and token.lower_unit in ("px", "rem", "em"):
        return f"{float(token.value)!r}{token.lower_unit}"
    if token.type == "percentage" and token.value > 0 and kind in ("font-size", "radius"):
        return f"{float(token.value)!r}%"
    return None


def uses(items: Sequence[Item], group_of: dict[int, str]) -> Iterator[Use]:
    """Every scale value in `items`; `group_of` maps id(item) to its component."""
    for item in items:
        if item.rule is None:
            continue
        parsed = tinycss2.parse_blocks_contents(item.rule.content, skip_comments=True, skip_whitespace=True)
        for decl in parsed:
            if decl.type == "declaration":
                yield from declaration_uses(decl, item, group_of.get(id(item), ""))


def declaration_uses(decl: Node, item: Item, component: str) -> Iterator[Use]:
    prop = decl.name if decl.name.startswith("--") else decl.lower_name
    tokens = trim(decl.value)
    if top_level_slash(tokens):
        return
    base = dict(component=component, selector=item.selector, prop=prop, dark=item.dark)
    if prop.startswith("--"):
        if len(tokens) == 1 and is_colour(tokens[0]):
            yield Use("color", colour_key(tokens[0]), tokens[0].serialize(), custom_family(prop), **base)
        return
    kind = size_kind(prop)
    if kind is not None and (kind != "font-size" and kind != "line-height" or len(tokens) == 1):
        for token in tokens:
            key = size_key(token, kind)
            if key is not None:
                yield Use(kind, key, token.serialize(), kind, **base)
    family = colour_family(prop)
    if family is not None:
        for token in colour_tokens(tokens):
            yield Use("color", colour_key(token), token.serialize(), family, **base)


def colour_tokens(tokens: Iterable[Node]) -> Iterator[Node]:
    for token in tokens:
        if is_colour(token):
            yield token
        elif token.type == "function" and token.lower_name in GRADIENTS and not top_level_slash(token.arguments):
            yield from colour_tokens(token.arguments)


# ------------------------------------------------------------ building the scale


def build(found: list[Use], root_px: float, fixed_root: bool = False) -> Scale:
    """`fixed_root`: the stylesheet fixes the root font size in px, so a rem value is one step
    with the px value it equals (`0.5rem` reads `$space-2: 8px` at 16px)."""
    scale = Scale()
    for kind in SIZE_KINDS:
        _ladder(scale, kind, [u for u in found if u.kind == kind], root_px, fixed_root)
    if scale.aliases:
        scale.rem_px = root_px
    _palette(scale, [u for u in found if u.kind == "color"])
    _size_roles(scale, found)
    _colour_roles(scale, found)
    return scale


def root_font_size(items: Sequence[Item]) -> tuple[float, bool]:
    """What 1rem is, and whether the stylesheet fixes it: the one px font-size it gives `html`
    or `:root` (fixed), else the browsers' 16px (not fixed: the reader's setting decides)."""
    sizes = set()
    for item in items:
        if item.rule is None or not {s.strip() for s in item.selector.split(",")} & {"html", ":root"}:
            continue
        for decl in tinycss2.parse_blocks_contents(item.rule.content, skip_comments=True, skip_whitespace=True):
            if decl.type == "declaration" and decl.lower_name in ("font-size", "font"):
                tokens = trim(decl.value)
                px = len(tokens) == 1 and tokens[0].type == "dimension" and tokens[0].lower_unit == "px"
                sizes.add(float(tokens[0].value) if px and decl.lower_name == "font-size" else None)
    if len(sizes) == 1 and None not in sizes:
        return sizes.pop(), True  # type: ignore[return-value]
    return 16.0, False


def _ladder(scale: Scale, kind: str, found: list[Use], root_px: float, fixed_root: bool) -> None:
    """Absolute values (px, rem) in one ladder by size; em and % each in a relative ladder."""
    first: dict[str, str] = {}
    for use in found:
        first.setdefault(use.key, use.text)
    if fixed_root:
        for key in [k for k in first if k.endswith("rem")]:
            twin = f"{float(key[:-3]) * root_px!r}px"
            if twin in first:
                scale.aliases[(kind, key)] = (kind, twin)
                scale.merged.append(f"{first.pop(key)} into {first[twin]}")
    unit_of = {key: re.sub(r"^[\d.]+", "", key) for key in first}
    ladders: dict[str, list[str]] = defaultdict(list)
    for key, unit in unit_of.items():
        ladders["" if unit in _ABSOLUTE or unit == "" else unit].append(key)
    suffix = {"": "", "em": "-em", "%": "-percent"}
    for ladder, keys in sorted(ladders.items()):
        def size(key: str) -> float:
            number = float(re.match(r"[\d.]+", key).group(0))  # type: ignore[union-attr]
            return number * root_px if unit_of[key] == "rem" else number

        for step, key in enumerate(sorted(keys, key=lambda k: (size(k), unit_of[k])), start=1):
            name = f"{kind}{suffix.get(ladder, '-' + ladder)}-{step}"
            scale.primitives[(kind, key)] = Primitive(name, kind, first[key], (size(key),))


def _palette(scale: Scale, found: list[Use]) -> None:
    """Each distinct colour once, named by hue family and lightness (`$gray-850`: 85 % dark)."""
    first: dict[str, str] = {}
    for use in found:
        first.setdefault(use.key, use.text)
    taken: set[str] = set()
    placed = []
    for key in first:
        family, darkness, alpha = _colour_name_parts(key)
        placed.append((family, darkness, alpha, key))
    for family, darkness, alpha, key in sorted(placed):
        name = _free_name(family, darkness, alpha, taken)
        taken.add(name)
        order = (_FAMILIES.index(family), darkness, alpha)
        scale.primitives[("color", key)] = Primitive(name, "color", first[key], order)


def _colour_name_parts(key: str) -> tuple[str, float, float]:
    rgb, _, alpha = key.partition("/")
    r, g, b = (int(rgb[i:i + 2], 16) / 255 for i in (1, 3, 5))
    hue, light, saturation = colorsys.rgb_to_hls(r, g, b)
    if saturation < 0.15 or max(r, g, b) - min(r, g, b) < 0.08:
        family = "gray"
    else:
        family = next(name for limit, name in _HUES if hue * 360 < limit)
    return family, 1000 * (1 - light), float(alpha) if alpha else 1.0


def _free_name(family: str, darkness: float, alpha: float, taken: set[str]) -> str:
    """The coarsest step (50, then 25, 10, 1) that no other colour of the family holds."""
    tail = "" if alpha == 1 else f"-alpha-{round(alpha * 100)}"
    for grid in (50, 25, 10, 1):
        name = f"{family}-{int(round(darkness / grid) * grid)}{tail}"
        if name not in taken:
            return name
    n = 2
    while f"{family}-{int(darkness)}{tail}-{n}" in taken:  # equal lightness and alpha, another hue
        n += 1
    return f"{family}-{int(darkness)}{tail}-{n}"


def _size_roles(scale: Scale, found: list[Use]) -> None:
    """`body`: what body (else html) sets; `small`: the smallest absolute size more than one
    component shares, the size of notes, code and captions in an article."""
    def on(selectors: tuple[str, ...], kind: str) -> str | None:
        for selector in selectors:
            keys = [u.key for u in found if u.kind == kind and u.selector == selector and not u.dark]
            if keys:
                return scale.primitive(kind, keys[-1]).name
        return None

    body = on(("body", "html", ":root"), "font-size")
    components: dict[str, set[str]] = defaultdict(set)
    for use in found:
        if use.kind == "font-size" and (use.key.endswith("rem") or not use.key.endswith(("em", "%"))):
            components[scale.primitive("font-size", use.key).name].add(use.component)
    sizes = {p.name: p for p in scale.of_kind("font-size")}
    shared = [sizes[name] for name, c in components.items() if len(c) > 1]
    small = min(shared, key=lambda p: p.order).name if shared else None
    if small is not None and small != body:
        scale.roles.append(Role("font-size-small", "font-size", "font-size", small,
                                why="the smallest size more than one component shares"))
    if body is not None:
        scale.roles.append(Role("font-size-body", "font-size", "font-size", body, why="body text"))
    line = on(("body", "html", ":root"), "line-height")
    if line is not None:
        scale.roles.append(Role("line-height-body", "line-height", "line-height", line, why="body text"))


def _colour_roles(scale: Scale, found: list[Use]) -> None:
    """Roles with a light and a dark value: what body, links and borders use, and each
    component's own surface; a role is only named when the stylesheet shows it."""
    colours = [u for u in found if u.kind == "color" and not u.prop.startswith("--")]

    def add(name: str, family: str, test: Callable[[Use], bool], why: str) -> None:
        light = [u for u in colours if not u.dark and test(u)]
        if not light:
            return
        key = Counter(u.key for u in light).most_common(1)[0][0]
        # its dark value: what the same rules are given in dark mode, when they are
        places = [u for u in light if u.key == key]
        dark = [u.key for u in colours if u.dark and u.family == family and any(_same_place(u, p) for p in places)]
        scale.roles.append(Role(name, "color", family, scale.primitives[("color", key)].name,
                                scale.primitives[("color", Counter(dark).most_common(1)[0][0])].name
                                if dark else None, why))

    page = ("body", "html", ":root")
    add("color-text", "text", lambda u: _undark(u.selector) in page and u.family == "text", "body text")
    add("color-surface", "surface", lambda u: _undark(u.selector) in page and u.family == "surface", "the page")
    add("color-link", "text", lambda u: _subject(u.selector) == "a" and u.family == "text", "links")
    muted = _muted(scale, colours)
    if muted is not None:
        add("color-text-muted", "text", lambda u: u.family == "text" and u.key == muted,
            "the grey text more than one component shares: captions, bylines, asides")
    add("color-border", "border", lambda u: u.family == "border", "the most used border colour")
    for component in dict.fromkeys(u.component for u in colours):
        add(f"color-surface-{component}", "surface", _own_surface(component), f"the {component} background")


def _muted(scale: Scale, colours: list[Use]) -> str | None:
    """The grey text colour most components share, other than the body text and the links."""
    taken = {r.light for r in scale.roles if r.family == "text"}
    components: dict[str, set[str]] = defaultdict(set)
    for use in colours:
        primitive = scale.primitives[("color", use.key)]
        if use.family == "text" and not use.dark and primitive.name not in taken and primitive.name.startswith("gray-"):
            components[use.key].add(use.component)
    shared = sorted((len(c), key) for key, c in components.items() if len(c) > 1)
    return shared[-1][1] if shared else None


def _same_place(dark: Use, light: Use) -> bool:
    """Whether a dark declaration restyles the light one: one of its selectors, and the same
    property or a shorthand of it (`border-color` for `border-top`)."""
    selectors = {part.strip() for part in _undark(dark.selector).split(",")}
    if not selectors & {part.strip() for part in light.selector.split(",")}:
        return False
    a, b = dark.prop.removesuffix("-color"), light.prop.removesuffix("-color")
    return a == b or a.startswith(b + "-") or b.startswith(a + "-")


def _own_surface(component: str) -> Callable[[Use], bool]:
    own = {f".{component}", component}
    return lambda u: bool(own & {part.strip() for part in _undark(u.selector).split(",")}) and u.family == "surface"


def _undark(selector: str) -> str:
    """`[data-theme="dark"] .note-box` is the dark `.note-box`."""
    return DARK_ATTRIBUTE.sub("", selector).strip() or selector


def _subject(selector: str) -> str:
    """The element a selector styles, when all of its selectors style the same one (`a`)."""
    subjects = {re.split(r"\s*[\s>+~]\s*", part.strip())[-1] for part in _undark(selector).split(",")}
    return subjects.pop() if len(subjects) == 1 else ""


def render(scale: Scale, source_name: str) -> dict[str, str]:
    """The three token files: the scale, the palette and the roles, every value `!default`."""
    head = f"found in {source_name} (theme init --scss). Every value is !default: set yours before importing."
    scale_lines = [f"// The scale {head}", "// Equal values are one step; steps are ordered by size."]
    for kind in SIZE_KINDS:
        ladder = scale.of_kind(kind)
        if ladder:
            scale_lines.append(f"\n// {_TITLES[kind]}")
            scale_lines += [f"${p.name}: {p.value} !default;" for p in ladder]
    palette = [f"// The palette {head}", "// Each colour once, named by hue and how dark it is (0 white, 1000 black)."]
    palette += [f"${p.name}: {p.value} !default;" for p in scale.of_kind("color")]
    roles = [f"// Roles {head}", "// What a value is for; components read these through their own hooks.",
             "// Dark values sit beside light ones (-dark)."]
    for role in scale.roles:
        roles.append(f"${role.name}: ${role.light} !default;  // {role.why}")
        if role.kind == "color":
            dark = f"${role.dark}" if role.dark else f"${role.name}"
            roles.append(f"${role.name}-dark: {dark} !default;")
    return {"scss/tokens/_scale.scss": "\n".join(scale_lines) + "\n",
            "scss/tokens/_palette.scss": "\n".join(palette) + "\n",
            "scss/tokens/_roles.scss": "\n".join(roles) + "\n"}


def definitions(scale: Scale) -> str:
    """Every primitive and role as plain Sass assignments, for compiling one rule alone."""
    out = [f"${p.name}: {p.value};" for p in scale.primitives.values()]
    for role in scale.roles:
        out.append(f"${role.name}: ${role.light};")
        if role.kind == "color":
            out.append(f"${role.name}-dark: ${role.dark or role.light};")
    return "\n".join(out) + "\n"
