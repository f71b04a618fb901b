"""The token documentation page: one self-contained HTML file (no scripts or URLs) from the compiled CSS.

Pure, and like tokens.py it reads the CSS the browser gets, so it cannot drift: each token's light and dark
values (swatches, font specimens), the rules that read it through any var() chain, and every font-size set.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib.resources import files
from string import Template
from typing import TYPE_CHECKING

import tinycss2

if TYPE_CHECKING:
    from tinycss2.ast import Node

from . import contrast
from . import tokens as tokens_mod

SPECIMEN = "The ledger of memory: 0123456789 — Ωμέγα ≠ ½"


@dataclass(frozen=True)
class Use:
    selector: str  # e.g. ".note-box"
    property: str  # e.g. "background"
    media: str  # "" at top level, else the @media prelude


# ------------------------------------------------------------------ reading


def usages(css: str, prefix: str = tokens_mod.PREFIX) -> dict[str, list[Use]]:
    """Custom property → the rules that read it (through any var() chain), in stylesheet order.

    Declarations of custom properties themselves are not uses (they are the
    token's definition); a token defined as var(--theme-other) makes every use of
    it a use of --theme-other too.
    """
    light = tokens_mod.declarations(css, ":root")
    out: dict[str, list[Use]] = {}
    for selector, media, decls in _all_rules(css):
        for prop, value in decls.items():
            if prop.startswith("--"):
                continue
            for name in _reads(value, light):
                if name.startswith(f"--{prefix}-"):
                    use = Use(selector, prop, media)
                    if use not in out.setdefault(name, []):
                        out[name].append(use)
    return out


def font_sizes(css: str) -> dict[str, list[str]]:
    """font-size value → selectors that set it (top level and inside @media), first-seen order."""
    out: dict[str, list[str]] = {}
    for selector, media, decls in _all_rules(css):
        size = decls.get("font-size")
        if size:
            label = f"{selector} @media {media}" if media else selector
            if label not in out.setdefault(size, []):
                out[size].append(label)
    return out


def _reads(value: str, table: dict[str, str], seen: frozenset[str] = frozenset()) -> list[str]:
    names = []
    for name in re.findall(r"var\(\s*(--[\w-]+)", value):
        if name in seen:
            continue
        names.append(name)
        if name in table:
            names += _reads(table[name], table, seen | {name})
    return names


# (selector text, media prelude or "", declarations)
Rule = tuple[str, str, dict[str, str]]


def _all_rules(css: str) -> Iterator[Rule]:
    """(selector text, media prelude or "", declarations) for every style rule."""
    nodes = tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    yield from _walk(nodes, "")


def _walk(nodes: Iterable[Node], media: str) -> Iterator[Rule]:
    for node in nodes:
        if node.type == "qualified-rule":
            selector = " ".join(tinycss2.serialize(node.prelude).split())
            yield selector, media, tokens_mod._declarations(node)
        elif node.type == "at-rule" and node.lower_at_keyword == "media" and node.content:
            prelude = " ".join(tinycss2.serialize(node.prelude).split())
            yield from _walk(tinycss2.parse_rule_list(node.content, True, True), prelude)


# ------------------------------------------------------------------ rendering


def render(css: str, title: str = "Design tokens", prefix: str = tokens_mod.PREFIX,
           scale: list[tokens_mod.Primitive] | None = None) -> str:
    """The page; with `scale` (an adopted stylesheet's primitives), the scale first: a type ramp
    per font size, a bar per space, swatches for the palette, each with the components that read it."""
    found = tokens_mod.read_tokens(css, prefix)
    light = {t.property: t.light for t in found}
    dark = {t.property: t.dark for t in found}
    used = usages(css, prefix)
    rows = "\n".join(_token_row(t, _resolved(t.light, light), _resolved(t.dark, dark), used.get(t.property, []))
                     for t in found)
    sizes = "\n".join(_size_row(size, selectors) for size, selectors in font_sizes(css).items())
    e = html.escape
    # The page and its own look (plain, readable in either scheme, no external resources).
    page = Template((files("theme.stylesheet") / "tokens_page.html").read_text(encoding="utf-8"))
    return page.substitute(title=e(title), count=len(found), prefix=e(prefix), rows=rows, sizes=sizes,
                           scale=_scale_section(scale or []))


def _resolved(value: str, table: dict[str, str]) -> str:
    try:
        return tokens_mod.resolve(value, table)
    except (KeyError, ValueError):
        return value


def _token_row(token: tokens_mod.Token, light: str, dark: str, uses: list[Use]) -> str:
    e = html.escape
    kind = _kind(token.name, light)
    cells = "".join(f'<td class="value {scheme}">{_value_cell(kind, value, raw)}</td>'
                    for scheme, value, raw in (("light", light, token.light), ("dark", dark, token.dark)))
    used = "".join(f"<li><code>{e(u.selector)}</code> {e(u.property)}"
                   + (f' <span class="media">@media {e(u.media)}</span>' if u.media else "")
                   + "</li>" for u in uses)
    used_cell = f'<ul class="uses">{used}</ul>' if uses else '<span class="unused">not read by any rule</span>'
    return (f'<tr class="token {kind}" id="{e(token.name)}" data-token="{e(token.property)}">'
            f'<th scope="row"><code>{e(token.property)}</code></th>{cells}<td>{used_cell}</td></tr>')


def _kind(name: str, value: str) -> str:
    if contrast.parse_colour(value) is not None:
        return "colour"
    if name.startswith("font-family"):
        return "font"
    return "other"


def _value_cell(kind: str, value: str, raw: str) -> str:
    e = html.escape
    shown = e(value) if value == raw else f"{e(value)} <small>({e(raw)})</small>"
    if kind == "colour":
        return (f'<span class="swatch" style="background: {e(value)}" title="{e(value)}"></span>'
                f"<code>{shown}</code>")
    if kind == "font":
        return f'<p class="specimen" style="font-family: {e(value)}">{e(SPECIMEN)}</p><code>{shown}</code>'
    return f"<code>{shown}</code>"


def _size_row(size: str, selectors: list[str]) -> str:
    e = html.escape
    where = "".join(f"<li><code>{e(s)}</code></li>" for s in selectors)
    return (f'<tr class="size" data-size="{e(size)}"><th scope="row"><code>{e(size)}</code></th>'
            f'<td><p class="specimen" style="font-size: {e(size)}">{e(SPECIMEN)}</p></td>'
            f'<td><ul class="uses">{where}</ul></td></tr>')


# ------------------------------------------------------------------ the scale


def _scale_section(scale: list[tokens_mod.Primitive]) -> str:
    """One table per ladder, in the order of the scale's files; nothing without a scale."""
    if not scale:
        return ""
    e = html.escape
    ladders: dict[str, list[tokens_mod.Primitive]] = {}
    for primitive in scale:
        ladders.setdefault(primitive.ladder, []).append(primitive)
    out = ['<h2 id="scale">Scale</h2>',
           f'<p class="lead">{len(scale)} primitives of the stylesheet\'s scale '
           "(<code>theme init --scss</code>): each value once, in order, with every component that reads it.</p>"]
    for ladder, primitives in ladders.items():
        out += [f"<h3>{e(ladder)}</h3>",
                f'<table class="scale" data-ladder="{e(ladder)}">'
                "<thead><tr><th>Primitive</th><th>Value</th><th>Read by</th></tr></thead><tbody>",
                *(_scale_row(p) for p in primitives), "</tbody></table>"]
    return "\n".join(out)


def _scale_row(primitive: tokens_mod.Primitive) -> str:
    e = html.escape
    value = e(primitive.value)
    looks = {"font sizes": f'<p class="specimen" style="font-size: {value}">{e(SPECIMEN)}</p>',
             "line heights": f'<p class="specimen ramp" style="line-height: {value}">{e(SPECIMEN)}<br>'
                             f"{e(SPECIMEN)}</p>",
             "spaces": f'<span class="bar" style="width: {value}"></span>',
             "radii": f'<span class="box" style="border-radius: {value}"></span>',
             "palette": f'<span class="swatch" style="background: {value}" title="{value}"></span>'}
    look = looks.get(primitive.ladder, "")
    readers = ", ".join(e(r) for r in primitive.readers) or '<span class="unused">no component</span>'
    return (f'<tr class="primitive" id="{e(primitive.name)}" data-primitive="${e(primitive.name)}">'
            f'<th scope="row"><code>${e(primitive.name)}</code></th><td>{look}<code>{value}</code></td>'
            f"<td>{readers}</td></tr>")
