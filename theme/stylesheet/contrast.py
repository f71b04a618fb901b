"""Colour contrast of declared foreground/background role pairs (`scss/contrast-pairs.toml`), per WCAG 2.1.

Pure: CSS and pairs-file text in, results out (nothing compiled or opened). Values come from the compiled
CSS (tokens.py): `!default` overrides and map-merges applied, var() chains resolved in each scheme.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tinycss2.color3
import tinycss2.color4

from ..core.errors import ThemeError
from . import tokens as tokens_mod

# WCAG 2.1 success criteria 1.4.3 (large text: >= 18pt, or >= 14pt bold) and 1.4.11 (UI components).
# Formulas: https://www.w3.org/TR/WCAG21/#dfn-relative-luminance and #dfn-contrast-ratio.
MINIMUM = {"text": 4.5, "large-text": 3.0, "ui": 3.0}
SCHEMES = ("light", "dark")
DEFAULT_OVER = "page-background"


class ContrastError(ThemeError):
    """The pairs file is unusable (syntax, unknown role, a colour we cannot read)."""


@dataclass(frozen=True)
class Pair:
    name: str
    foreground: str
    background: str
    kind: str
    over: str
    line: int  # of the pair's [[pair]] header, for messages


@dataclass(frozen=True)
class Result:
    pair: Pair
    scheme: str  # "light" | "dark"
    foreground: tuple[float, float, float]  # opaque sRGB 0..1 after compositing
    background: tuple[float, float, float]
    ratio: float

    @property
    def minimum(self) -> float:
        return MINIMUM[self.pair.kind]

    @property
    def passed(self) -> bool:
        # Compare the unrounded ratio: 4.499 must fail even though it prints as 4.50.
        return self.ratio >= self.minimum


# ------------------------------------------------------------- WCAG maths


def _linear(channel: float) -> float:
    """sRGB channel (0..1) to linear light, as WCAG 2.1 defines it (0.03928 threshold,
    kept from the sRGB draft; the IEC value 0.04045 changes no 8-bit result)."""
    return channel / 12.92 if channel <= 0.03928 else ((channel + 0.055) / 1.055) ** 2.4


def relative_luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG 2.1 relative luminance: L = 0.2126 R + 0.7152 G + 0.0722 B (linear channels)."""
    r, g, b = (_linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    """WCAG 2.1 contrast ratio (L1 + 0.05) / (L2 + 0.05), L1 the lighter; 1..21."""
    la, lb = relative_luminance(a), relative_luminance(b)
    lighter, darker = max(la, lb), min(la, lb)
    return (lighter + 0.05) / (darker + 0.05)


def composite(top: tuple[float, float, float, float], under: tuple[float, float, float]
              ) -> tuple[float, float, float]:
    """Source-over alpha compositing of `top` (RGBA) on an opaque colour: what the eye gets."""
    r, g, b, a = top
    return tuple(a * c + (1 - a) * u for c, u in zip((r, g, b), under, strict=True))  # type: ignore[return-value]


def parse_colour(value: str) -> tuple[float, float, float, float] | None:
    """A CSS colour as sRGB + alpha floats, or None when it is not a plain colour.

    tinycss2's CSS Color 3 parser covers hex, rgb(a), hsl(a) and names; Color 4
    adds the space-separated forms (`rgb(0 0 0 / 50%)`) we accept when in sRGB.
    """
    c3 = tinycss2.color3.parse_color(value)
    if c3 is not None and c3 != "currentColor":
        return (c3.red, c3.green, c3.blue, c3.alpha)
    c4 = tinycss2.color4.parse_color(value)
    if c4 is not None and c4 != "currentcolor" and getattr(c4, "space", None) == "srgb":
        r, g, b = c4.coordinates
        return (r, g, b, c4.alpha)
    return None


# ------------------------------------------------------------- pairs file

_PAIR_HEADER = re.compile(r"^\s*\[\[\s*pair\s*\]\]")
# [[pair]] name = what the reader sees; foreground, background = role token names (--theme-<name>);
# kind = text | large-text | ui; over (optional) = what a translucent background sits on.
_PAIR_KEYS = {"name", "foreground", "background", "kind", "over"}


def load_pairs(text: str, path: Path) -> list[Pair]:
    """Parse the pairs file; ContrastError with `path:line:col` on anything wrong."""
    where = _display(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(err))
        pos = f"{m[1]}:{m[2]}" if m else "1:1"
        raise ContrastError(f"{where}:{pos}: {str(err).split(' (at')[0]}; fix the TOML syntax") from None
    headers = [n for n, line in enumerate(text.splitlines(), start=1) if _PAIR_HEADER.match(line)]
    raw = data.get("pair")
    if not isinstance(raw, list) or not raw:
        raise ContrastError(f"{where}:1:1: no [[pair]] tables; declare at least one pair")
    pairs = []
    for index, item in enumerate(raw):
        line = headers[index] if index < len(headers) else 1
        pairs.append(_pair(item, line, text, where))
    return pairs


def _pair(item: dict[str, Any], line: int, text: str, where: str) -> Pair:
    def at(key: str) -> str:
        return _key_position(text, line, key, where)

    for key in item:
        if key not in _PAIR_KEYS:
            raise ContrastError(f"{at(key)}: unknown key {key!r}; known keys: {', '.join(sorted(_PAIR_KEYS))}")
    for key in ("foreground", "background", "kind"):
        if not isinstance(item.get(key), str) or not item[key]:
            raise ContrastError(f"{where}:{line}:1: pair lacks {key!r}; add {key} = \"…\"")
    if item["kind"] not in MINIMUM:
        raise ContrastError(f"{at('kind')}: kind {item['kind']!r} is not one of "
                            f"{', '.join(MINIMUM)} (WCAG 2.1 1.4.3 / 1.4.11)")
    name = item.get("name") or f"{item['foreground']} on {item['background']}"
    return Pair(name=name, foreground=item["foreground"], background=item["background"],
                kind=item["kind"], over=item.get("over", DEFAULT_OVER), line=line)


def _key_position(text: str, header_line: int, key: str, where: str) -> str:
    """`path:line:col` of `key = …` in the [[pair]] table that starts at `header_line`."""
    lines = text.splitlines()
    for number in range(header_line + 1, len(lines) + 1):
        line = lines[number - 1]
        if _PAIR_HEADER.match(line) or line.lstrip().startswith("["):
            break
        m = re.match(rf"\s*{re.escape(key)}\s*=", line)
        if m:
            value = re.search(r"=\s*", line)
            return f"{where}:{number}:{value.end() + 1 if value else 1}"
    return f"{where}:{header_line}:1"


# ------------------------------------------------------------- checking


def check(css: str, pairs: list[Pair], text: str = "", path: Path = Path("contrast-pairs.toml"),
          prefix: str = tokens_mod.PREFIX) -> list[Result]:
    """Every pair in light then dark. ContrastError on an unknown role or unreadable colour."""
    found = tokens_mod.read_tokens(css, prefix)
    known = {t.name for t in found}
    for pair in pairs:
        for key in ("foreground", "background", "over"):
            role = getattr(pair, key)
            if role not in known:
                hint = _closest(role, known)
                pos = _key_position(text, pair.line, key, _display(path)) if text else f"{_display(path)}:{pair.line}:1"
                raise ContrastError(f"{pos}: unknown role {role!r} in pair {pair.name!r}"
                                    f"{hint}; use a token name from `theme tokens`")
    results = []
    for scheme in SCHEMES:
        table = {t.property: getattr(t, scheme) for t in found}
        for pair in pairs:
            results.append(_measure(pair, scheme, table, prefix, path))
    return results


def _measure(pair: Pair, scheme: str, table: dict[str, str], prefix: str, path: Path) -> Result:
    def colour(role: str) -> tuple[float, float, float, float]:
        raw = table[f"--{prefix}-{role}"]
        try:
            value = tokens_mod.resolve(raw, table)
        except (KeyError, ValueError) as err:
            raise ContrastError(f"{_display(path)}:{pair.line}:1: {scheme} value of {role!r} "
                                f"({raw}) does not resolve: {err}; fix the token") from None
        rgba = parse_colour(value)
        if rgba is None:
            raise ContrastError(f"{_display(path)}:{pair.line}:1: {scheme} value of {role!r} is "
                                f"{value!r}, not a colour; pair colour roles only")
        return rgba

    # A translucent background shows what it sits on (`over`, itself made opaque
    # over white, the canvas); the foreground is then drawn on that result.
    base = composite(colour(pair.over), (1.0, 1.0, 1.0))
    background = composite(colour(pair.background), base)
    foreground = composite(colour(pair.foreground), background)
    return Result(pair=pair, scheme=scheme, foreground=foreground, background=background,
                  ratio=contrast_ratio(foreground, background))


def report_lines(results: list[Result]) -> list[str]:
    """One line per pair and scheme: `light  body text  text-color on page-background  15.80:1 ≥ 4.5  pass`."""
    width = max((len(r.pair.name) for r in results), default=0)
    roles = max((len(f"{r.pair.foreground} on {r.pair.background}") for r in results), default=0)
    out = []
    for r in results:
        verdict = "pass" if r.passed else "FAIL"
        pair_roles = f"{r.pair.foreground} on {r.pair.background}"
        out.append(f"{r.scheme:<5}  {r.pair.name:<{width}}  {pair_roles:<{roles}}  "
                   f"{_hex(r.foreground)} on {_hex(r.background)}  "
                   f"{r.ratio:5.2f}:1 (needs {r.minimum:g}:1, {r.pair.kind})  {verdict}")
    return out


def _hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(c * 255):02x}" for c in rgb)


def _closest(name: str, known: set[str]) -> str:
    import difflib

    found = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    return f" (did you mean {found[0]!r}?)" if found else ""


def _display(path: Path) -> str:
    import os

    try:
        return os.path.relpath(path) if Path(path).is_absolute() else str(path)
    except ValueError:
        return str(path)
