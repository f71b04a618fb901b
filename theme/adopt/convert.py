"""From parsed Items to the files of a starter scss/: tokens, components, the entry.

Each rule is compiled alone with token references, else as written, else with its values quoted
(`unquote("…")`), until libsass gives the same rule back. A rule joins its component (first class
or element) past later rules only when none of them can set the same property on the same element.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

import sass
import tinycss2

from . import canon
from .parse import Item
from .tokens import KINDS, Registry, declaration, render

_HEADINGS = {f"h{i}" for i in range(1, 7)}
_ELEMENT_GROUPS = [
    (_HEADINGS, "headings"), ({"a"}, "links"), ({"ul", "ol", "li", "dl", "dt", "dd"}, "lists"),
    ({"table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption"}, "tables"),
    ({"img", "figure", "figcaption", "picture", "svg", "video", "canvas"}, "figures"),
    ({"pre", "code", "kbd", "samp"}, "code"),
    ({"html", "body", "*", ":root", "::selection"}, "base"),
]


@dataclass
class Piece:
    item: Item
    scss: str  # the rule as it goes into its component (without wrappers)
    group: str
    properties: frozenset[str]  # property families it sets; "*" pins it in place
    left_as_written: str | None = None  # why, when it is not read from tokens


@dataclass
class Plan:
    files: dict[str, str]  # path under root ("scss/components/_note-box.scss") -> text
    pieces: list[Piece]
    registry: Registry
    components: list[str] = field(default_factory=list)  # component names in import order
    moved: int = 0  # rules written away from their neighbours, to join their component


def plan(items: list[Item], source_name: str, *, regroup: bool = True) -> Plan:
    """The files of scss/. `regroup=False` keeps every rule where it was: a component is
    then a run of neighbouring rules only (the fallback when regrouping changed pixels)."""
    registry = Registry()
    pieces = [_piece(item, registry) for item in items]
    _merge_prefixes(pieces)
    chunks = _chunks(pieces, regroup)
    files: dict[str, str] = {}
    token_imports = []
    for kind in KINDS:
        for dark in (False, True):
            chosen = [t for t in registry.tokens.values() if t.kind == kind and t.dark == dark]
            if not chosen:
                continue
            name = kind + ("-dark" if dark else "")
            what = "dark-mode values (prefers-color-scheme: dark) of " if dark else ""
            header = (f"{what}{kind.replace('-', ' ')} found in {source_name} (theme init --scss).\n"
                      "Every token is !default: set your own value before importing these.")
            files[f"scss/tokens/_{name}.scss"] = render(chosen, header)
            token_imports.append(f"tokens/{name}")
    names = []
    seen: dict[str, int] = {}
    for group, members in chunks:
        seen[group] = seen.get(group, 0) + 1
        name = group if seen[group] == 1 else f"{group}-{seen[group]}"
        names.append(name)
        files[f"scss/components/_{name}.scss"] = _component(group, members)
    entry = ["// The stylesheet, from " + source_name + " (theme init --scss).",
             "// Tokens first; then components in the order of the original rules: the cascade depends on it."]
    entry += [f'@import "{path}";' for path in token_imports]
    entry += [f'@import "components/{name}";' for name in names]
    files["scss/style.scss"] = "\n".join(entry) + "\n"
    place = {id(p): i for i, p in enumerate(pieces)}
    moved = sum(1 for _, members in chunks for a, b in pairwise(members)
                if place[id(b)] != place[id(a)] + 1)
    return Plan(files=files, pieces=pieces, registry=registry, components=names, moved=moved)


# ------------------------------------------------------------ one rule


def _piece(item: Item, registry: Registry) -> Piece:
    group, props = _group(item), _properties(item)
    as_written = _strip_wrappers(item)
    if item.rule is None:
        why = f"tinycss2 could not parse it ({item.error})" if item.error else None
        return _checked(item, as_written, group, props, why, registry)
    new: list[str] = []
    tokenised = _tokenised(item, registry, new)
    if tokenised is not None and _same(item, tokenised, registry):
        return Piece(item, tokenised, group, props)
    registry.drop(new)
    why = None if tokenised is None else "libsass changes it when it reads tokens"
    return _checked(item, as_written, group, props, why, registry)


def _checked(item: Item, as_written: str, group: str, props: frozenset[str], why: str | None,
             registry: Registry) -> Piece:
    if _same(item, as_written, registry):
        return Piece(item, as_written, group, props, why)
    quoted = _quoted(item)
    if quoted is not None and _same(item, quoted, registry):
        return Piece(item, quoted, group, props, "libsass changes it as written; its values are quoted")
    if item.error:  # browsers skip it as well: keep its text, where libsass cannot choke on it
        text = as_written.replace("*/", "* /")
        return Piece(item, f"/* {text} */", group, props, f"{why}; kept as a comment, browsers skip it too")
    return Piece(item, as_written, group, props, "libsass changes it in every form tried; check it in the browser")


def _tokenised(item: Item, registry: Registry, new: list[str]) -> str | None:
    if item.rule is None:
        return None
    parsed = tinycss2.parse_blocks_contents(item.rule.content, skip_comments=False, skip_whitespace=True)
    if any(node.type not in ("declaration", "comment") for node in parsed):
        return None
    context = _context(item)
    lines = [node.serialize() if node.type == "comment" else
             declaration(node, context, item.dark, registry, new) + ";" for node in parsed]
    if not new:
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


def _same(item: Item, scss: str, registry: Registry) -> bool:
    """Whether libsass, with every token so far, compiles `scss` back to the rule as written."""
    defined = "".join(f"${t.name}: {t.value};\n" for t in registry.tokens.values())
    wrapped = scss
    for prelude in reversed(item.wrappers):
        wrapped = f"{prelude} {{\n{wrapped}\n}}"
    try:
        css = sass.compile(string=defined + wrapped, output_style="expanded")
    except sass.CompileError:
        return False
    return canon.rules(css) == canon.rules(item.source)


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
    cls = re.search(r"\.(-?[A-Za-z_][\w-]*)", compound)
    if cls:
        return cls.group(1).lower()
    element = re.match(r"[A-Za-z][\w-]*|\*", compound)
    name = element.group(0).lower() if element else compound.split("(")[0].lower()
    for members, group in _ELEMENT_GROUPS:
        if name in members:
            return group
    return name if re.fullmatch(r"[a-z][\w-]*", name) else "base"


def _context(item: Item) -> str:
    """The token name's start: the selector's words, e.g. `note-box-title`, `d-contents-nav-a-hover`."""
    words = re.sub(r"[^A-Za-z0-9_-]+", "-", item.selector.split(",")[0]).strip("-").lower()
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


def _merge_prefixes(pieces: list[Piece]) -> None:
    """`.note-box-title` joins `note-box` when `note-box` came first."""
    groups: list[str] = []
    for piece in pieces:
        owner = next((g for g in groups if piece.group.startswith(g + "-")), None)
        if owner:
            piece.group = owner
        elif piece.group not in groups:
            groups.append(piece.group)


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
    return words[:40].strip("-")


def _component(group: str, members: list[Piece]) -> str:
    out = [f"// {group}: rules in their original order."]
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
