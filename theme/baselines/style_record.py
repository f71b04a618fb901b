"""The style record: what a region's elements computed, kept with its baseline, and what
changed between two records, in CSS terms ("`.note-box-content` font-size 12px → 13px").

Pure: the page's record (theme/capture/js/computed_styles.js) in, records, their canonical
JSON and sentences out. A record maps each element, by a selector relative to the region
("" is the region's own element), to its computed properties.

In memory a record is whole; its JSON is compact, so a changed baseline diffs readably:
- the four sides of padding, margin and border are one value, "12px" when all sides agree,
  else "top right bottom left" (CSS order);
- what draws nothing is left out: border widths and colours when no side has a border, the
  decoration colour when there is no decoration;
- a property at its usual value (DEFAULTS) is left out, and so is an inherited one a
  text-holding element shares with its parent element in the record (it follows from it).
`dumps` writes one region a line, keys sorted: the same records, the same bytes.

Beside its properties each element has `text`, the words drawn in it and in no recorded element
inside it (whitespace collapsed; past TEXT_LIMIT characters, the start and a digest of the
whole), `files`, the files drawn there (images, videos, frames, CSS backgrounds), each
with a digest of its bytes, one a line (theme/capture/shoot.py DrawnFiles), and `drawing`, the
SVG shapes drawn there by kind, with their count and a digest of each geometry attribute: a
caption whose words changed, the image file that did, or a figure a script drew anew is told
from a font file or a canvas. A record made before one of these was (not on the region's own
element) compares without it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from ..core.errors import StoreError

Props = Mapping[str, str]
OWN = ""  # the selector of the region's own element

SIDES = ("top", "right", "bottom", "left")
# shorthand -> its four longhands, as the page records them
FOLDED = {
    "padding": tuple(f"padding-{s}" for s in SIDES),
    "margin": tuple(f"margin-{s}" for s in SIDES),
    "border-width": tuple(f"border-{s}-width" for s in SIDES),
    "border-style": tuple(f"border-{s}-style" for s in SIDES),
    "border-color": tuple(f"border-{s}-color" for s in SIDES),
}
# Values most article elements have (the CSS initial value, but `display: block`, which
# regions and their text holders nearly always are), left out of the JSON.
DEFAULTS: Mapping[str, str] = {
    "display": "block", "font-style": "normal", "font-weight": "400", "letter-spacing": "normal",
    "line-height": "normal", "text-align": "start", "text-transform": "none", "text-decoration-line": "none",
    "background-color": "rgba(0, 0, 0, 0)", "background-image": "none", "border-style": "none",
    "border-radius": "0px", "padding": "0px", "margin": "0px", "box-shadow": "none", "opacity": "1",
    "color-scheme": "normal",
}
# Properties an element inherits from its parent (CSS Fonts, Text, Color Adjust): a text holder
# states them only where they differ from the element it sits in.
INHERITED = frozenset({"color", "font-family", "font-size", "font-weight", "font-style", "line-height",
                       "letter-spacing", "text-align", "text-transform", "color-scheme"})
# How the box followed, not a cause: they vary from region to region under one cause.
SIZES = ("width", "height")

TEXT = "text"  # the words an element draws: a property of the record, not of CSS
FILES = "files"  # the files it draws from, "name digest" a line: likewise
DRAWING = "drawing"  # the SVG shapes drawn in it, "kind count attr=digest…" a line: likewise
MISSING = "missing"  # a file's digest when there is none (theme/capture/shoot.py)
# A flow record's kinds (theme/capture/js/flow_record.js): how many elements, in how many h1/h2
# sections, and the kind most of them sit in. Not causes: they follow from the page's content.
FLOW_EXTRAS = ("count", "sections", "within")
EXTRAS = (TEXT, FILES, DRAWING)  # not CSS; on the region's own element always, even empty
TEXT_LIMIT = 400  # characters of an element's text a record keeps; past it, a digest of the whole
CONTEXT = 24  # characters of unchanged text a sentence shows on each side of a change
MIDDLE = 60  # characters of a changed stretch a sentence shows

PIXELS_ONLY = "pixels changed, no computed style or text did: an image, a canvas or a font file"
# The same, for a region whose own background lets the page behind it show (a hover box's panel).
PIXELS_THROUGH = ("pixels changed, no computed style or text did: the page behind its translucent background "
                  "({}), an image, a canvas or a font file")
# The same, when the baseline's record was made before records held text.
PIXELS_UNTEXTED = ("pixels changed, no computed style did: an image, a canvas, a font file or its words "
                   "(its baseline's record holds no text; --update-snapshots=all records it)")
NO_STYLE = "no computed style or text changed"
NO_STYLE_UNTEXTED = "no computed style changed (its baseline's record holds no text)"
LIMIT = 4  # property changes a sentence names before "+N more"


@dataclass(frozen=True)
class StyleRecord:
    """Each recorded element of one region: selector (OWN first in sorted order) -> property -> value."""

    elements: Mapping[str, Props]


@dataclass(frozen=True, order=True)
class StyleChange:
    """One property of one element that differs between two records. `prop` (the property) is "" when
    the element itself is in one record only; `before`/`after` is None where it is absent."""

    selector: str
    prop: str
    before: str | None
    after: str | None

    @property
    def is_size(self) -> bool:
        """A size, or what a flow record keeps beside a kind's style: how the box or the page
        followed, not a cause."""
        return self.prop in SIZES or self.prop in ("sections", "within")


# ------------------------------------------------------------------ the record


def from_page(raw: Mapping[str, Props]) -> StyleRecord:
    """A record from computed_styles.js's answer for one region (longhands as computed)."""
    return StyleRecord({selector: normalized(props) for selector, props in sorted(raw.items())})


def normalized(props: Props) -> dict[str, str]:
    """Longhands folded into their shorthands; what draws nothing left out."""
    out = {k: v for k, v in props.items() if not any(k in sides for sides in FOLDED.values())}
    for short, sides in FOLDED.items():
        if all(s in props for s in sides):
            values = [props[s] for s in sides]
            out[short] = values[0] if len(set(values)) == 1 else " ".join(values)
    if out.get("border-style", "none") == "none":  # no side draws a border
        out.pop("border-width", None)
        out.pop("border-color", None)
    if out.get("text-decoration-line", "none") == "none":
        out.pop("text-decoration-color", None)
    if TEXT in out:
        out[TEXT] = kept_text(out[TEXT])
    return dict(sorted(out.items()))


def kept_text(text: str) -> str:
    """`text` as a record keeps it: whitespace (and zero-width spaces) collapsed; when longer than TEXT_LIMIT, its
    start and the length and digest of the whole, so any change is still a change."""
    text = " ".join(text.replace("\u200b", " ").replace("\ufeff", " ").split())  # zero-width spaces, KaTeX's
    if len(text) <= TEXT_LIMIT:
        return text
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return f"{text[:TEXT_LIMIT]}… ({len(text)} characters, sha256 {digest})"


def translucent(record: StyleRecord) -> str:
    """The region's own background colour when the page behind it shows through it (alpha
    between 0 and 1, as a hover box's panel over the article), else "". A transparent one
    (alpha 0, most figures) is not: what lies behind a region in the page's flow is its
    background, which the region's own record would not explain either way."""
    colour = record.elements.get(OWN, {}).get("background-color", "")
    m = re.fullmatch(r"rgba\([^)]*,\s*([0-9.]+)\)", colour)
    return colour if m and 0 < float(m.group(1)) < 1 else ""


def has_text(record: StyleRecord) -> bool:
    """Whether `record` holds its elements' text (made since records do)."""
    return _holds(record, TEXT)


def _holds(record: StyleRecord, extra: str) -> bool:
    """Whether `record` holds `extra` (EXTRAS): its own element always has it, even empty."""
    return extra in record.elements.get(OWN, {})


def parent_of(selector: str, recorded: Iterable[str]) -> str:
    """The nearest recorded element `selector` sits in: its longest recorded prefix path, else OWN."""
    if selector == OWN:
        raise ValueError("the region's own element has no parent in its record")
    recorded = set(recorded)
    steps = selector.split(" > ")
    for n in range(len(steps) - 1, 0, -1):
        if (prefix := " > ".join(steps[:n])) in recorded:
            return prefix
    return OWN


def to_json(record: StyleRecord) -> dict[str, dict[str, str]]:
    """The compact form (module docstring); from_json gives the record back."""
    out = {}
    for selector, props in record.elements.items():
        parent = record.elements.get(parent_of(selector, record.elements)) if selector != OWN else None
        out[selector] = {k: v for k, v in sorted(props.items()) if not _implied(k, v, parent)}
    return dict(sorted(out.items()))


def _implied(prop: str, value: str, parent: Props | None) -> bool:
    if prop in EXTRAS:  # the own element's always stands, even empty: it says the record holds it
        return parent is not None and value == ""
    if parent is not None and prop in INHERITED:
        return parent.get(prop) == value
    return DEFAULTS.get(prop) == value


def from_json(data: Any) -> StyleRecord:
    """A record from its compact form; ValueError when `data` is not one."""
    if not isinstance(data, dict) or not all(
            isinstance(p, dict) and all(isinstance(v, str) for v in p.values()) for p in data.values()):
        raise ValueError("a style record maps each selector to its properties, as strings")
    elements: dict[str, dict[str, str]] = {}
    extras = [extra for extra in EXTRAS if extra in data.get(OWN, {})]
    for selector in sorted(data):  # a parent's path sorts before the paths inside it
        parent = elements.get(parent_of(selector, data)) if selector != OWN else None
        props = {k: v for k, v in DEFAULTS.items() if parent is None or k not in INHERITED}
        if parent is not None:
            props.update({k: v for k, v in parent.items() if k in INHERITED})
            props.update({extra: "" for extra in extras})
        props.update(data[selector])
        elements[selector] = _drop_undrawn(props)
    return StyleRecord(elements)


def _drop_undrawn(props: dict[str, str]) -> dict[str, str]:
    """normalized()'s rule again: a default border-style means none of its width or colour."""
    if props.get("border-style", "none") == "none":
        props = {k: v for k, v in props.items() if k not in ("border-width", "border-color")}
    if props.get("text-decoration-line", "none") == "none":
        props = {k: v for k, v in props.items() if k != "text-decoration-color"}
    return dict(sorted(props.items()))


def dumps(records: Mapping[str, StyleRecord]) -> str:
    """Records by baseline key as JSON text, one region a line, keys sorted: the same records,
    the same bytes, and a changed region is one changed line in a pull request."""
    lines = [f"{_compact(key)}:{_compact(to_json(records[key]))}" for key in sorted(records)]
    return "{\n" + ",\n".join(lines) + "\n}\n" if lines else "{}\n"


def _compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def loads(text: str, where: str = "style records") -> dict[str, StyleRecord]:
    """dumps()'s text back; StoreError naming `where` (a file) when it is not that."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object of records by baseline key")
        return {key: from_json(value) for key, value in data.items()}
    except ValueError as err:
        raise StoreError(f"{where}: not valid style records ({err}); restore it from git "
                         "or record it again with --update-snapshots") from None


# ------------------------------------------------------------------ what changed


def changes(before: StyleRecord, after: StyleRecord, *, by_path: bool = True) -> list[StyleChange]:
    """Every element's changed properties, elements in selector order, properties by name.

    A text holder's change of an inherited property that repeats its parent's (the same
    before and after) is left out: it follows from the parent's, which is named (`by_path`:
    the parent by its selector's path, as a region's record has it). Text and files are
    compared when both records hold them."""
    out: list[StyleChange] = []
    b, a = before.elements, after.elements
    missing = {extra for extra in EXTRAS if not (_holds(before, extra) and _holds(after, extra))}
    if missing:
        b, a = _without(b, missing), _without(a, missing)
    for selector in sorted(b.keys() | a.keys()):
        if selector not in b or selector not in a:
            out.append(StyleChange(selector, "", "present" if selector in b else None,
                                   "present" if selector in a else None))
            continue
        for prop in sorted(b[selector].keys() | a[selector].keys()):
            old, new = b[selector].get(prop), a[selector].get(prop)
            if old != new:
                out.append(StyleChange(selector, prop, old, new))
    return _without_inherited(out, b.keys() | a.keys()) if by_path else out


def _without(elements: Mapping[str, Props], props: set[str]) -> dict[str, Props]:
    return {selector: {k: v for k, v in p.items() if k not in props} for selector, p in elements.items()}


def _without_inherited(found: list[StyleChange], recorded: set[str]) -> list[StyleChange]:
    seen = {(c.selector, c.prop): c for c in found}
    out = []
    for c in found:
        if c.selector != OWN and c.prop in INHERITED:
            up = seen.get((parent_of(c.selector, recorded), c.prop))
            if up is not None and (up.before, up.after) == (c.before, c.after):
                continue
        out.append(c)
    return out


# Colours that are `currentColor` unless set: a rule that changes `color` changes them too.
FOLLOWS_COLOR = frozenset({"border-color", "outline-color", "text-decoration-color", "column-rule-color",
                           "caret-color"})
_COLOUR_PART = re.compile(r"[\w-]+\([^)]*\)|#[0-9a-fA-F]+|[\w-]+")


def style_changes(found: Iterable[StyleChange]) -> list[StyleChange]:
    """The changes that are causes: all but the sizes (SIZES) and a colour that only followed
    its element's `color` (FOLLOWS_COLOR: a link's underline when `a { color }` changed)."""
    found = list(found)
    colours = {c.selector: c for c in found if c.prop == "color"}
    return [c for c in found if not c.is_size and not _follows_colour(c, colours.get(c.selector))]


def _follows_colour(c: StyleChange, colour: StyleChange | None) -> bool:
    """Whether every part of `c` (a border's four sides) that changed went from the old
    `color` to the new one: it was currentColor, and says nothing `color` does not."""
    if colour is None or c.prop not in FOLLOWS_COLOR or not c.before or not c.after:
        return False
    before, after = _COLOUR_PART.findall(c.before), _COLOUR_PART.findall(c.after)
    changed = [(b, a) for b, a in zip(before, after, strict=False) if b != a]
    return len(before) == len(after) and bool(changed) and all(
        (b, a) == (colour.before, colour.after) for b, a in changed)


# ------------------------------------------------------------------ in words


def shown(selector: str) -> str:
    """A selector as a sentence names it: a step with a class reads as the class alone
    (`div.note-box-content` -> `.note-box-content`)."""
    return " > ".join(re.sub(r"^[a-z][a-z0-9-]*(?=\.)", "", step) for step in selector.split(" > "))


def value(v: str | None) -> str:
    return "—" if v is None else v


def phrase(found: Sequence[StyleChange], limit: int = LIMIT) -> str:
    """`.note-box-content` font-size 12px → 13px, line-height 19.2px → 20.8px; `figcaption` …:
    per element, in order; the region's own element unnamed; at most `limit` properties."""
    parts: list[str] = []
    current: str | None = None
    for c in found[:limit]:
        if c.prop == "":
            words = "appeared" if c.after else "is gone"
            parts.append(f"`{shown(c.selector)}` {words}")
            current = None
            continue
        text = (text_change(c.before, c.after) if c.prop == TEXT else files_change(c.before, c.after)
                if c.prop == FILES else drawing_change(c.before, c.after) if c.prop == DRAWING
                else f"{c.prop} {value(c.before)} → {value(c.after)}")
        if c.selector == current:
            parts[-1] += f", {text}"
        else:
            parts.append(f"`{shown(c.selector)}` {text}" if c.selector else text)
            current = c.selector
    more = f" (+{len(found) - limit} more)" if len(found) > limit else ""
    return "; ".join(parts) + more


def text_change(before: str | None, after: str | None) -> str:
    """"text “…wins on memory, because…” → “…wins on peak memory, because…”": the words that
    differ, whole, with a little of what is the same on each side; for a long text changed past
    what a record keeps of it, how long it was and is."""
    old, new = before or "", after or ""
    if not old or not new:
        return f"text {_quoted(old)} → {_quoted(new)}"
    cut = old.find("… (") if len(old) > TEXT_LIMIT else -1
    if cut == TEXT_LIMIT and new.find("… (") == TEXT_LIMIT and old[:cut] == new[:cut]:
        return f"text changed after its first {TEXT_LIMIT} characters ({_length(old)} → {_length(new)} characters)"
    start = len(os.path.commonprefix([old, new]))  # of any two sequences, not only paths
    tail = len(os.path.commonprefix([old[start:][::-1], new[start:][::-1]]))
    old_end, new_end = len(old) - tail, len(new) - tail
    while start > 0 and not old[start - 1].isspace():  # whole words
        start -= 1
    while old_end < len(old) and not old[old_end].isspace():
        old_end, new_end = old_end + 1, new_end + 1
    left, right = _context(old[:start], before=True), _context(old[old_end:], before=False)
    return (f"text “{left}{_clipped(old[start:old_end])}{right}” → "
            f"“{left}{_clipped(new[start:new_end])}{right}”")


def files_change(before: str | None, after: str | None) -> str:
    """"file assets/align.svg changed (sha256 1a2b3c4d5e6f → 9f8e7d6c5b4a), file old.png gone":
    the files an element draws from, by name, that differ between two records."""
    old, new = _files(before), _files(after)
    parts = [f"file {name} {_file_change(old.get(name), new.get(name))}"
             for name in sorted(old.keys() | new.keys()) if old.get(name) != new.get(name)]
    return ", ".join(parts) or f"files {value(before)} → {value(after)}"


def drawing_change(before: str | None, after: str | None) -> str:
    """"drawing: path d, circle cx cy changed; circles 12 → 14": the SVG geometry a script drew,
    by kind of shape, where two records differ (computed_styles.js sums it up)."""
    old, new = _drawing(before), _drawing(after)
    counts, moved = [], []
    for kind in sorted(old.keys() | new.keys()):
        (n0, a0), (n1, a1) = old.get(kind, (0, {})), new.get(kind, (0, {}))
        if n0 != n1:
            counts.append(f"{plural_shape(kind, n0)} → {n1}")
        elif changed := [a for a in sorted(a0.keys() | a1.keys()) if a0.get(a) != a1.get(a)]:
            moved.append(f"{kind} {' '.join(changed)}")
    said = ([f"{', '.join(moved)} changed"] if moved else []) + counts
    return "drawing: " + ("; ".join(said) or "changed")


def plural_shape(kind: str, n: int) -> str:
    return f"{n} {kind}" if n == 1 else f"{n} {kind}{'es' if kind.endswith(('s', 'x', 'ch')) else 's'}"


def _drawing(kept: str | None) -> dict[str, tuple[int, dict[str, str]]]:
    """A `drawing` value as kind -> (count, attribute -> digest)."""
    out = {}
    for line in (kept or "").splitlines():
        kind, count, *attrs = line.split(" ")
        out[kind] = (int(count), dict(a.split("=", 1) for a in attrs if "=" in a))
    return out


def _file_change(before: str | None, after: str | None) -> str:
    if before is None or after is None:
        return "added" if before is None else "gone"
    if MISSING in (before, after):
        return "now missing" if after == MISSING else "now found"
    return f"changed (sha256 {before} → {after})"


def _files(kept: str | None) -> dict[str, str]:
    """A `files` value ("name digest" a line) as name -> digest."""
    return dict(line.rsplit(" ", 1) for line in (kept or "").splitlines() if " " in line)


def _context(same: str, before: bool) -> str:
    """Up to CONTEXT characters of unchanged text beside a change, cut at a word."""
    if len(same) <= CONTEXT:
        return same
    if before:
        part = same[-CONTEXT:]
        return "…" + part[part.find(" ") + 1:] if " " in part else "…" + part
    part = same[:CONTEXT]
    return part[:part.rfind(" ")] + "…" if " " in part else part + "…"


def _clipped(words: str) -> str:
    return words if len(words) <= MIDDLE else words[:MIDDLE] + "…"


def _quoted(text: str) -> str:
    return f"“{_clipped(text)}”" if text else "—"


def _length(kept: str) -> str:
    m = re.search(r"… \((\d+) characters, sha256 [0-9a-f]+\)$", kept)
    return m.group(1) if m else str(len(kept))


def number(v: float) -> str:
    """84.0 -> "84", 84.5 -> "84.5", 84.015625 -> "84.02": a CSS size as read."""
    return f"{v:.2f}".rstrip("0").rstrip(".")


def box_phrase(before: Sequence[float] | None, after: Sequence[float] | None) -> str:
    """"width 640 → 600 px, height 84 → 91 px" from two CSS boxes (x, y, w, h); "" when the
    size is the same or either box is unknown."""
    if not before or not after:
        return ""
    parts = [f"{name} {number(old)} → {number(new)} px"
             for name, old, new in (("width", before[2], after[2]), ("height", before[3], after[3]))
             if round(old, 2) != round(new, 2)]
    return ", ".join(parts)


def sentence(label: str, found: Sequence[StyleChange], before_box: Sequence[float] | None = None,
             after_box: Sequence[float] | None = None, texts: bool = True, through: str = "",
             source: str = "") -> str:
    """"note-box in “Memory usage”: `.note-box-content` font-size 12px → 13px; height 84 → 91 px".

    `label` names the region (theme.check.attribution.label), `found` is changes() of its
    records, the boxes its CSS box in the baseline and now. Without a box, the region's own
    element's recorded width and height stand in. `texts`: whether both records hold text
    (has_text); when not, "pixels changed" cannot rule out its words. `through`: its
    translucent background (translucent()), which shows what changed behind it. `source`:
    where its changes came from, said after them (", inherited from `d-article > p`")."""
    causes = style_changes(found)
    box = box_phrase(before_box, after_box) if before_box and after_box else _own_size(found)
    if not causes:
        if box:
            return f"{label}: {no_style(texts)}; {box}"
        return f"{label}: {pixels_only(texts, through)}"
    return f"{label}: {phrase(causes)}{source}" + (f"; {box}" if box else "")


def flow_changes(before: StyleRecord, after: StyleRecord) -> tuple[list[StyleChange], dict[str, list[str]]]:
    """changes() of two flow records, less what a kind inherits (an INHERITED property changed
    just as in the kind it sits in, `within`): the changes, and for each kind they came from,
    the kinds that inherited them (`d-article > p` -> [`d-article p > code`, …]). A record
    made before landmarks were kinds of their own is compared with the other's landmarks and
    `within` left out."""
    if any(map(is_landmark, before.elements)) != any(map(is_landmark, after.elements)):
        before, after = _without_landmarks(before), _without_landmarks(after)
    found = changes(before, after, by_path=False)  # a kind's parent is its `within`
    seen = {(c.selector, c.prop): c for c in found}
    kept: list[StyleChange] = []
    inherited: dict[str, list[str]] = {}
    for c in found:
        source = _inherited_from(c, after, seen)
        if source is None:
            kept.append(c)
        elif c.selector not in (names := inherited.setdefault(source, [])):
            names.append(c.selector)

    def size(kind: str) -> int:
        count = after.elements.get(kind, {}).get("count", "0")
        return int(count) if count.isdigit() else 0

    def reach(c: StyleChange) -> tuple[int, str, str]:  # the kinds with the most elements first
        return -size(c.selector), c.selector, c.prop

    return sorted(kept, key=reach), {k: sorted(v, key=lambda kind: (-size(kind), kind)) for k, v in inherited.items()}


def is_landmark(kind: str) -> bool:
    """A flow record's landmark kind (`d-article`, `footer`): the only kinds named without a space."""
    return " " not in kind


def _without_landmarks(record: StyleRecord) -> StyleRecord:
    kept = {k: {p: v for p, v in props.items() if p != "within"} for k, props in record.elements.items()
            if not is_landmark(k)}
    return StyleRecord(kept)


def _inherited_from(c: StyleChange, after: StyleRecord, seen: Mapping[tuple[str, str], StyleChange]) -> str | None:
    """The kind up `c`'s `within` chain whose very change `c` follows from (the topmost), or None."""
    if c.prop not in INHERITED:
        return None
    up, source = c.selector, None
    for _ in range(len(after.elements)):  # a chain; never round a loop
        up = after.elements.get(up, {}).get("within", "")
        same = seen.get((up, c.prop)) if up else None
        if same is None or (same.before, same.after) != (c.before, c.after):
            break
        source = up
    return source


def flow_counts(record: StyleRecord, found: Sequence[StyleChange], limit: int = 2) -> str:
    """" (`d-article > p`: 214 elements, in 11 sections)": how far the changed kinds of a page's
    flow record (theme/capture/js/flow_record.js: `count`, `sections`) reach, now."""
    said = []
    for selector in dict.fromkeys(c.selector for c in style_changes(found) if c.prop not in FLOW_EXTRAS):
        props = record.elements.get(selector, {})
        if "count" in props:
            n, k = props["count"], props.get("sections", "0")
            said.append(f"`{selector}`: {n} {'element' if n == '1' else 'elements'}, in {k} "
                        f"{'section' if k == '1' else 'sections'}")
    return f" ({'; '.join(said[:limit])})" if said else ""


def no_style(texts: bool = True) -> str:
    """What a region whose records show no change says of them (`texts`: both hold text)."""
    return NO_STYLE if texts else NO_STYLE_UNTEXTED


def pixels_only(texts: bool = True, through: str = "") -> str:
    """Why pixels changed when no recorded style, text or file did."""
    if not texts:
        return PIXELS_UNTEXTED
    return PIXELS_THROUGH.format(through) if through else PIXELS_ONLY


def _own_size(found: Sequence[StyleChange]) -> str:
    parts = []
    for c in found:
        if c.selector == OWN and c.is_size and c.before and c.after:
            old, new = px(c.before), px(c.after)
            parts.append(f"{c.prop} {number(old)} → {number(new)} px" if old is not None and new is not None
                         else f"{c.prop} {c.before} → {c.after}")
    return ", ".join(parts)


def px(v: str) -> float | None:
    """"84.5px" -> 84.5; None for anything else ("auto")."""
    m = re.fullmatch(r"(-?[0-9.]+)px", v)
    return float(m.group(1)) if m else None
