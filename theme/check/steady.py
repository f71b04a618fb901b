"""No baseline that was never reproduced: a variant an update would write is rendered a second
time, independently (a fresh load), and its images are written only when both renders agree
under each image's own tolerance. What differs between two renders of the same inputs is not
the author's change: it is said as such, with the elements to look at and, as the last
resort, the mask line to paste."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import PurePosixPath

import numpy as np

from ..baselines import style_record as styles
from ..capture.model import Capture, Failure
from ..core.config import VisualConfig
from ..pixels import diff

HOLDS_STILL = "does not hold still between two renders of the same page (not your change)"
NAMED = 4  # parts a failure names


# For the boxes (x, y, w, h in page px) of a variant's page that differ outside its regions, a
# selector of the element holding each, or None (Renderer.elements_at: a fresh, settled load).
Namer = Callable[[Capture, list[tuple[int, int, int, int]]], list[str | None]]
# One thing that differs: in words, and the selector a `mask` of it would take (None: none known).
Part = tuple[str, str | None]


def unsteady(first: Capture, second: Capture, visual: VisualConfig, name: Namer | None = None) -> list[Part]:
    """What differs between two renders of one variant, each part in words; [] when every image
    agrees under its tolerance (the page's pixels equal: at once)."""
    if first.pixels is not None and first.pixels == second.pixels:
        return []
    if first.image.shape != second.image.shape:
        (h1, w1), (h2, w2) = first.image.shape[:2], second.image.shape[:2]
        return [(f"the page is {w1}×{h1} px, then {w2}×{h2} px", None)]
    theirs = {r.path: r for r in second.regions}
    moved = [r for r in first.regions
             if r.path not in theirs or not _agree(first.crop(r), second.crop(theirs[r.path]), visual, r.key)]
    parts: list[Part] = [(f"{r.key} {r.name} ({r.selector}){_what(first, second, r.path)}", r.selector)
                         for r in moved]
    if visual.full_page and first.full_page:
        page = diff.compare(np.ascontiguousarray(first.image), np.ascontiguousarray(second.image),
                            visual.tolerance_for(None), diff_image=False)
        outside = [b for b in page.boxes if not any(_overlaps(b, r.box) for r in moved)][:NAMED]
        names = name(first, outside) if name is not None and outside else [None] * len(outside)
        for (x, y, w, h), element in zip(outside, names, strict=True):
            parts.append((f"{element} (at x={x} y={y}, {w}×{h} px)", element) if element else
                         (f"an area at x={x} y={y} ({w}×{h} px)", None))
    return parts


def refusal(first: Capture, parts: list[Part], visual: VisualConfig, mask_at: str) -> Failure:
    """The variant's failure: nothing of it is written."""
    masks = [selector for _, selector in parts if selector is not None]
    more = f" and {len(parts) - NAMED} more" if len(parts) > NAMED else ""
    quoted = ", ".join(f'"{m}"' for m in masks[:NAMED])
    last = (f"; as the last resort, mask = [{quoted}] in {mask_at}" if masks else "")
    workers = (first.explain.get("frozen") or {}).get("workers") or []
    why = ("the page is in real_time, so its clock and random numbers are the browser's: take it out of "
           "real_time to hold them still" if first.variant.page in visual.real_time else
           f"its scripts ran on page time with seeded random numbers, which do not reach {', '.join(workers)} "
           "that it started: make what runs there hold still (a seed, a fixed number of steps)" if workers else
           "its scripts ran on page time with seeded random numbers, so what differs is driven from outside "
           "them (media, a late response)")
    said = "; ".join(words for words, _ in parts[:NAMED])
    message = (f"{first.variant.page_name} ({first.variant.id}): {HOLDS_STILL}: {said}{more}; "
               f"nothing of it was written; {why}{last}")
    return Failure(first.variant, message, kind="unsteady")


def second_renders(session_capture: Iterable[Capture | Failure], firsts: dict[PurePosixPath, Capture],
                   visual: VisualConfig, mask_at: str,
                   name: Namer | None = None) -> dict[PurePosixPath, Capture | Failure]:
    """Each first render (by variant folder) judged against its second: the first, marked
    reproduced, or its refusal."""
    out: dict[PurePosixPath, Capture | Failure] = {}
    for second in session_capture:
        first = firsts[second.variant.folder]
        if isinstance(second, Failure):
            out[second.variant.folder] = Failure(
                first.variant, f"{first.variant.page_name} ({first.variant.id}): its second render, which an "
                f"update needs before it writes, failed: {second.message}", kind=second.kind)
            continue
        parts = unsteady(first, second, visual, name)
        if parts:
            out[first.variant.folder] = refusal(first, parts, visual, mask_at)
        else:
            first.reproduced = True
            out[first.variant.folder] = first
    return out


def _what(first: Capture, second: Capture, path: PurePosixPath) -> str:
    """": drawing: circle cx cy changed": what the region's style records say differs between
    the two renders (a figure a script drew anew, its words), or "" when they agree."""
    a, b = first.styles.get(path.as_posix()), second.styles.get(path.as_posix())
    if a is None or b is None:
        return ""
    found = styles.style_changes(styles.changes(styles.from_page(a), styles.from_page(b)))
    return f": {styles.phrase(found, 3)}" if found else ""


def _agree(a: np.ndarray, b: np.ndarray, visual: VisualConfig, key: str) -> bool:
    if a.shape != b.shape:
        return False
    return diff.compare(np.ascontiguousarray(a), np.ascontiguousarray(b), visual.tolerance_for(key),
                        diff_image=False).matches


def _overlaps(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]
