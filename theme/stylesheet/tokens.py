"""Design tokens as the browser receives them, read back from the compiled CSS (pure, tinycss2).

Why the CSS, not the SCSS maps: it is what a page gets after `!default`, map-merges and Sass arithmetic, so it
cannot drift; LibSass cannot enumerate variables, and a second SCSS evaluator would be a second truth.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
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


def to_json(tokens: list[Token], scale: list[Primitive] | None = None) -> str:
    """Deterministic JSON: {"tokens": [{name, property, light, dark}, …]} in stylesheet order,
    and with a scale, "scale": [{name, value, ladder, readers}, …] in the order of its files."""
    out: dict[str, object] = {"tokens": [asdict(t) for t in tokens]}
    if scale:
        out["scale"] = [asdict(p) for p in scale]
    return json.dumps(out, indent=2, ensure_ascii=False)


# ---------------------------------------------------------------- the scale of an adopted stylesheet

# What `theme init --scss` writes under the entry's folder: primitives in two files, roles that
# point at them, and one file per component whose `!default` hooks read roles or primitives.
SCALE_FILES = ("tokens/_scale.scss", "tokens/_palette.scss")
ROLES_FILE = "tokens/_roles.scss"
COMPONENTS = "components"
_ASSIGNMENT = re.compile(r"^\$([\w-]+):\s*(.+?)\s*!default\s*;", re.M)
_LADDER = re.compile(r"^//\s*(font sizes|line heights|spaces|radii)\b", re.M)


@dataclass(frozen=True)
class Primitive:
    name: str  # "font-size-1", "gray-850"
    value: str  # as its file sets it: "12px"
    ladder: str  # "font sizes", "line heights", "spaces", "radii" or "palette"
    readers: tuple[str, ...]  # the components whose hooks read it, directly or through a role


def read_scale(sources: dict[str, str]) -> list[Primitive]:
    """The primitives of a scale and the components that read each one.

    `sources`: path under the entry's folder -> text (the scale and palette files, the roles,
    `components/_<name>.scss`). Pure: references are followed through `$name` assignments only,
    the form `theme init --scss` writes; a hook that computes (`$space-2 * 2`) still names it."""
    reads: dict[str, set[str]] = {}  # variable -> the variables its default names
    for path, text in sources.items():
        if path == ROLES_FILE or path.startswith(COMPONENTS + "/"):
            for name, value in _ASSIGNMENT.findall(text):
                reads[name] = set(re.findall(r"\$([\w-]+)", value))
    readers: dict[str, set[str]] = {}
    for path, text in sources.items():
        if path.startswith(COMPONENTS + "/"):
            component = path.rsplit("/_", 1)[-1].removesuffix(".scss")
            for name, _ in _ASSIGNMENT.findall(text):
                for primitive in _reached(name, reads):
                    readers.setdefault(primitive, set()).add(component)
    out = []
    for path in SCALE_FILES:
        ladder = "palette" if "palette" in path else ""
        for line in sources.get(path, "").splitlines():
            heading = _LADDER.match(line)
            assignment = _ASSIGNMENT.match(line)
            if heading:
                ladder = heading.group(1)
            elif assignment:
                name = assignment.group(1)
                out.append(Primitive(name, assignment.group(2), ladder, tuple(sorted(readers.get(name, ())))))
    return out


def scale_sources(folder: Path) -> dict[str, str]:
    """The files read_scale reads, under the SCSS entry's folder; empty when it has no scale."""
    if not any((folder / path).is_file() for path in SCALE_FILES):
        return {}
    paths = [folder / p for p in (*SCALE_FILES, ROLES_FILE)] + sorted((folder / COMPONENTS).glob("_*.scss"))
    return {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8") for p in paths if p.is_file()}


def _reached(name: str, reads: dict[str, set[str]], seen: frozenset[str] = frozenset()) -> set[str]:
    """Every variable `name` reads through assignments, itself excluded."""
    out: set[str] = set()
    for other in reads.get(name, ()):
        if other not in seen:
            out |= {other} | _reached(other, reads, seen | {name})
    return out


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
