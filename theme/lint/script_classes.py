"""The class names a script gives a meaning to, read from its text: those it writes into
markup or onto elements, and those it looks elements up by.

A runtime's classes need no rule of their own: Distill's byline writes `<a class="name">`
and `<p class="affiliation">`, which no stylesheet styles, into every article (and
distill.pub serves its articles with that byline already in the HTML). A class that
the page's scripts write or look up is theirs, not a typo of the author's, so TL020
leaves it alone. Read from the text, because a runtime may skip drawing what a
pre-rendered page already holds; the scripts are those the page loaded in the render.

Only whole names count: `"language-" + lang` gives no class, and the part of
`class="a ${b}"` that is code gives nothing. Approximate by design (no JavaScript
parser): a pattern that misses only leaves a class to TL020 as before.
"""

from __future__ import annotations

import re

# A class token worth reporting on: what an author could have typed in a class attribute.
_NAME = re.compile(r"-?[A-Za-z_][\w-]*")
_QUOTE = "\"'`"

# class="…" inside a string or template literal, its quote possibly escaped (class=\"…\").
_ATTRIBUTE = re.compile(r"""\bclass\s*=\s*(\\?)(["'])""")
# element.className = "…" / += "…"
_CLASS_NAME = re.compile(r"""\bclassName\s*\+?=\s*(["'`])""")
# Calls whose string arguments are class names (DOM, d3).
_NAME_CALLS = re.compile(
    r"""(?:\bclassList\s*\.\s*(?:add|remove|toggle|contains|replace)|\bgetElementsByClassName|\.classed)"""
    r"""\s*\(([^()]*)\)""")
# Calls whose string arguments are a class attribute value: setAttribute("class", …), d3's attr("class", …).
_ATTR_CALLS = re.compile(r"""(?:\bsetAttribute|\.attr)\s*\(\s*["']class["']\s*,\s*(["'`])""")
# Calls whose string argument is a selector: querySelector(All), closest, matches, d3's select(All).
_SELECTOR_CALLS = re.compile(
    r"""(?:\bquerySelector(?:All)?|\.closest|\.matches|\bselect(?:All)?)\s*\(\s*(["'`])([^"'`\\$]*)\1""")
_SELECTOR_CLASS = re.compile(r"\.(-?[A-Za-z_][\w-]*)")
_CONCATENATED = re.compile(r"\s*\+")  # after a closing quote: the value goes on
_LITERAL = re.compile(r"""(["'`])([^"'`\\$]*)\1""")


def _value(text: str, start: int, quote: str, escaped: str = "") -> list[str]:
    """The whole class names of the literal value starting at `start`, closed by `quote`
    (preceded by `escaped`, a backslash, when the quote was escaped). When the value is
    cut short or goes on (`${…}`, `+ name`), its last token may be part of a longer name: dropped."""
    end = start
    while end < len(text) and text[end] not in _QUOTE + "\\$<>\n":
        end += 1
    value = text[start:end]
    whole = text.startswith(escaped + quote, end) and not _CONCATENATED.match(text, end + len(escaped) + 1)
    tokens = value.split()
    if not whole and tokens and not value[-1:].isspace():
        tokens.pop()
    return [t for t in tokens if _NAME.fullmatch(t)]


def classes_in_script(text: str) -> set[str]:
    """Every class name the script's text writes into markup or onto elements, or selects by."""
    found: set[str] = set()
    for m in _ATTRIBUTE.finditer(text):
        found.update(_value(text, m.end(), m.group(2), m.group(1)))
    for pattern in (_CLASS_NAME, _ATTR_CALLS):
        for m in pattern.finditer(text):
            found.update(_value(text, m.end(), m.group(1)))
    for m in _NAME_CALLS.finditer(text):
        for lit in _LITERAL.finditer(m.group(1)):
            found.update(t for t in lit.group(2).split() if _NAME.fullmatch(t))
    for m in _SELECTOR_CALLS.finditer(text):
        found.update(_SELECTOR_CLASS.findall(m.group(2)))
    return found
