"""From parsed Items to the files of a starter scss/: the scale, one file per component, the entry.

Each rule is compiled alone reading its component's hooks, else as written, else with its values
quoted (`unquote("…")`), until libsass gives the same rule back. A rule joins its component (first
class or element; inside `d-article`, what it styles) past later rules only when none of them can
set the same property on the same element; a component's rules that must stay later are a mixin
its file defines and the entry includes at their place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

import sass
import tinycss2

from . import canon
from . import scale as scale_mod
from .parse import DARK_ATTRIBUTE, Item
from .scale import Scale
from .tokens import Hooks, declaration
from .tokens import render as render_hooks

_HEADINGS = {f"h{i}" for i in range(1, 7)}
_CONTAINERS = {"d-article", "article", "main"}  # the article's body: a rule inside it styles a component
_ELEMENT_GROUPS = [
    (_HEADINGS, "headings"), ({"a"}, "links"), ({"ul", "ol", "li", "dl", "dt", "dd"}, "lists"),
    ({"table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption"}, "tables"),
    ({"img", "figure", "figcaption", "picture", "svg", "video", "canvas"}, "figures"),
    ({"pre", "code", "kbd", "samp"}, "code"), ({"aside"}, "aside"),
    ({"html", "body", "*", ":root", "::selection"}, "base"),
]


@dataclass
class Piece:
    item: Item
    scss: str  # the rule as it goes into its component (without wrappers)
    group: str
    properties: frozenset[str]  # property families it sets; "*" pins it in place
    left_as_written: str | None = None  # why, when it is not read from tokens
    hooks: list[str] = field(default_factory=list)  # the hooks it reads


@dataclass
class Plan:
    files: dict[str, str]  # path under root ("scss/components/_note-box.scss") -> text
    pieces: list[Piece]
    scale: Scale
    hooks: Hooks
    components: list[str] = field(default_factory=list)  # component files in import order
    parts: list[str] = field(default_factory=list)  # mixins the entry includes between them
    moved: int = 0  # rules written away from their neighbours, to join their component


def plan(items: list[Item], source_name: str, *, regroup: bool = True, merge_units: bool = True) -> Plan:
    """The files of scss/. `regroup=False` keeps every rule where it was: a component is
    then a run of neighbouring rules only (the fallback when regrouping changed pixels).
    `merge_units=False` keeps rem values apart from equal px ones (the fallback when the
    page's root font size is not the stylesheet's: a style attribute, a script)."""
    groups = _merged_groups([_group(item) for item in items])
    group_of = {id(item): group for item, group in zip(items, groups, strict=True)}
    root_px, fixed = scale_mod.root_font_size(items)
    scale = scale_mod.build(list(scale_mod.uses(items, group_of)), root_px, fixed and merge_units)
    hooks = Hooks(reserved=scale.names())
    pieces = [_piece(item, group, scale, hooks) for item, group in zip(items, groups, strict=True)]
    chunks = _chunks(pieces, regroup)
    files = scale_mod.render(scale, source_name)
    entry = ["// The stylesheet, from " + source_name + " (theme init --scss).",
             "// The scale, the palette and the roles first; then one file per component, in the",
             "// order of the original rules: the cascade depends on it. Where a component's later",
             "// rules must come after another component, the entry includes them there (@include).",
             '@import "tokens/scale";', '@import "tokens/palette";', '@import "tokens/roles";']
    names: list[str] = []
    parts: list[str] = []
    bodies: dict[str, list[str]] = {}  # component -> its rule blocks, in order
    hooks_in: dict[str, list[str]] = {}  # component -> the hooks its file defines (first use wins)
    defined: set[str] = set()
    previous = ""
    for group, members in chunks:
        fresh = list(dict.fromkeys(h for p in members for h in p.hooks if h not in defined))
        defined |= set(fresh)
        if group not in bodies:
            names.append(group)
            bodies[group], hooks_in[group] = [_rules(members)], fresh
            entry.append(f'@import "components/{group}";')
        else:
            part = _part_name(group, previous, parts)
            parts.append(part)
            hooks_in[group] += fresh
            bodies[group].append(f"// Included by the entry after {previous}: the cascade needs these "
                                 f"rules there.\n@mixin {part} {{\n{_indent(_rules(members))}}}\n")
            entry.append(f"@include {part};")
        previous = group
    for group, body in bodies.items():
        head = [f"// {group}: its hooks, then its rules in their original order."]
        files[f"scss/components/_{group}.scss"] = "\n".join(head + _hook_lines(hooks_in[group], hooks) + body)
    files["scss/style.scss"] = "\n".join(entry) + "\n"
    place = {id(p): i for i, p in enumerate(pieces)}
    moved = sum(1 for _, members in chunks for a, b in pairwise(members)
                if place[id(b)] != place[id(a)] + 1)
    return Plan(files=files, pieces=pieces, scale=scale, hooks=hooks, components=names, parts=parts, moved=moved)


def _hook_lines(names: list[str], hooks: Hooks) -> list[str]:
    if not names:
        return []
    head = ["// Hooks: set one before the imports to change what reads it alone; each reads the scale."]
    return head + render_hooks([hooks.by_name[n] for n in names]) + [""]


def _part_name(group: str, previous: str, taken: list[str]) -> str:
    name, n = f"{group}-after-{previous}", 1
    while name in taken:  # the same pair apart twice: a rare stylesheet
        n += 1
        name = f"{group}-after-{previous}-again" + ("" if n == 2 else f"-{n - 1}")
    return name


def _indent(text: str) -> str:
    return "".join(f"  {line}\n" if line else "\n" for line in text.splitlines())


# ------------------------------------------------------------ one rule


def _piece(item: Item, group: str, scale: Scale, hooks: Hooks) -> Piece:
    props = _properties(item)
    as_written = _strip_wrappers(item)
    if item.rule is None:
        why = f"tinycss2 could not parse it ({item.error})" if item.error else None
        return _checked(item, as_written, group, props, why, scale, hooks)
    used: list[str] = []
    known = set(hooks.by_name)
    tokenised = _tokenised(item, group, scale, hooks, used)
    if tokenised is not None and _same(item, tokenised, scale, hooks):
        return Piece(item, tokenised, group, props, hooks=list(dict.fromkeys(used)))
    hooks.drop([name for name in used if name not in known])
    why = None if tokenised is None else "libsass changes it when it reads tokens"
    return _checked(item, as_written, group, props, why, scale, hooks)


def _checked(item: Item, as_written: str, group: str, props: frozenset[str], why: str | None,
             scale: Scale, hooks: Hooks) -> Piece:
    if _same(item, as_written, scale, hooks):
        return Piece(item, as_written, group, props, why)
    quoted = _quoted(item)
    if quoted is not None and _same(item, quoted, scale, hooks):
        return Piece(item, quoted, group, props, "libsass changes it as written; its values are quoted")
    if item.error:  # browsers skip it as well: keep its text, where libsass cannot choke on it
        text = as_written.replace("*/", "* /")
        return Piece(item, f"/* {text} */", group, props, f"{why}; kept as a comment, browsers skip it too")
    return Piece(item, as_written, group, props, "libsass changes it in every form tried; check it in the browser")


def _tokenised(item: Item, group: str, scale: Scale, hooks: Hooks, used: list[str]) -> str | None:
    if item.rule is None:
        return None
    parsed = tinycss2.parse_blocks_contents(item.rule.content, skip_comments=False, skip_whitespace=True)
    if any(node.type not in ("declaration", "comment") for node in parsed):
        return None
    context = _context(item)
    lines = [node.serialize() if node.type == "comment" else
             declaration(node, item, context, group, scale, hooks, used) + ";" for node in parsed]
    if not used:
        return None
    return _rule(item.selector, lines)


def _quoted(item: Item) -> str | None:
    if item.rule is None:
        return None
    parsed = tinycss2.parse_blocks_contents(item.rule.content, skip_comments=True, skip_whitespace=True)
    if any(node.type != "declaration" for node in parsed):
        return None
    lines = []
    for d in parsed:
        text = tinycss2.serialize(d.value).strip().replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f'{d.name}: unquote("{text}"){" !important" if d.important else ""};')
    return _rule(item.selector, lines)


def _rule(selector: str, lines: list[str]) -> str:
    return selector + " {\n" + "".join(f"  {line}\n" for line in lines) + "}"


def _strip_wrappers(item: Item) -> str:
    if item.rule is not None:
        return str(item.rule.serialize()).strip()
    text = item.source
    for _ in item.wrappers:  # _wrap put "prelude {\n" before and "\n}" after
        text = text.split("{\n", 1)[1].rsplit("\n}", 1)[0]
    return text.strip()


def _same(item: Item, scss: str, scale: Scale, hooks: Hooks) -> bool:
    """Whether libsass, with the scale and every hook so far, compiles `scss` back to the rule as written."""
    defined = scale_mod.definitions(scale) + hooks.definitions()
    wrapped = scss
    for prelude in reversed(item.wrappers):
        wrapped = f"{prelude} {{\n{wrapped}\n}}"
    try:
        css = sass.compile(string=defined + wrapped, output_style="expanded")
    except sass.CompileError:
        return False
    return canon.rules(css, scale.rem_px) == canon.rules(item.source, scale.rem_px)


# ------------------------------------------------------------ grouping


def _first_compound(selector: str) -> str:
    """The first compound that names something: `body d-appendix` and
    `[data-theme="dark"] .note-box` belong with d-appendix and the note-box."""
    compounds = re.split(r"\s*[\s>+~]\s*", selector.split(",")[0].strip())
    for compound in compounds[:-1]:
        if not re.fullmatch(r"(html|body|:root)?(\[[^\]]*\]|:not\([^)]*\))*", compound):
            return compound
    return compounds[-1] if len(compounds) > 1 else compounds[0]


def _group(item: Item) -> str:
    if item.rule is None:
        return {"font-face": "fonts", "keyframes": "animations"}.get(item.keyword or "", "base")
    compound = _first_compound(item.selector)
    if compound in _CONTAINERS:
        inner = _inner_group(item.selector)
        if inner is not None:
            return inner
    cls = re.search(r"\.(-?[A-Za-z_][\w-]*)", compound)
    if cls:
        return cls.group(1).lower()
    element = re.match(r"[A-Za-z][\w-]*|\*", compound)
    name = element.group(0).lower() if element else compound.split("(")[0].lower()
    for members, group in _ELEMENT_GROUPS:
        if name in members:
            return group
    return name if re.fullmatch(r"[a-z][\w-]*", name) else "base"


def _inner_group(selector: str) -> str | None:
    """Inside the article's container, what a rule styles: `d-article h2` is a heading,
    `d-article .marker span` the marker; `d-article p` stays with d-article (None)."""
    compounds = re.split(r"\s*[\s>+~]\s*", selector.split(",")[0].strip())[1:]
    for compound in compounds:
        cls = re.search(r"\.(-?[A-Za-z_][\w-]*)", compound)
        if cls:
            return cls.group(1).lower()
    element = re.match(r"[A-Za-z][\w-]*", compounds[-1]) if compounds else None
    name = element.group(0).lower() if element else ""
    return next((group for members, group in _ELEMENT_GROUPS if name in members and group != "base"), None)


def _context(item: Item) -> str:
    """The hook name's start: the selector's words, e.g. `note-box-title`, `d-contents-nav-a-hover`."""
    selector = DARK_ATTRIBUTE.sub("", item.selector.split(",")[0])
    words = re.sub(r"[^A-Za-z0-9_-]+", "-", selector).strip("-").lower()
    return (words or "root")[:40].strip("-")


_FAMILY_ALIASES = {"top": "inset", "right": "inset", "bottom": "inset", "left": "inset",
                   "align": "place", "justify": "place", "row": "gap", "column": "gap",
                   "line": "font", "word": "overflow", "grid": "gap", "columns": "column",
                   "white": "text", "page": "break"}  # shorthands whose longhands go by another name


def _properties(item: Item) -> frozenset[str]:
    """Families of what the rule sets: two rules commute when theirs do not meet."""
    if item.rule is None:
        return frozenset({"*"})
    parsed = tinycss2.parse_blocks_contents(item.rule.content, skip_comments=True, skip_whitespace=True)
    families = set()
    for node in parsed:
        if node.type != "declaration":
            return frozenset({"*"})
        name = node.name if node.name.startswith("--") else re.sub(r"^-[a-z]+-", "", node.lower_name)
        if name == "all":
            return frozenset({"*"})
        head = name if name.startswith("--") else name.split("-")[0]
        families.add(head)
        if head in _FAMILY_ALIASES:
            families.add(_FAMILY_ALIASES[head])
    return frozenset(families)


def _merged_groups(groups: list[str]) -> list[str]:
    """`.note-box-title` joins `note-box` when `note-box` came first."""
    seen: list[str] = []
    out = []
    for group in groups:
        owner = next((g for g in seen if group.startswith(g + "-")), None)
        if owner is None and group not in seen:
            seen.append(group)
        out.append(owner or group)
    return out


def _subjects(piece: Piece) -> list[tuple[str | None, str | None]] | None:
    """(element type, pseudo-element) of each selector's last compound; None for at-rules."""
    if piece.item.rule is None:
        return None
    out = []
    for selector in piece.item.selector.split(","):
        last = re.split(r"\s*[\s>+~]\s*", selector.strip())[-1]
        element = re.match(r"[A-Za-z][\w-]*", last)
        pseudo = re.search(r"::([\w-]+)", last)
        kind = "html" if last.startswith(":root") else (element.group(0).lower() if element else None)
        out.append((kind, pseudo.group(1).lower() if pseudo else None))
    return out


def _disjoint(a: Piece, b: Piece) -> bool:
    """Whether no element can match both: every pair of subjects names two element types, or
    two pseudo-elements, that differ (classes alone prove nothing)."""
    sa, sb = _subjects(a), _subjects(b)
    if sa is None or sb is None:
        return False
    return all((ta and tb and ta != tb) or pa != pb for ta, pa in sa for tb, pb in sb)


def _meet(a: Piece, b: Piece) -> bool:
    pa, pb = a.properties, b.properties
    return ("*" in pa or "*" in pb or bool(pa & pb)) and not _disjoint(a, b)


def _chunks(pieces: list[Piece], regroup: bool = True) -> list[tuple[str, list[Piece]]]:
    """Consecutive runs per component; a piece joins its component's last run when no
    piece after that run could set the same property on the same element. Pieces that
    must stay where they are gather in a run named after their at-rule (`dark-mode`)."""
    chunks: list[tuple[str, list[Piece]]] = []
    for piece in pieces:
        if piece.item.only_comments and chunks:
            chunks[-1][1].append(piece)
            continue
        target = None
        for i in range(len(chunks) - 1, -1 if regroup else max(len(chunks) - 2, -1), -1):
            group, members = chunks[i]
            if group == piece.group:
                target = i
                break
            if any(_meet(piece, m) for m in members):
                break
        if target is not None:
            chunks[target][1].append(piece)
            continue
        name = _stay_name(piece)
        if chunks and chunks[-1][0] == name:
            chunks[-1][1].append(piece)
        else:
            chunks.append((name, [piece]))
    return chunks


def _stay_name(piece: Piece) -> str:
    if not piece.item.wrappers:
        return piece.group
    if piece.item.dark:
        return "dark-mode"
    words = re.sub(r"[^a-z0-9]+", "-", " ".join(piece.item.wrappers).lower().lstrip("@")).strip("-")
    return words[:60].strip("-")


def _rules(members: list[Piece]) -> str:
    out: list[str] = []
    open_wrappers: tuple[str, ...] = ()
    for piece in members:
        wrappers = piece.item.wrappers
        if wrappers != open_wrappers:
            out += ["  " * i + "}" for i in range(len(open_wrappers) - 1, -1, -1)]
            out += ["  " * i + w + " {" for i, w in enumerate(wrappers)]
            open_wrappers = wrappers
        indent = "  " * len(wrappers)
        if piece.left_as_written:
            out.append(f"{indent}// left as written: {piece.left_as_written}")
        for comment in piece.item.comments:
            out.append(indent + comment)
        out += [indent + line if line else line for line in piece.scss.splitlines()]
    out += ["  " * i + "}" for i in range(len(open_wrappers) - 1, -1, -1)]
    return "\n".join(out) + "\n"
