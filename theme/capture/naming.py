"""Pure naming rules: variants of the capture matrix, slugs, and region names
(`<key>/<heading-slug>[-k]`, or before the article's first heading `<key>/<id,
caption or title slug>[-k]`). Nothing here touches a browser, so all of it is
unit-tested on plain data (scripts.REGIONS measures what these rules read).
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Collection, Iterable, Literal, Mapping, Sequence, Union

from ..core.config import VisualConfig
from ..core.errors import ConfigError

# Long enough to stay readable, short enough that `<out>/<page>/<variant>/<key>/<name>.png`
# stays far below the 255-byte file-name limit of common filesystems.
SLUG_MAX = 60
STATE = "state"  # the folder of a page variant's reader states
TOP = "top"  # the name base of a region that no heading precedes and that has no id, caption or title

# Page chrome: elements a runtime draws around the article, whose headings ("Authors",
# "DOI", "Footnotes", "Updates and Corrections", "Table of contents") name no part of the
# article. These are the Distill v2 components that draw headings of their own or hold
# those that do (article/dist/assets/distill/template.v2.js: byline, footnote and citation
# lists, references, table of contents, review interstitial, appendix, header, footer),
# plus <nav>, whose heading names a list of links. A heading inside chrome names only
# regions inside that same element (a table in the appendix under its "Notation").
CHROME = ("d-byline", "d-appendix", "d-footnote-list", "d-citation-list", "d-references", "d-toc",
          "d-interstitial", "distill-header", "distill-appendix", "distill-footer", "nav")
# The title block: its heading is the article's title, the name of what precedes the body's
# first heading rather than a section of it.
TITLE = "d-title"
# Where a heading stands (scripts.REGIONS `placed`): None in the article, TITLE in the title
# block, else the document-order index of the innermost CHROME element around it.
Place = Union[None, str, int]


def slug(text: str, *, fallback: str = "section") -> str:
    """Lower-case ASCII words joined by '-': never empty, never '/', '.' or '..'.

    casefold + NFKD + ASCII drops accents ("Grüße" -> "grusse") instead of
    dropping the whole letter; emoji and other symbols fall away entirely.
    """
    ascii_text = unicodedata.normalize("NFKD", text.casefold()).encode("ascii", "ignore").decode()
    words = re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")
    words = words[:SLUG_MAX].rstrip("-")
    return words or fallback


def safe_segment(text: str) -> str:
    """One path segment: keeps [A-Za-z0-9._-], replaces the rest; never '.', '..' or empty."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:SLUG_MAX * 2]
    if cleaned.strip(".") == "":
        cleaned = "_" + cleaned.replace(".", "_") if cleaned else "_"
    return cleaned


def page_name(page: str) -> str:
    """'index.html' -> 'index'; 'guide/intro.html' -> 'guide/intro' (each segment made safe)."""
    path = PurePosixPath(page)
    if not path.name or any(p == ".." for p in path.parts):
        raise ConfigError(f"pages: {page!r} must be a path inside root, like 'index.html'")
    parts = [p for p in path.with_suffix("").parts if p not in ("", "/")]
    if not parts:
        raise ConfigError(f"pages: {page!r} must be a path inside root, like 'index.html'")
    return "/".join(safe_segment(p) for p in parts)


_MEDIA_SCHEME: dict[str, Literal["light", "dark"]] = {
    "light": "light", "dark": "dark", "light-attr": "dark", "dark-attr": "light"}


@dataclass(frozen=True, order=True)
class Variant:
    """One cell of the capture matrix: a page at a viewport in a colour scheme."""

    page: str  # path under root, e.g. "index.html"
    viewport: str  # config name, e.g. "desktop"
    width: int
    height: int
    scheme: str  # "light" | "dark" | "light-attr" | "dark-attr"
    # A reader state (config `states`) reached on this page variant, or "" for the page as it
    # loads. A state's images go under the page variant's folder, in `state/<name>/`.
    state: str = ""

    @property
    def page_name(self) -> str:
        return page_name(self.page)

    @property
    def id(self) -> str:
        return f"{safe_segment(self.viewport)}-{self.scheme}"

    @property
    def folder(self) -> PurePosixPath:
        base = PurePosixPath(self.page_name) / self.id
        return base / STATE / self.state if self.state else base

    @property
    def prefix(self) -> str:
        """What item names start with inside the variant: `state/<name>/` for a state, else ''."""
        return f"{STATE}/{self.state}/" if self.state else ""

    @property
    def media_scheme(self) -> Literal["light", "dark"]:
        """What prefers-color-scheme reports. The -attr schemes emulate the OPPOSITE
        preference, so the capture proves <html data-theme> wins over the media query."""
        return _MEDIA_SCHEME[self.scheme]

    @property
    def data_theme(self) -> str | None:
        """The value forced on <html data-theme>, or None to leave the page alone."""
        return self.scheme.removesuffix("-attr") if self.scheme.endswith("-attr") else None


def variants(visual: VisualConfig) -> list[Variant]:
    """Every page × viewport × scheme, in config order (pages, then viewports, then schemes),
    then every reader state in the same order, each after all of the pages' own variants."""
    for page in visual.pages:
        page_name(page)  # raises ConfigError early for '../x.html'
    plain = [
        Variant(page, name, w, h, scheme)
        for page in visual.pages
        for name, (w, h) in visual.viewports.items()
        for scheme in visual.color_schemes
    ]
    states = [dataclasses.replace(v, state=s.name) for v in plain for s in visual.states_of(v.page)]
    return plain + states


def heading_bases(headings: Sequence[str]) -> list[str]:
    """The name base of each heading, in document order: its slug, made unique.

    A repeated heading text ("Example" in two sections) gets '-h2', '-h3' … by
    its rank among equal slugs; the 'h' keeps it apart from the '-k' counter of
    regions (so 'example-h2' never collides with the 2nd region 'example-2').
    """
    seen: dict[str, int] = {}
    out = []
    for text in headings:
        base = slug(text, fallback="heading")
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}-h{seen[base]}")
    return out


def region_names(heading_of: Iterable[int | None], bases: Sequence[str],
                 own: Sequence[str] | None = None) -> list[str]:
    """Names for one key's elements in document order.

    An element is named by the nearest heading (h1–h4) that precedes it, and `-k`
    counts the key's elements under that same heading (the 2nd one is `-2`).
    Counting restarts at every heading, so inserting a note-box in section A
    renames nothing in section B, where a global counter (`note-box-7`) would
    shift every later name.

    `heading_of[i]` is the index (into `bases`) of the heading naming element i
    (naming_heading), or None when none does: it is then named `own[i]` (own_base;
    'top' without `own`), counted the same way among the elements of that base. A
    collision can only come from a base that itself ends in '-<digits>' ("Step 2",
    an id "fig-2"); the later name then takes the next free '-k', which keeps every
    name unique.
    """
    per_base: dict[tuple[str, int | str], int] = {}
    used: set[str] = set()
    names = []
    for i, h in enumerate(heading_of):
        base = (own[i] if own is not None else TOP) if h is None else bases[h]
        counter = ("own", base) if h is None else ("heading", h)
        per_base[counter] = per_base.get(counter, 0) + 1
        k = per_base[counter]
        name = base if k == 1 else f"{base}-{k}"
        while name in used:
            k += 1
            name = f"{base}-{k}"
        used.add(name)
        names.append(name)
    return names


def naming_heading(preceding: int | None, placed: Sequence[Place], inside: Collection[int] = ()) -> int | None:
    """The heading that names an element: from `preceding` (the index of the nearest h1–h4
    before it), back to the nearest one in the article, or in chrome the element is
    `inside` (indices of the CHROME elements around it). None: no article heading precedes
    it, and it is named by own_base instead. A title heading never names by nearness."""
    h = preceding
    while h is not None and h >= 0:
        place = placed[h]
        if place is None or (place != TITLE and place in inside):
            return h
        h -= 1
    return None


def own_base(element_id: str = "", caption: str = "", title: str | None = None) -> str:
    """The name base of an element no article heading precedes: its own id, else its
    caption, else the article's title (the d-title heading), else 'top'. A reader finds
    each on the page; the byline's "DOI", which precedes it too, names nothing of it."""
    for text in (element_id, caption, title):
        if text and text.strip():
            return slug(text, fallback=TOP)
    return TOP


def element_names(items: Sequence[Mapping[str, Any]], headings: Sequence[str],
                  placed: Sequence[Place] | None = None, title: str | None = None) -> list[tuple[str, int | None]]:
    """(name, index of the heading it is named after or None) of one key's elements in
    document order, from what js/naming_of.js measured: each item's `heading` (the nearest
    h1–h4 before it), `inside` (the chrome around it) and, before the article's first
    heading, its `id` and `caption`; the page's `headings`, where each is `placed`, and its
    `title`. A page's regions and a reader state's captured elements are named alike: after
    the heading naming_heading finds, else own_base, never after the byline's "DOI"."""
    placed = list(placed) if placed is not None else [None] * len(headings)
    by = [naming_heading(it.get("heading"), placed, it.get("inside", ())) for it in items]
    own = [own_base(it.get("id", ""), it.get("caption", ""), title) if h is None else ""
           for it, h in zip(items, by, strict=True)]
    return list(zip(region_names(by, heading_bases(headings), own), by, strict=True))


# A canvas that is no <figure>'s: the live figure of an article that draws without one (init's
# region `canvas`, theme/init/plan.py; counted by js/survey.js).
LIVE_CANVAS = "canvas:not(figure canvas, d-figure canvas)"
