"""Sub-pixel phase: tell a region that moved by a fraction of a pixel from one that changed.

Chromium snaps what it paints to whole pixels: a region pushed down by half a pixel re-snaps though unchanged
(a blank row moves, a fraction bar spans two rows; benchmarks/README.md): it is re-rendered at its baseline's phase.
So are its frames (capture/js/frames_of.js): Chromium snaps a contained ancestor's offset on its own, so the
Distill runtime's `d-article { contain: layout style }` moved by a fraction above a formula shifts its superscripts
by a pixel even with the formula itself back on its phase.
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from ..capture.model import Capture, Failure, Frames, Nudges, Progress, Renderer, Target
from ..capture.naming import Variant
from ..core.config import Tolerance
from ..core.errors import ImageError
from ..pixels import diff as diff_mod
from .expected import ExpectedImages

STEP = 1 / 64  # Chromium's LayoutUnit: every box edge is a multiple of it

Box = tuple[float, float, float, float]  # x, y, w, h in CSS px


def phase_offset(baseline: Sequence[float], current: Sequence[float]) -> tuple[float, float] | None:
    """The (dx, dy), each in [-0.5, 0.5), that puts `current`'s top-left corner (a box or a
    corner: x, y first) on `baseline`'s sub-pixel phase; None when it is already there."""
    dx, dy = _toward(baseline[0], current[0]), _toward(baseline[1], current[1])
    return None if dx == 0 and dy == 0 else (dx, dy)


def _toward(target: float, value: float) -> float:
    d = (target - value) % 1.0
    if d >= 0.5:
        d -= 1.0
    d = round(d / STEP) * STEP  # measured boxes are multiples of STEP; drop float noise
    return 0.0 if abs(d) < STEP / 2 else d


def recorded_boxes(expected: ExpectedImages, folder: str) -> dict[str, Box]:
    """Region path ("code/intro.png") -> the CSS box its expected image was captured at."""
    return expected.boxes(folder)


# Not a tolerance, which would also pass a real 1-px change: a region that differs *and* sits (or has a
# frame) at another phase than its baseline's recorded box (store.py "box", "frames") is captured once
# more, moved by relative positioning onto that phase, and compared again; one extra capture per variant,
# only when needed, and of only the tiles those regions lie in (Target.rows).
def plan(expected: ExpectedImages, folder: str, capture: Capture,
         tolerance_for: Callable[[str], Tolerance]) -> dict[str, Target]:
    """The nudges a second capture of `capture`'s variant needs against the expected images
    (the baseline store, or anything with read(key), boxes(folder) and frames(folder), such
    as a base revision's captures): {region path: Target} (see plan_against)."""

    def expected_of(path: str) -> np.ndarray | None:
        try:
            return expected.read(f"{folder}/{path}")
        except ImageError:
            return None  # the check itself reports the corrupt file

    return plan_against(capture, expected.boxes(folder), expected_of, tolerance_for, expected.frames(folder))


def plan_against(capture: Capture, recorded: Mapping[str, Box], expected_of: Callable[[str], np.ndarray | None],
                 tolerance_for: Callable[[str], Tolerance],
                 recorded_frames: Mapping[str, Frames] | None = None) -> dict[str, Target]:
    """{region path: where to put it back} for each region of `capture` that differs from its
    expected image (`expected_of(path)`) while it, or one of its frames, is at another phase
    than `recorded[path]` (`recorded_frames[path]`: frames count only where there are as many
    as now; a baseline recorded before frames were has none)."""
    out: dict[str, Target] = {}
    for region in capture.regions:
        path = region.path.as_posix()
        if region.css_box is None or path not in recorded:
            continue
        frames = (recorded_frames or {}).get(path)
        if frames is not None and len(frames) != len(region.frames):
            frames = None
        if phase_offset(recorded[path], region.css_box) is None and not _frames_moved(frames, region.frames):
            continue
        expected = expected_of(path)
        if expected is None:
            continue
        actual = np.ascontiguousarray(capture.crop(region))
        if not diff_mod.compare(expected, actual, tolerance_for(region.key), diff_image=False).matches:
            _, y, _, h = region.box
            out[path] = Target(recorded[path][0], recorded[path][1], frames, rows=(y, y + h))
    return out


def _frames_moved(recorded: Frames | None, current: Frames) -> bool:
    return recorded is not None and any(phase_offset(r, c) is not None for r, c in zip(recorded, current, strict=True))


def realigned(capture: Capture, recorded: Mapping[str, Box]) -> dict[str, np.ndarray]:
    """Crops of the regions a nudged capture moved that now sit on their baseline's phase.

    A region whose element could not be moved (absolute, fixed, sticky), or that
    did not land on the phase (a transform in between), is left out: its check
    then compares the page as it is, as always. So is one outside the tiles taken
    (Capture.rows: only those around the nudged regions are)."""
    out: dict[str, np.ndarray] = {}
    for region in capture.regions:
        path = region.path.as_posix()
        if path not in capture.nudged or path not in recorded or region.css_box is None:
            continue
        if not capture.holds(region.box):
            continue
        if phase_offset(recorded[path], region.css_box) is None:
            out[path] = np.ascontiguousarray(capture.crop(region))
    return out


def realign_all(session: Renderer, shots: Iterable[Capture], expected: ExpectedImages,
                tolerance_for: Callable[[str], Tolerance],
                progress: Progress | None = None) -> dict[Variant, dict[str, np.ndarray]]:
    """For captures already taken: {variant: {region path: realigned crop}}, with one more
    capture (all of them overlapped, as capture_all does) for each variant that has
    regions to realign against `expected` (see plan), none for the others."""
    shots = list(shots)
    nudges: dict[Variant, Nudges] = {}
    recorded: dict[Variant, dict[str, Box]] = {}
    for shot in shots:
        folder = shot.variant.folder.as_posix()
        wanted = plan(expected, folder, shot, tolerance_for)
        if wanted:
            nudges[shot.variant] = wanted
            recorded[shot.variant] = expected.boxes(folder)
    if not nudges:
        return {}
    for variant, moved in nudges.items():
        if progress is not None:
            progress(f"{variant.folder}: {len(moved)} region(s) moved by a fraction of a pixel; "
                     "capturing them again at their expected images' sub-pixel position")
    # A variant whose second capture fails is checked as first captured (no realignment).
    return {again.variant: realigned(again, recorded[again.variant])
            for again in session.capture_all(list(nudges), progress, nudges, failures=True)
            if not isinstance(again, Failure)}


def compare(expected: np.ndarray, actual: np.ndarray, again: np.ndarray | None, tolerance: Tolerance,
            diff_image: bool | str = "indexed") -> tuple[diff_mod.DiffResult, bool]:
    """(DiffResult, realigned): `actual` against `expected`; when that fails and `again`
    (the same region re-rendered at the expected image's phase) matches, its result
    and True: the region only moved by a fraction of a pixel."""
    result = diff_mod.compare(expected, actual, tolerance, diff_image=diff_image)
    if not result.matches and again is not None:
        moved = diff_mod.compare(expected, again, tolerance, diff_image=False)
        if moved.matches:
            return moved, True
    return result, False


__all__ = ["STEP", "compare", "phase_offset", "plan", "plan_against", "realign_all", "realigned", "recorded_boxes"]
