"""Render the article with one stylesheet and then another, in a real Chromium, and count
the pixels that differ (pixelmatch, threshold 0, anti-aliasing counted: any change counts).

Each side is served from a temporary mirror of the served folder: symlinks to the article's
files, with the stylesheet replaced, so nothing under the project is touched.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ...core.config import Tolerance, VisualConfig
from ...pixels.diff import compare

VIEWPORTS = {"mobile": (390, 844), "desktop": (1280, 800)}
SCHEMES = ("light", "dark")
EXACT = Tolerance(threshold=0.0, include_aa=True)


@dataclass(frozen=True)
class Outcome:
    variant: str  # "index.html (desktop-dark)"
    diff_pixels: int
    size_mismatch: bool
    boxes: tuple[tuple[int, int, int, int], ...]


def mirror(served_root: Path, stylesheet: Path, css: bytes, into: Path) -> Path:
    """`into` as `served_root` with `stylesheet` (a file below it) holding `css` instead."""
    relative = stylesheet.resolve().relative_to(served_root.resolve())
    into.mkdir(parents=True)
    here, real = into, served_root
    for part in relative.parts[:-1]:
        _link_all(real, here, skip=part)
        here, real = here / part, real / part
        here.mkdir()
    _link_all(real, here, skip=relative.parts[-1])
    (here / relative.parts[-1]).write_bytes(css)
    return into


def _link_all(real: Path, here: Path, skip: str) -> None:
    for entry in sorted(os.listdir(real)):
        if entry != skip:
            os.symlink(real / entry, here / entry)


def compare_renders(visual: VisualConfig, stylesheet: Path, before: bytes, after: bytes,
                    browser: str | None = None) -> list[Outcome]:
    """Capture every variant of `visual` with `before`, then with `after`; one Outcome each."""
    from ...capture import open_session, variants
    from ...check.pipeline import capture

    # Two renders of the same page are compared, not recorded: a page wider than its
    # viewport is the same page on both sides, so it may be. The pages alone: the proof is
    # every pixel of each page, in every variant (reader states come after, from the same CSS).
    visual = dataclasses.replace(visual, viewports=dict(visual.viewports or VIEWPORTS),
                                 color_schemes=SCHEMES, regions={}, full_page=True,
                                 allow_overflow=tuple(visual.pages), states=())
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="theme-adopt-") as tmp:
        images = []
        for name, css in (("before", before), ("after", after)):
            root = mirror(visual.root, stylesheet, css, Path(tmp) / name)
            side = dataclasses.replace(visual, root=root)
            with open_session(side, browser=browser) as session:  # pages parked on disk: 8 of a long
                shots = capture(session, variants(side), spill_to=Path(tmp) / f"{name}-images")  # article ≈ 5 GB
                images.append({c.variant: c.image for c in shots})
        for variant, old in images[0].items():
            result = compare(old, images[1][variant], EXACT, diff_image=False)
            outcomes.append(Outcome(variant=f"{variant.page} ({variant.id})", diff_pixels=result.diff_pixels,
                                    size_mismatch=result.size_mismatch, boxes=tuple(result.boxes[:3])))
    return outcomes
