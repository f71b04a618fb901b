"""compare(expected, actual, tolerance) -> DiffResult: the verdict every caller uses.

Counting follows pixelmatch (threshold, anti-aliasing) after aligning shifted rows (shift.py); a comparison
passes when the sizes agree and at most max(max_diff_pixels, max_diff_ratio × total) pixels differ (Playwright).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...core.config import Tolerance
from ..resident import file_backed, release
from . import kernel, shift
from .boxes import boxes_of

HALO = kernel.CELL  # rows of context around a band (anti-aliasing reads 2 rows away)
ALIGNED_BAND = 1024
# Taller images are compared a band at a time even unshifted (_aligned, same pixels as _direct):
# a page's rows are then dropped from memory as they are done.
DIRECT_ROWS = 8 * ALIGNED_BAND
DEFAULT_TOLERANCE = Tolerance()  # frozen, so one instance serves every default


@dataclass(frozen=True)
class IndexedImage:
    """A diff image as (H, W) uint8 palette indices and a (256, 4) RGBA palette:
    a quarter of the memory of RGBA, and an 8-bit palette PNG as it stands."""

    indices: np.ndarray
    palette: np.ndarray

    def rgba(self) -> np.ndarray:
        rgba: np.ndarray = self.palette[self.indices]
        return rgba


@dataclass(frozen=True)
class DiffResult:
    matches: bool
    diff_pixels: int
    total_pixels: int
    ratio: float
    expected_size: tuple[int, int]  # (width, height)
    actual_size: tuple[int, int]
    size_mismatch: bool
    boxes: list[tuple[int, int, int, int]]  # (x, y, w, h) in the actual image
    failed_rule: str | None
    shifts: list[shift.Shift] = field(default_factory=list)
    diff: np.ndarray | IndexedImage | None = field(default=None, repr=False, compare=False)
    boxes_truncated: int = 0  # boxes left out of `boxes` (there were too many)
    threshold: float = 0.1
    # How the rows were aligned, and the pixels counted in each actual row (inserted rows in full):
    # what a failed page's review needs (theme/check/bands.py), without aligning or scanning again.
    alignment: shift.Alignment | None = field(default=None, repr=False, compare=False)
    row_counts: np.ndarray | None = field(default=None, repr=False, compare=False)

    def summary(self) -> str:
        """One or two lines for a terminal."""
        if self.matches and self.diff_pixels == 0:
            return f"images match ({_size(self.actual_size)})"
        if self.matches:
            return f"images match within tolerance: {_n(self.diff_pixels)} pixels differ ({self.ratio:.2%})"
        lines = [self.failed_rule or "images differ"]
        if self.shifts:
            said = [d["text"] for d in shift.describe(self.shifts)]
            lines.append("; ".join(said[:3]) + (f"; and {len(said) - 3} more shifts" if len(said) > 3 else ""))
        elif self.boxes:
            x, y, w, h = self.boxes[0]
            more = len(self.boxes) - 1 + self.boxes_truncated
            lines.append(f"largest change at x={x} y={y} ({w}×{h} px)" + (f", {more} more areas" if more else ""))
        return "\n".join(lines)

    def to_json(self) -> dict[str, object]:
        return {
            "matches": self.matches,
            "diff_pixels": self.diff_pixels,
            "total_pixels": self.total_pixels,
            "ratio": round(self.ratio, 8),
            "threshold": self.threshold,
            "expected_size": list(self.expected_size),
            "actual_size": list(self.actual_size),
            "size_mismatch": self.size_mismatch,
            "failed_rule": self.failed_rule,
            "shifts": shift.describe(self.shifts),
            "boxes": [list(b) for b in self.boxes],
            "boxes_truncated": self.boxes_truncated,
        }


def _n(value: int) -> str:
    """1234567 -> '1 234 567' (a space groups digits in every locale)."""
    return f"{value:,}".replace(",", " ")


def _size(wh: tuple[int, int]) -> str:
    return f"{wh[0]}×{wh[1]}"


def compare(expected: np.ndarray, actual: np.ndarray, tolerance: Tolerance = DEFAULT_TOLERANCE, *,
            diff_image: bool | str = True, engine: str = "auto") -> DiffResult:
    """Compare two (H, W, 4) uint8 RGBA images; see the module docstring for the rules.

    diff_image: True gives `result.diff` as an (H, W, 4) RGBA array, "indexed" as an
    IndexedImage (one byte per pixel: 1280×120 000 costs 150 MB instead of 600 MB),
    False none. Identical images never get one.

    engine: "auto" (the ahead-of-time compiled kernel, else the numba JIT, else numpy),
    "aot", "numba" or "numpy" (see kernel.compiled()).
    """
    _check(expected, "expected")
    _check(actual, "actual")
    _new_diff((0, 0), diff_image)  # refuse a bad diff_image before any work
    exp_size = (expected.shape[1], expected.shape[0])
    act_size = (actual.shape[1], actual.shape[0])
    total = max(1, expected.shape[0] * expected.shape[1], actual.shape[0] * actual.shape[1])
    if exp_size == act_size and _identical(expected, actual):  # memory speed
        return _verdict(0, total, exp_size, act_size, [], None, None, tolerance)
    width = min(expected.shape[1], actual.shape[1])  # different widths: the overlapping columns
    exp_view, act_view = expected[:, :width], actual[:, :width]
    # Content pushed down by a taller heading is not "changed": aligned rows count by pixelmatch, inserted
    # and removed rows in full. With no shift and equal sizes that is exactly pixelmatch's count.
    alignment = shift.align(exp_view, act_view, engine)
    tally = kernel.Tally.empty(actual.shape[0], width)
    if exp_size == act_size and not alignment.shifts and actual.shape[0] <= DIRECT_ROWS:
        count, diff = _direct(expected, actual, tolerance, diff_image, tally, engine)
    elif exp_size == act_size and not alignment.shifts:  # a page: the same, a band at a time
        same_rows = np.arange(actual.shape[0])
        count, diff = _aligned(expected, actual, same_rows, 0, tolerance, diff_image, tally, engine)
    else:
        count, diff = _aligned(exp_view, act_view, alignment.pairs, alignment.removed, tolerance, diff_image,
                               tally, engine)
    return _verdict(count, total, exp_size, act_size, alignment.shifts, tally, diff, tolerance, alignment)


def identical(size: tuple[int, int], tolerance: Tolerance = DEFAULT_TOLERANCE) -> DiffResult:
    """The verdict compare() gives two identical images of `size` (width, height), for a
    caller that knows they are identical without reading both (their pixels' digests agree)."""
    return _verdict(0, max(1, size[0] * size[1]), size, size, [], None, None, tolerance)


def _identical(a: np.ndarray, b: np.ndarray) -> bool:
    """np.array_equal band by band: no full-size temporary, and an early exit."""
    for y in range(0, a.shape[0], 256):
        same = np.array_equal(a[y:y + 256], b[y:y + 256])
        release(a, y, y + 256)
        release(b, y, y + 256)
        if not same:
            return False
    return True


def _check(img: np.ndarray, name: str) -> None:
    if not isinstance(img, np.ndarray) or img.dtype != np.uint8 or img.ndim != 3 or img.shape[2] != 4:
        got = f"{img.dtype} array of shape {img.shape}" if isinstance(img, np.ndarray) else type(img).__name__
        raise ValueError(f"{name} must be an (H, W, 4) uint8 RGBA array, got {got}")


# An indexed diff image this large (a page's: 1280 x 132 000 is 169 MB) is file-backed and written
# a band at a time, each band dropped from resident memory (theme/pixels/resident.py); the review reads
# its bands back.
DIFF_FILE_BACKED_BYTES = 64 * 2**20


def _style() -> kernel.Style:
    return kernel.Style()


def _new_diff(shape: tuple[int, ...], diff_image: bool | str) -> np.ndarray | None:
    """An uninitialised diff image of `shape` (H, W): RGBA, indices or nothing."""
    if not diff_image:
        return None
    if diff_image == "indexed":
        # a page's is file-backed: its bands are dropped once written
        return file_backed(shape[0] * shape[1], DIFF_FILE_BACKED_BYTES)[0].reshape(shape[:2])
    if diff_image is True:
        return np.empty(shape[:2] + (4,), np.uint8)
    raise ValueError(f"diff_image must be True, False or 'indexed', got {diff_image!r}")


def _wrap(out: np.ndarray | None) -> np.ndarray | IndexedImage | None:
    if out is not None and out.ndim == 2:
        return IndexedImage(out, kernel.index_palette(_style()))
    return out


def _direct(expected: np.ndarray, actual: np.ndarray, tol: Tolerance, diff_image: bool | str, tally: kernel.Tally,
            engine: str) -> tuple[int, np.ndarray | IndexedImage | None]:
    """Same size, no shifted rows: exactly pixelmatch."""
    out = _new_diff(actual.shape, diff_image)
    count = kernel.run(np.ascontiguousarray(expected), np.ascontiguousarray(actual), out,
                       threshold=tol.threshold, include_aa=tol.include_aa, tally=tally, engine=engine)
    return count, _wrap(out)


def _aligned(expected: np.ndarray, actual: np.ndarray, all_pairs: np.ndarray, removed: int, tol: Tolerance,
             diff_image: bool | str, tally: kernel.Tally, engine: str) -> tuple[int, np.ndarray | IndexedImage | None]:
    """Diff each actual row against its paired expected row (`all_pairs`, as shift.Alignment's),
    band by band: each band's rows of a file-backed image are dropped from memory once done
    (theme/pixels/resident.py), so two whole pages are never resident at once.

    Inserted rows (no partner) count as different in full and are drawn in the
    diff colour; `removed` expected rows count in full too.
    """
    height, width = actual.shape[:2]
    out = _new_diff((height, width), diff_image)
    style = _style()
    count = removed * width
    for y0 in range(0, height, ALIGNED_BAND):
        y1 = min(y0 + ALIGNED_BAND, height)
        lo, hi = max(0, y0 - HALO), min(height, y1 + HALO)
        pairs = all_pairs[lo:hi]
        inserted = pairs < 0
        act, exp = _band_pair(expected, actual, pairs, inserted, lo, hi)
        band_out = _new_diff(act.shape, diff_image)
        local = kernel.Tally.empty(hi - lo, width)
        kernel.run(exp, act, band_out, threshold=tol.threshold, include_aa=tol.include_aa,
                   style=style, tally=local, engine=engine)
        inner = slice(y0 - lo, y1 - lo)
        rows = local.rows[inner] + np.where(inserted[inner], width, 0).astype(np.int32)
        tally.rows[y0:y1] += rows
        count += int(rows.sum())
        if band_out is not None and band_out.ndim == 2:
            band_out[inserted] = kernel.DIFF_INDEX
        elif band_out is not None:
            band_out[inserted, :, :3] = style.diff_color
            band_out[inserted, :, 3] = 255
        if out is not None and band_out is not None:
            out[y0:y1] = band_out[inner]
            release(out, y0, y1)
        _add_cells(tally, local, inserted, y0, y1, lo)
        release(actual, lo, hi)
        if (pairs >= 0).any():
            release(expected, int(pairs[~inserted].min()), int(pairs[~inserted].max()) + 1)
    return count, _wrap(out)


def _band_pair(expected: np.ndarray, actual: np.ndarray, pairs: np.ndarray, inserted: np.ndarray,
               lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """(actual rows lo..hi, their expected partners) as C-contiguous arrays for the kernel; an
    inserted row is its own partner (counted by the caller, not by the kernel). Rows paired in
    order are views, not copies (most of a page, when a note-box grew)."""
    act = np.ascontiguousarray(actual[lo:hi])
    if not len(expected):
        return act, act.copy()
    if not inserted.any() and len(pairs) and int(pairs[-1]) - int(pairs[0]) == len(pairs) - 1 and (
            np.diff(pairs) == 1).all():
        return act, np.ascontiguousarray(expected[int(pairs[0]):int(pairs[-1]) + 1])
    exp = np.ascontiguousarray(expected[np.where(inserted, 0, pairs)])
    exp[inserted] = act[inserted]
    return act, exp


def _add_cells(tally: kernel.Tally, local: kernel.Tally, inserted: np.ndarray, y0: int, y1: int, lo: int) -> None:
    """Move a band's cell counts (halo excluded) into the page's cell map."""
    cell = kernel.CELL
    c0, c1 = (y0 - lo) // cell, -(-(y1 - lo) // cell)
    tally.cells[y0 // cell:y0 // cell + (c1 - c0)] += local.cells[c0:c1]
    rows = np.flatnonzero(inserted[y0 - lo:y1 - lo]) + y0
    if rows.size:
        tally.cells[np.unique(rows // cell)] += 1


def _verdict(count: int, total: int, exp_size: tuple[int, int], act_size: tuple[int, int], shifts: list[shift.Shift],
             tally: kernel.Tally | None, diff: np.ndarray | IndexedImage | None, tol: Tolerance,
             alignment: shift.Alignment | None = None) -> DiffResult:
    # `count` holds removed rows and inserted rows in full, so after a shift it can pass the
    # larger image's area; a share of that area is never more than all of it.
    ratio = min(1.0, count / total)
    size_mismatch = exp_size != act_size
    allowance = max(tol.max_diff_pixels, tol.max_diff_ratio * total)  # Playwright's rule
    failed = None
    if size_mismatch:
        failed = f"sizes differ: expected {_size(exp_size)}, actual {_size(act_size)}"
        if count:
            failed += f"; {_n(count)} pixels differ ({ratio:.2%}) after aligning rows"
    elif count > allowance:
        if tol.max_diff_ratio * total > tol.max_diff_pixels:
            rule = f"max_diff_ratio = {tol.max_diff_ratio:g} ({_n(int(allowance))} pixels)"
        else:
            rule = f"max_diff_pixels = {_n(tol.max_diff_pixels)}"
        failed = (f"{_n(count)} pixels differ ({ratio:.2%}) beyond threshold {tol.threshold:g}, "
                  f"more than {rule}")
    boxes, dropped = boxes_of(tally.cells, kernel.CELL, act_size) if count and tally is not None else ([], 0)
    return DiffResult(matches=failed is None, diff_pixels=count, total_pixels=total, ratio=ratio,
                      expected_size=exp_size, actual_size=act_size, size_mismatch=size_mismatch,
                      boxes=boxes, failed_rule=failed, shifts=list(shifts), diff=diff,
                      boxes_truncated=dropped, threshold=tol.threshold, alignment=alignment,
                      row_counts=tally.rows if count and tally is not None else None)
