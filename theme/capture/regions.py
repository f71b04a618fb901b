"""Regions on a page: the measured region elements named (naming.py) and boxed in
the image, and the sub-pixel nudge that moves some before a capture (theme/check/phase.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Mapping

import numpy as np

from . import scripts
from .bounded import evaluate
from .model import JsonObject, Nudges, Region
from .naming import element_names

if TYPE_CHECKING:
    from playwright.sync_api import Page


def clip_box(box: list[float], width: int, height: int) -> tuple[int, int, int, int] | None:
    """Float CSS box → whole pixels covering it, clipped to the image; None when nothing is left."""
    x, y, w, h = box
    x0, y0 = max(0, int(np.floor(x))), max(0, int(np.floor(y)))
    x1, y1 = min(width, int(np.ceil(x + w))), min(height, int(np.ceil(y + h)))
    if x1 <= x0 or y1 <= y0:
        return None
    return (x0, y0, x1 - x0, y1 - y0)


def named(found: JsonObject, selectors: Mapping[str, str]) -> Iterator[tuple[str, str, int, JsonObject]]:
    """(key, name, ordinal, measured item) of every region element, in config-key then
    document order; `ordinal` is the element's place among its key's visible matches.
    `found` is what scripts.REGIONS measured; `selectors` the config's regions. Each
    item gains "named_by": the index of the heading it is named after, or None
    (then its id, caption or the title names it: naming.own_base)."""
    for key in selectors:
        items = found["regions"].get(key, [])
        names = element_names(items, found["headings"], found.get("placed"), found.get("title"))
        for ordinal, (item, (name, by)) in enumerate(zip(items, names, strict=True)):
            item["named_by"] = by
            yield key, name, ordinal, item


def regions(found: JsonObject, selectors: Mapping[str, str], width: int, height: int) -> list[Region]:
    """Every named region with a box left inside the width × height image. Its `heading`
    is that of the section it is in: the one it is named after, else the article's
    title (before the first heading of its body), else ""."""
    headings = found["headings"]
    out = []
    for key, name, _ordinal, item in named(found, selectors):
        box = clip_box(item["box"], width, height)
        if box is None:
            continue  # named first, so skipping it renames nothing
        h = item["named_by"]
        heading = headings[h] if h is not None else (found.get("title") or "")
        frames = tuple((float(x), float(y)) for x, y in item.get("frames", ()))
        out.append(Region(key, name, box, heading, item["selector"], tuple(item["box"]), frames))
    return out


def nudge(page: Page, selectors: Mapping[str, str], nudges: Nudges) -> dict[str, tuple[float, float]]:
    """Put the named regions' elements, and their frames, back on their targets' sub-pixel
    phase (relative positioning, which moves an element without moving anything else:
    js/nudge.js); returns {path: (dx, dy)} of the elements moved."""
    found = evaluate(page, scripts.REGIONS, {"regions": list(selectors.items())})
    todo: list[JsonObject] = []
    for key, name, ordinal, _item in named(found, selectors):
        path = Region(key, name, (0, 0, 0, 0), "", "").path.as_posix()
        if path in nudges:
            target = nudges[path]
            frames = None if target.frames is None else [list(f) for f in target.frames]
            todo.append({"path": path, "selector": selectors[key], "ordinal": ordinal,
                         "x": target.x, "y": target.y, "frames": frames})
    moved = evaluate(page, scripts.NUDGE, todo) if todo else {}
    return {path: (float(dx), float(dy)) for path, (dx, dy) in moved.items()}
