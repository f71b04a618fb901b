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

A selector a script builds is looked up too, wherever it is built: a string that is part
of a concatenation (`"#example-" + n + " > .image-selector"`, `".row " + tag`, `${id} .bar`)
counts when it reads as selector syntax from end to end. Prose does not ("Loading " + n +
" items."), nor does a name the code around it may lengthen or join onto: `".item-" + i`,
`name + ".png"` (a file's suffix, or a class of a compound only the code knows).
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

# Every string literal, in order: "…" or '…' (group 2), or `…` (group 3, its ${…} parts code).
_STRING = re.compile(r"""(["'])((?:\\.|(?!\1)[^\\\n])*)\1|`((?:\\.|[^`\\])*)`""")
_INTERPOLATION = re.compile(r"\$\{[^{}`]*\}")
_JOINED_BEFORE = re.compile(r"\+=?\s*$")  # "…" + "<literal>", s += "<literal>"
_JOINED_AFTER = re.compile(r"\s*\+")
# The tokens of a selector: a class, an id, [attribute], :pseudo(…), a type, * and the
# combinators (not `+`, which in a script is far likelier to be the code around a string than
# a sibling combinator).
_SELECTOR_TOKEN = re.compile(
    r"""(?P<cls>\.-?[A-Za-z_][\w-]*)|(?P<type>[a-z][\w-]*|\*)|#[\w-]*|\[[^\]]*\]"""
    r"""|::?[A-Za-z-][\w-]*(?:\([^()]*\))?|(?P<combinator>\s*[>~,]\s*|\s+)""")
# The types a selector names: HTML's, SVG's and MathML's elements, and custom elements (a
# hyphen: d-article). Lower-case prose reads as a chain of types too (" must end in .yml"),
# but of words that are no element.
_ELEMENTS = frozenset("""
    a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption
    cite code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset
    figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input
    ins kbd label legend li link main map mark menu meta meter nav noscript object ol optgroup
    option output p param picture pre progress q rp rt ruby s samp script search section select
    slot small source span strong style sub summary sup table tbody td template textarea tfoot th
    thead time title tr track u ul var video wbr
    svg g defs symbol use circle ellipse line path polygon polyline rect text tspan textpath
    lineargradient radialgradient stop clippath mask pattern marker image foreignobject filter
    math mi mn mo ms mtext mrow msub msup msubsup mfrac msqrt mroot mtable mtr mtd annotation
""".split())
# `type.suffix` of a file, not a class: "a.pdf".
_NOT_CLASSES = frozenset("html htm js mjs json css png jpg jpeg gif svg webp pdf csv tsv txt md bib "
                         "mp4 webm woff woff2".split())


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


def _built_selectors(text: str) -> list[tuple[str, bool, bool]]:
    """The literal parts of concatenated strings, as (text, code before it, code after it):
    each part of a template literal with ${…}, and each "…" or '…' joined by `+`."""
    parts: list[tuple[str, bool, bool]] = []
    for m in _STRING.finditer(text):
        before = bool(_JOINED_BEFORE.search(text, max(0, m.start() - 8), m.start()))
        after = bool(_JOINED_AFTER.match(text, m.end()))
        if m.group(3) is None:
            if before or after:
                parts.append((m.group(2), before, after))
            continue
        pieces = _INTERPOLATION.split(m.group(3))
        if len(pieces) == 1 and not (before or after):
            continue
        for i, piece in enumerate(pieces):
            parts.append((piece, before or i > 0, after or i < len(pieces) - 1))
    return parts


def _selector_classes(part: str, before: bool, after: bool) -> list[str]:
    """The whole class names of one literal part of a built selector; none unless the whole
    part reads as selector syntax. With code before it, the part's first compound may go on
    from that code, so only classes after a combinator count; with code after it, a class
    that ends the part may be lengthened by that code."""
    if before:  # the code may end in a name this part goes on with ("#fig-" + n + "b .x")
        part = re.sub(r"^[\w-]+", "", part)
    found: list[str] = []
    pos, own, previous = 0, not before, ""  # own: in a compound this part began
    while pos < len(part):
        token = _SELECTOR_TOKEN.match(part, pos)
        if token is None or token.end() == pos:
            return []
        cls, element = token.group("cls"), token.group("type")
        if element and element != "*" and "-" not in element and element.lower() not in _ELEMENTS:
            return []
        if token.group("combinator") is not None:
            own = True
        elif cls and own and not (after and token.end() == len(part)):
            if not (previous == "type" and cls[1:] in _NOT_CLASSES):
                found.append(cls[1:])
        previous = token.lastgroup or ""
        pos = token.end()
    return found


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
    for part, before, after in _built_selectors(text):
        found.update(_selector_classes(part, before, after))
    return found
