"""Failures grouped by cause: "38 figures: `figcaption` font-size 12px → 14px, heights +2 to +27 px".

Pure: failed items (what changed in each one's style record, theme/baselines/style_record.py, and its CSS
box before and now) in, groups, their one-line summaries and a terminal listing of bounded
length out. One token changed reads as one group, however many images it reached.

Each failed item has one cause:
- STYLE: computed styles changed. Items that share a change (the same property of the same
  kind of element, named by its last step, `figcaption`, set to the same value; or the same
  property of any element from the same value to the same value, which is what one token read
  by several components looks like: note-box text and `d-code` both 12px → 13px) form one
  group, and so, in turn, do the items that share one with them. One rule reaches its
  elements at different depths (`div > figcaption`, `figcaption`), from values that differ
  by viewport (12px on mobile, 13px on desktop), and with what follows from it (a padding in
  em): it still reads as one group, "`figcaption` font-size 12px or 13px → 14px". Sizes are
  left out: one rule grows each region by its own amount.
- RESIZED: its size changed, no computed style nor text did (an ancestor's width did).
- PIXELS: none of these changed: an image, a canvas or a font file did. (A changed word is a
  STYLE cause: the record holds each element's text beside its properties.)
- UNRECORDED: its baseline has no style record (made before records were): nothing to say.
- MOVED: only its position changed (content above it grew or shrank, as
  theme/check/attribution.py finds from the baseline's recorded box); it points at the
  groups above it that did.
- PAGE: a whole page image whose text-flow record (theme/capture/js/flow_record.js) shows no
  change: it shows every group of its page at once. One whose flow changed (`d-article > p`
  line-height) is a STYLE item like a region, and joins the regions its change reached.
- UNSTEADY: its page was rendered from the very inputs its baselines were rendered from
  (theme/check/inputs.py: a re-render of a page whose record holds), so what differs is not a
  change: the page does not hold still. It takes precedence over every cause above, so noise
  is never told as "only moved" or as "an image, a canvas or a font file".
Causes come first: the group whose whole pages' text flow changed (the rule most of a page
shows) before the others, then the biggest group first, ties by first id; then what followed
from them (MOVED, then PAGE), so the first lines name the rules and a MOVED group can point
up at them.
"""

from __future__ import annotations

import enum
import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..baselines.style_record import (
    INHERITED,
    StyleChange,
    no_style,
    number,
    phrase,
    pixels_only,
    sentence,
    style_changes,
)

Box = tuple[float, float, float, float]  # a CSS box: x, y, w, h
Signature = tuple[tuple[str, str, str | None, str | None], ...]  # (selector, property, before(s), after)
Facet = tuple[str, str, str | None]  # (element, property, after): a change as items share it
# The element of a facet that any element shares: (ANY, property, "before → after"), one token
# changed as it reaches components of several kinds.
ANY = "*"
# The element of a facet whole pages share: (FLOW + kind, property, None), one property of one
# kind of their text flow changed, whatever its values: `p` line-height 1.9 is 28.8px on the
# desktop page and 22.4px on the phone's. Never said: it only joins the pages.
FLOW = "~flow "

UNRECORDED = ("no style record to compare with (baselines made before records were; "
              "--update-snapshots=all records them)")
# steady.HOLDS_STILL's words (causes is pure: it imports no check module), and why it is so.
UNSTEADY = ("does not hold still between two renders of the same page (not your change): it was rendered "
            "from the very inputs its baselines were; `theme capture --explain` names what changes")
BUDGET = 25  # terminal lines for any number of failures
SHOWN = 3  # ids a group lists
SUMMARY_LIMIT = 3  # property changes a group's summary names


class Cause(enum.StrEnum):
    STYLE = "style"
    RESIZED = "resized"
    PIXELS = "pixels"
    UNRECORDED = "unrecorded"
    MOVED = "moved"
    PAGE = "page"
    UNSTEADY = "unsteady"


FOLLOWED = (Cause.MOVED, Cause.PAGE)  # effects of the other groups, listed after them


@dataclass(frozen=True)
class Failed:
    """One failed image, as grouping reads it."""

    id: str  # its key, e.g. index/desktop-dark/note-box/memory-usage.png
    region: str = ""  # the region's config key ("note-box"); "" for a whole page
    heading: str = ""  # its nearest heading
    changes: tuple[StyleChange, ...] = ()  # styles.changes() of its records
    before_box: Box | None = None  # its CSS box in the baseline (the manifest's "box")
    after_box: Box | None = None  # its CSS box now (Region.css_box)
    moved: bool = False  # the caller knows it only moved (when the boxes do not tell)
    recorded: bool = True  # whether both sides have a style record (False: `changes` says nothing)
    texts: bool = True  # whether both records hold text (style_record.has_text): else words may have changed
    through: str = ""  # its translucent background now (style_record.translucent): the page behind shows
    unsteady: bool = False  # its page was rendered from its baselines' own inputs (Cause.UNSTEADY)
    rows: tuple[tuple[int, int], ...] = ()  # a page's changed rows, [y0, y1) (Entry.changed_rows)
    selector: str = ""  # a region's element as a path from the page (`body > d-article > p > a`)

    @property
    def folder(self) -> str:
        """The page variant it belongs to: index/desktop-dark."""
        return "/".join(self.id.split("/")[:2])

    @property
    def grew(self) -> float | None:
        """Its height now minus its height before, CSS px; None when a box is unknown."""
        if self.before_box is None or self.after_box is None:
            return None
        return self.after_box[3] - self.before_box[3]

    @property
    def dy(self) -> float | None:
        """How far down it moved, CSS px; None when a box is unknown."""
        if self.before_box is None or self.after_box is None:
            return None
        return self.after_box[1] - self.before_box[1]

    @property
    def label(self) -> str:
        """How a sentence names it: `note-box in “Memory usage”` (theme.check.attribution.label)."""
        if not self.region:
            return "whole page"
        return f"{self.region} in “{self.heading}”" if self.heading else self.region


@dataclass(frozen=True)
class Group:
    """Failed items with one cause, numbered in display order from 1."""

    number: int
    cause: Cause
    signature: Signature  # STYLE: the changes every item shares; () for the others
    items: tuple[Failed, ...]  # in id order
    summary: str
    pushed_by: tuple[int, ...] = ()  # MOVED, PAGE: the numbers of the groups that moved it

    @property
    def count(self) -> int:
        return len(self.items)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(item.id for item in self.items)


def cause_of(item: Failed) -> tuple[Cause, Signature]:
    """An item's cause, and for STYLE the signature of its own changes (group() joins the
    items that share a change and gives each group the signature of what they share)."""
    if item.unsteady:
        return Cause.UNSTEADY, ()
    if not item.region and not style_changes(item.changes):  # a page whose flow record changed is a cause
        return Cause.PAGE, ()
    if not item.recorded:
        return Cause.UNRECORDED, ()
    found = style_changes(item.changes)
    if found:
        return Cause.STYLE, signature(found)
    if item.moved or (item.grew == 0 and item.dy):
        return Cause.MOVED, ()
    if item.changes or (item.grew or 0) != 0 or _widened(item):  # sizes, the only changes left
        return Cause.RESIZED, ()
    return Cause.PIXELS, ()


def _widened(item: Failed) -> bool:
    return item.before_box is not None and item.after_box is not None and item.before_box[2] != item.after_box[2]


def signature(found: Iterable[StyleChange]) -> Signature:
    """The changes as a set, with each element's place among its siblings (:nth-of-type) left
    out: the second paragraph of one note-box is the first of another."""
    return tuple(sorted({(_placeless(c.selector), c.prop, c.before, c.after) for c in found}))


def _placeless(selector: str) -> str:
    return re.sub(r":nth-of-type\(\d+\)", "", selector)


def _element(selector: str, region: str) -> str:
    """The kind of element a change is on: its selector's last step (`div > figcaption` ->
    `figcaption`), or for the region's own element (selector "") the region's key in <>, so
    note-boxes and figures whose own background changed alike are not one cause."""
    if not region:  # a kind of the page's flow (`d-article div.note-box-content > p ~2`): its last step
        return re.split(r"\s*>\s*|\s+", re.sub(r" ~\d+$", "", selector))[-1]
    return _placeless(selector).split(" > ")[-1] if selector else f"<{region}>"


def facets(item: Failed) -> set[Facet]:
    """The changes of `item` as other items can share them (module docstring)."""
    changes = style_changes(item.changes)
    flow = {(FLOW + _element(c.selector, ""), c.prop, None) for c in changes} if not item.region else set()
    return ({(_element(c.selector, item.region), c.prop, c.after) for c in changes}
            | {(ANY, c.prop, _change(c)) for c in changes} | flow)


def _order(f: tuple[str, str, str | None]) -> tuple[str, str, str, bool]:
    """A facet's sort key: a value that is absent (an element only one record has) sorts as ""
    before any, and never meets a string in a comparison."""
    return f[0], f[1], f[2] or "", f[2] is not None


def _change(c: StyleChange) -> str:
    return f"{c.before or '—'} → {c.after or '—'}"


def _joined(items: Sequence[Failed]) -> list[list[Failed]]:
    """STYLE items in groups: two items are together when they share a facet, directly or
    through others (union-find over facets; items in id order, so groups are too)."""
    parent: dict[Facet, Facet] = {}

    def root(f: Facet) -> Facet:
        while parent.setdefault(f, f) != f:
            parent[f] = parent[parent[f]]
            f = parent[f]
        return f

    for item in items:
        first, *rest = sorted(facets(item), key=_order)
        for f in rest:
            parent[root(f)] = root(first)
    together: dict[Facet, list[Failed]] = {}
    for item in items:
        together.setdefault(root(min(facets(item), key=_order)), []).append(item)
    return list(together.values())


def shared(items: Sequence[Failed]) -> Signature:
    """What a STYLE group's items share, as its summary names it: the facets every item has
    (else those most items have), each with every value it changed from, "12px or 13px"."""
    # Said from the regions when there are any (their records name the rule), then what every
    # page of the group shows in its text flow besides (`d-article p`, which no region holds).
    pages = [i for i in items if not i.region]
    items = [i for i in items if i.region] or list(items)
    sets = [{f for f in facets(i) if not f[0].startswith(FLOW)} for i in items]
    common = set.intersection(*sets)
    if not common:
        counts = Counter(f for s in sets for f in s)
        most = max(counts.values())
        common = {f for f, n in counts.items() if n == most}
    out = []
    for element, prop, after in sorted((f for f in common if f[0] != ANY), key=_order):
        found = [c for i in items for c in style_changes(i.changes)
                 if (_element(c.selector, i.region), c.prop, c.after) == (element, prop, after)]
        befores = sorted({c.before or "—" for c in found})
        # The whole selector when every item has it (`.note-box-content > p`), else the step they
        # share; whole pages alone name both of two (`d-article > p or d-article p`): a bare `p`
        # is no rule anyone wrote.
        paths = sorted({_placeless(c.selector) for c in found})
        whole = len(paths) == 1 or (len(paths) == 2 and not any(i.region for i in items))
        shown_as = " or ".join(paths) if whole else element
        out.append((shown_as or _kind_of(pages, prop, after), prop, " or ".join(befores), after))
    said = {(prop, before, after) for _, prop, before, after in out}
    for _, prop, change in sorted((f for f in common if f[0] == ANY), key=_order):
        before, after = str(change).split(" → ", 1)
        if (prop, before, after) in said:  # an element facet names it already
            continue
        kinds = sorted({_element(c.selector, i.region) for i in items for c in style_changes(i.changes)
                        if c.prop == prop and _change(c) == change})
        out.append((", ".join(kinds), prop, before, after))
    return _merged(tuple(out) + (_flow_only(pages, out) if pages else ()))


def _kind_of(pages: Sequence[Failed], prop: str, after: str | None) -> str:
    """How to name a change of regions' own elements (a focused link: no selector of its own):
    the kind of the pages' text flow that changed the same way (`d-article a`), or ""."""
    kinds = sorted({c.selector for p in pages for c in style_changes(p.changes) if (c.prop, c.after) == (prop, after)})
    return " or ".join(kinds[:2])


def _merged(sig: Signature) -> Signature:
    """Rows of one element and property joined: `p` line-height 22.4px or 28.832px → 26.6px or
    32.224px, one rule at two widths (the pages FLOW joined)."""
    rows: dict[tuple[str, str], list[tuple[str, str, str | None, str | None]]] = {}
    for row in sig:
        rows.setdefault((row[0], row[1]), []).append(row)

    def either(values: Iterable[str | None]) -> str:
        return " or ".join(sorted({part for v in values for part in (v or "—").split(" or ")}, key=_sort_key))

    return tuple(rs[0] if len(rs) == 1 else (k[0], k[1], either(r[2] for r in rs), either(r[3] for r in rs))
                 for k, rs in rows.items())


def _sort_key(value: str) -> tuple[float, str]:
    """Numbers by their value (9.5px before 12px), then anything else."""
    m = re.match(r"-?\d+(\.\d+)?", value)
    return (float(m.group(0)) if m else float("inf"), value)


def _flow_only(pages: Sequence[Failed], out: list[tuple[str, str, str, str | None]]) -> Signature:
    """What every page of a group shows in its text flow (flow_record.js) that no change named
    already says: each kind and property every page's flow changed, with all its values (a
    rule in em or a line-height of 1.9 has its own value at each width: `d-article p`
    line-height 26.6px or 32.224px). Beside regions (`d-article p`, which no region holds, with
    the captions of another rule), and on whole pages alone (two rules: both are said)."""
    said = {(prop, after) for _, prop, _, after in out}
    kinds = set.intersection(*({(c.selector, c.prop) for c in style_changes(p.changes)} for p in pages))
    extra = []
    for selector, prop in sorted(kinds):
        found = [c for p in pages for c in style_changes(p.changes) if (c.selector, c.prop) == (selector, prop)]
        if all((prop, c.after) in said for c in found):
            continue
        extra += [(selector, prop, c.before or "—", c.after) for c in found]
    return tuple(extra)


# ------------------------------------------------------------------ grouping


def group(failed: Iterable[Failed]) -> list[Group]:
    """The groups of `failed`, in display order (module docstring), each with its summary."""
    buckets: dict[tuple[Cause, Signature], list[Failed]] = {}
    styled: list[Failed] = []
    for item in sorted(failed, key=lambda f: f.id):
        cause, sig = cause_of(item)
        if cause is Cause.STYLE:
            styled.append(item)
        else:
            buckets.setdefault((cause, sig), []).append(item)
    for items in _joined(styled):
        buckets.setdefault((Cause.STYLE, shared(items)), []).extend(items)

    def order(entry: tuple[tuple[Cause, Signature], list[Failed]]) -> tuple[int, int, int, str]:
        (cause, _), items = entry
        followed = FOLLOWED.index(cause) + 1 if cause in FOLLOWED else 0
        flow = 0 if cause is Cause.STYLE and any(not i.region for i in items) else 1
        return followed, flow, -len(items), items[0].id

    ordered = sorted(buckets.items(), key=order)
    numbered = {key: n for n, (key, _) in enumerate(ordered, 1)}
    groups = []
    for (cause, sig), items in ordered:
        pushed = _pushers(cause, items, buckets, numbered)
        groups.append(Group(numbered[(cause, sig)], cause, sig, tuple(items),
                            summary(cause, sig, items, pushed), pushed))
    return groups


def _pushers(cause: Cause, items: list[Failed], buckets: dict[tuple[Cause, Signature], list[Failed]],
             numbered: dict[tuple[Cause, Signature], int]) -> tuple[int, ...]:
    """For MOVED, the groups with an item that grew or shrank above one of `items` on its page;
    for PAGE, every cause group with an element in one of the pages' changed rows (_shows)."""
    if cause not in FOLLOWED:
        return ()
    found = set()
    for key, members in buckets.items():
        if key[0] in FOLLOWED:
            continue
        for item in items:
            if any(_pushes(m, item) if cause is Cause.MOVED else _shows(item, m) for m in members):
                found.add(numbered[key])
                break
    return tuple(sorted(found))


def _shows(page: Failed, m: Failed) -> bool:
    """Whether a whole page's image shows `m`: an element of its own variant (a reader state's
    image is taken apart from it) whose box lies in the page's changed rows, where known."""
    if m.folder != page.folder or m.id.split("/")[2:3] == ["state"]:
        return False
    if not page.rows or m.after_box is None:
        return True
    top, bottom = m.after_box[1], m.after_box[1] + m.after_box[3]
    return any(top < y1 and y0 < bottom for y0, y1 in page.rows)


def _rows(pages: Sequence[Failed]) -> str:
    """Where one page changed, " at y=5120–6784 and 3 more bands"; "" for several pages."""
    if len(pages) != 1 or not pages[0].rows:
        return ""
    (y0, y1), more = pages[0].rows[0], len(pages[0].rows) - 1
    return f" at y={y0}–{y1}" + (f" and {more} more {plural('band', more)}" if more else "")


def _pushes(m: Failed, item: Failed) -> bool:
    """Whether `m` changed height above `item` on the same page (above: when both boxes tell)."""
    if m.folder != item.folder or not m.grew:
        return False
    if m.after_box is None or item.after_box is None:
        return True
    return m.after_box[1] < item.after_box[1]


# ------------------------------------------------------------------ in words


def plural(word: str, n: int) -> str:
    if n == 1 or word.endswith("ed"):  # a region named by what it is (`focused`, `selected`) stays so
        return word
    return word + ("es" if word.endswith(("s", "x", "z", "ch", "sh")) else "s")


def noun(items: Sequence[Failed]) -> str:
    """"38 figures", "12 regions (8 note-boxes, 4 figures)", "4 whole pages"."""
    n = len(items)
    if all(not i.region for i in items):
        return f"{n} whole {plural('page', n)}"
    kinds = Counter(i.region for i in items)
    if len(kinds) == 1:
        return f"{n} {plural(next(iter(kinds)), n)}"
    # Pages and regions together (one UNSTEADY group holds both): "3 images (2 figures, 1 whole page)".
    said = {k or "whole page": c for k, c in kinds.items()}
    parts = ", ".join(f"{c} {plural(k, c)}" for k, c in sorted(said.items(), key=lambda kc: (-kc[1], kc[0])))
    return f"{n} {plural('region' if '' not in kinds else 'image', n)} ({parts})"


def signed(v: float) -> str:
    return ("+" if v > 0 else "") + number(v)


def spread(values: Sequence[float]) -> str:
    """"+2 to +27", "+7"."""
    lo, hi = min(values), max(values)
    return signed(lo) if round(lo, 2) == round(hi, 2) else f"{signed(lo)} to {signed(hi)}"


def heights(items: Sequence[Failed]) -> str:
    """", heights +2 to +27 px", ", heights unchanged", or "" when no item's boxes are known."""
    grown = [g for i in items if (g := i.grew) is not None]
    if not grown:
        return ""
    if all(round(g, 2) == 0 for g in grown):
        return ", heights unchanged"
    return f", heights {spread(grown)} px"


def _groups(numbers: Sequence[int]) -> str:
    if not numbers:
        return ""
    if len(numbers) == 1:
        return f" (group {numbers[0]})"
    return f" (groups {', '.join(map(str, numbers[:-1]))} and {numbers[-1]})"


def summary(cause: Cause, sig: Signature, items: Sequence[Failed], pushed: Sequence[int] = ()) -> str:
    """One line for a group: how many of what, and why."""
    who = noun(items)
    if cause is Cause.STYLE:
        shared = [StyleChange(*s) for s in sig]
        return f"{who}: {phrase(shared, SUMMARY_LIMIT)}{heights(items)}"
    if cause is Cause.RESIZED:
        return f"{who}: resized, {no_style(all(i.texts for i in items))}{heights(items)}"
    if cause is Cause.PIXELS:
        through = {i.through for i in items}  # one colour for all, or none is said
        return f"{who}: {pixels_only(all(i.texts for i in items), through.pop() if len(through) == 1 else '')}"
    if cause is Cause.UNRECORDED:
        return f"{who}: {UNRECORDED}"
    if cause is Cause.UNSTEADY:
        return f"{who}: {UNSTEADY}"
    if cause is Cause.MOVED:
        moves = [d for i in items if (d := i.dy) is not None]
        by = f" by {spread(moves)} px" if moves else ""
        return f"{who} only moved{by}: content above them changed{_groups(pushed)}"
    if not pushed:  # no group's element in its changed rows: what the page itself shows
        return f"{who}: changed outside every region{_rows(items)}"
    return f"{who}: the groups above, seen on the whole page{_groups(pushed)}"


def explain(item: Failed, groups: Sequence[Group]) -> str:
    """The one line a failed item's card and `theme why` say: its style changes and box, or
    that it only moved and which group moved it."""
    mine = next((g for g in groups if item in g.items), None)
    if mine is None:
        raise ValueError(f"{item.id} is in none of the groups")
    if mine.cause is Cause.PAGE:
        pushed = _pushers(Cause.PAGE, [item], _buckets(groups), _numbers(groups))
        return f"{item.id}: whole page{_groups(pushed)}" if pushed else \
            f"{item.id}: whole page, changed outside every region{_rows([item])}"
    if mine.cause is Cause.UNRECORDED:
        return f"{item.label}: {UNRECORDED}"
    if mine.cause is Cause.UNSTEADY:
        return f"{item.label or item.id}: {UNSTEADY}"
    if mine.cause is Cause.MOVED:
        pushed = _pushers(Cause.MOVED, [item], _buckets(groups), _numbers(groups))
        by = f" {signed(d)} px" if (d := item.dy) is not None else ""
        return f"{item.label} only moved{by}: content above it changed{_groups(pushed)}"
    return sentence(item.label, item.changes, item.before_box, item.after_box, item.texts, item.through,
                    inherited(item, mine))


def inherited(item: Failed, mine: Group) -> str:
    """", inherited from `d-article > p`": for a region whose element changed an inherited
    property (line-height, color, …) exactly as a kind of element it sits in did in its own
    page's text flow, in the same group (a focused link in a paragraph whose rule changed).
    "" for anything else, and for a kind the element is itself (its own rule changed)."""
    if not item.region or not item.selector:
        return ""
    kinds = []
    for c in style_changes(item.changes):
        if c.prop not in INHERITED:
            continue
        path = [_tag(step) for step in re.split(r"\s*>\s*|\s+", f"{item.selector} > {c.selector}".strip(" >"))]
        kinds += [f.selector for p in mine.items if not p.region and p.folder == item.folder
                  for f in style_changes(p.changes)
                  if (f.prop, f.before, f.after) == (c.prop, c.before, c.after)
                  and _tag(_element(f.selector, "")) in path[:-1]]
    kinds = list(dict.fromkeys(kinds))
    if not kinds:
        return ""
    more = f" and {len(kinds) - 2} more" if len(kinds) > 2 else ""
    return ", inherited from " + " or ".join(f"`{k}`" for k in kinds[:2]) + more


def _tag(step: str) -> str:
    """The element name of one selector step: `p` of `p:nth-of-type(3)`, `figure` of `figure.wide`."""
    m = re.match(r"[A-Za-z][\w-]*", step)
    return m.group(0).lower() if m else ""


def unrecorded_flow(pages: int) -> str:
    """The one line a run says when `pages` failed whole pages have baselines made before their
    text flow was recorded: their changes are told by rows, not by rule, until recorded."""
    if not pages:
        return ""
    whose = "its baseline was" if pages == 1 else "their baselines were"
    return (f"{pages} failed whole {plural('page', pages)}: {whose} recorded before theme kept a page's "
            "text-flow record, so body-text changes there are told by rows, not by rule; "
            "pytest --update-snapshots=all records it without changing an image")


def _buckets(groups: Sequence[Group]) -> dict[tuple[Cause, Signature], list[Failed]]:
    return {(g.cause, g.signature): list(g.items) for g in groups}


def _numbers(groups: Sequence[Group]) -> dict[tuple[Cause, Signature], int]:
    return {(g.cause, g.signature): g.number for g in groups}


def terminal_lines(groups: Sequence[Group], budget: int = BUDGET, shown: int = SHOWN) -> list[str]:
    """At most `budget` lines for any number of failures: a header, then per group its
    summary and its first `shown` ids, and when groups do not fit, how many more there are."""
    if budget < 4:
        raise ValueError(f"a budget of {budget} lines cannot show one group (it takes at least 4)")
    total = sum(g.count for g in groups)
    if not groups:
        return []
    lines = [f"{total} failed {plural('image', total)} in {len(groups)} {plural('group', len(groups))} by cause:"]
    footer = "-rf or -v lists every failed image"
    room = (budget - 2) // 2  # groups that fit with the header and footer
    if len(groups) > room:
        room = (budget - 3) // 2  # and a line for the rest
    for g in groups[:room]:
        lines.append(f"{g.number:>3}. {g.summary}")
        more = f" and {g.count - shown} more" if g.count > shown else ""
        lines.append(f"       {', '.join(g.ids[:shown])}{more}")
    rest = groups[room:]
    if rest:
        n = sum(g.count for g in rest)
        lines.append(f"  … {len(rest)} more {plural('group', len(rest))} of {n} {plural('image', n)}")
    lines.append(footer)
    return lines
