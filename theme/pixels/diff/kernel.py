"""pixelmatch, vectorised with numpy, bit-identical to the PyPI package 0.4.0 (Mapbox, ISC).

Every float expression keeps the reference's operation order in float64: YIQ distance after
blending onto white, `> 35215·threshold²`, anti-aliasing neighbours visited x outer, y inner,
ties to the first; the diff's grey uses the unblended first image. Work goes in row bands.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

import numpy as np

RGB = tuple[int, int, int]
# Coordinate arrays of the pixels being looked at: rows and columns, same shape.
Coords = np.ndarray

# pixelmatch/utils.py: rgb2y, rgb2i, rgb2q and color_delta weights
_Y = (0.29889531, 0.58662247, 0.11448223)
_I = (0.59597799, 0.27417610, 0.32180189)
_Q = (0.21147017, 0.52261711, 0.31114694)
_WY, _WI, _WQ = 0.5053, 0.299, 0.1957
MAX_YIQ_DELTA = 35215  # the largest possible value of the distance above

BAND_ROWS = 256  # 1280 px wide: ~1.3 MB per image band, fits in L2 with temporaries
# (dx, dy) in the reference's scan order: `for x in ...: for y in ...`
_NEIGHBOURS = tuple((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy)


@dataclass(frozen=True)
class Style:
    """How the diff image is drawn (pixelmatch's output options)."""

    alpha: float = 0.1
    aa_color: RGB = (255, 255, 0)
    diff_color: RGB = (255, 0, 0)
    diff_mask: bool = False


@dataclass
class BandResult:
    """What one band found: counted pixels, and the first one for fail_fast."""

    count: int
    first: int | None  # flat index (y * width + x) of the first counted pixel
    ys: np.ndarray  # rows of counted pixels (absolute), row-major order
    xs: np.ndarray


def max_delta(threshold: float) -> float:
    """The reference's `maxDelta`, evaluated in the same order."""
    return MAX_YIQ_DELTA * threshold * threshold


# ------------------------------------------------------------ colour maths


def _blended(px: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """r, g, b as float64 after blending onto white (blendRGB in the reference)."""
    f = px.astype(np.float64)
    a = f[..., 3] / 255
    return 255 + (f[..., 0] - 255) * a, 255 + (f[..., 1] - 255) * a, 255 + (f[..., 2] - 255) * a


def _dot(w: tuple[float, float, float], r: np.ndarray, g: np.ndarray, b: np.ndarray,
         signs: tuple[int, int] = (1, 1)) -> np.ndarray:
    """w0·r ± w1·g ± w2·b, left to right, as rgb2y / rgb2i / rgb2q write it."""
    out = r * w[0]
    out = out + g * w[1] if signs[0] > 0 else out - g * w[1]
    return out + b * w[2] if signs[1] > 0 else out - b * w[2]


def brightness(px: np.ndarray) -> np.ndarray:
    """rgb2y of the blended pixel."""
    return _dot(_Y, *_blended(px))


def color_delta(p1: np.ndarray, p2: np.ndarray) -> np.ndarray:
    """The full YIQ distance between pixel arrays of shape (..., 4)."""
    c1, c2 = _blended(p1), _blended(p2)
    y = _dot(_Y, *c1) - _dot(_Y, *c2)
    i = _dot(_I, *c1, signs=(-1, -1)) - _dot(_I, *c2, signs=(-1, -1))
    q = _dot(_Q, *c1, signs=(-1, 1)) - _dot(_Q, *c2, signs=(-1, 1))
    delta: np.ndarray = _WY * y * y + _WI * i * i + _WQ * q * q
    return delta


def gray(px: np.ndarray, alpha: float) -> np.ndarray:
    """draw_gray_pixel: the first image's brightness faded towards white, truncated."""
    f = px.astype(np.float64)
    y = _dot(_Y, f[..., 0], f[..., 1], f[..., 2])
    val = 255 + (y - 255) * (alpha * f[..., 3] / 255)
    return val.astype(np.int64).astype(np.uint8)  # int() truncates towards zero


def gray_band(img: np.ndarray, alpha: float) -> np.ndarray:
    """gray() of every pixel of a band, (h, W) uint8, computed once per pixel that
    differs from the band's first pixel (the page background, nearly always).

    gray() depends on the pixel value only, and a screenshot is mostly one
    background colour: on text pages this skips ~80 % of the float64 work.
    """
    px32 = _u32(img)
    if px32.size == 0:
        return np.zeros(px32.shape, np.uint8)
    bg = px32[0, 0]
    out = np.full(px32.shape, gray(img[0, :1], alpha)[0], np.uint8)
    other = px32 != bg
    out[other] = gray(img[other], alpha)
    return out


# Indexed diff images (compare(diff_image="indexed")): one byte per pixel instead of
# four. A grey pixel is its own grey level; the two colours take the two darkest
# slots, which no grey reaches while alpha <= MAX_INDEXED_ALPHA (the faded grey is
# at least 255·(1 - alpha), truncated: >= 2).
DIFF_INDEX, AA_INDEX = 0, 1
MAX_INDEXED_ALPHA = 0.99


def index_palette(style: "Style") -> np.ndarray:
    """(256, 4) uint8 RGBA palette of an indexed diff image drawn with `style`."""
    pal = np.repeat(np.arange(256, dtype=np.uint8)[:, None], 4, axis=1)
    pal[:, 3] = 255
    pal[DIFF_INDEX, :3] = style.diff_color
    pal[AA_INDEX, :3] = style.aa_color
    return pal


def _grey_rgba32() -> np.ndarray:
    """uint32 pixel (g, g, g, 255) for each grey level g, in memory byte order."""
    quad = np.repeat(np.arange(256, dtype=np.uint8)[:, None], 4, axis=1)
    quad[:, 3] = 255
    return quad.view(np.uint32).ravel()


GREY_RGBA32 = _grey_rgba32()


# ------------------------------------------------------------ anti-aliasing


def _neighbour(ys: Coords, xs: Coords, dx: int, dy: int, height: int,
               width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coordinates of one neighbour (clipped) and whether it is inside the image."""
    nx, ny = xs + dx, ys + dy
    inside = (nx >= 0) & (nx < width) & (ny >= 0) & (ny < height)
    return np.clip(ny, 0, height - 1), np.clip(nx, 0, width - 1), inside


def _on_border(ys: Coords, xs: Coords, height: int, width: int) -> np.ndarray:
    """The reference starts its `zeroes` count at 1 on the image border."""
    border: np.ndarray = ((xs == 0) | (xs == width - 1) | (ys == 0) | (ys == height - 1)).astype(np.int8)
    return border


def has_many_siblings(img32: np.ndarray, ys: Coords, xs: Coords) -> np.ndarray:
    """True where a pixel has 3+ identical neighbours (border counting as one)."""
    height, width = img32.shape
    zeroes = _on_border(ys, xs, height, width)
    centre = img32[ys, xs]
    for dx, dy in _NEIGHBOURS:
        ny, nx, inside = _neighbour(ys, xs, dx, dy, height, width)
        zeroes += inside & (img32[ny, nx] == centre)
    return zeroes > 2


def antialiased(img: np.ndarray, other: np.ndarray, ys: Coords, xs: Coords) -> np.ndarray:
    """The reference's `antialiased(img, x, y, width, height, other)` for many pixels.

    It is False wherever 3+ neighbours equal the centre (the border counting as
    one), whatever the scan order: has_many_siblings() finds those with integer
    compares, and only the rest pay for the brightness maths.
    """
    result = np.zeros(ys.shape, bool)
    rest = np.flatnonzero(~has_many_siblings(_u32(img), ys, xs))
    if rest.size:
        result[rest] = _antialiased(img, other, ys[rest], xs[rest])
    return result


def _antialiased(img: np.ndarray, other: np.ndarray, ys: Coords, xs: Coords) -> np.ndarray:
    height, width = img.shape[:2]
    zeroes = _on_border(ys, xs, height, width)
    centre = brightness(img[ys, xs])
    min_d = np.zeros(ys.shape)
    max_d = np.zeros(ys.shape)
    min_y, min_x = ys.copy(), xs.copy()
    max_y, max_x = ys.copy(), xs.copy()
    for dx, dy in _NEIGHBOURS:
        ny, nx, inside = _neighbour(ys, xs, dx, dy, height, width)
        d = centre - brightness(img[ny, nx])
        zeroes += inside & (d == 0)
        darker = inside & (d < min_d)  # strict: the first darkest in scan order stays
        brighter = inside & (d > max_d)
        min_d = np.where(darker, d, min_d)
        min_y, min_x = np.where(darker, ny, min_y), np.where(darker, nx, min_x)
        max_d = np.where(brighter, d, max_d)
        max_y, max_x = np.where(brighter, ny, max_y), np.where(brighter, nx, max_x)
    result = (zeroes <= 2) & (min_d < 0) & (max_d > 0)
    idx = np.flatnonzero(result)
    if idx.size:
        img32, other32 = _u32(img), _u32(other)
        at_min = has_many_siblings(img32, min_y[idx], min_x[idx]) & has_many_siblings(
            other32, min_y[idx], min_x[idx])
        at_max = has_many_siblings(img32, max_y[idx], max_x[idx]) & has_many_siblings(
            other32, max_y[idx], max_x[idx])
        result[idx] = at_min | at_max
    return result


def _u32(img: np.ndarray) -> np.ndarray:
    """(H, W, 4) uint8 → (H, W) uint32 view: one compare per pixel."""
    return img.view(np.uint32).reshape(img.shape[:2])


# ------------------------------------------------------------ the band loop


def diff_band(img1: np.ndarray, img2: np.ndarray, out: np.ndarray | None, y0: int, y1: int, limit: float,
              include_aa: bool, style: Style) -> BandResult:
    """Compare rows y0..y1; draw them into `out` (same band) when it is not None.

    `out` is (h, W, 4) RGBA, or (h, W) uint8 palette indices (see index_palette).
    """
    height, width = img1.shape[:2]
    indexed = out is not None and out.ndim == 2
    neq = _u32(img1[y0:y1]) != _u32(img2[y0:y1])
    ys, xs = np.nonzero(neq)
    empty = np.zeros(0, np.intp)
    if out is not None and not style.diff_mask:
        grey = gray_band(img1[y0:y1], style.alpha)
        if indexed:
            out[...] = grey
        else:
            np.take(GREY_RGBA32, grey, out=_u32(out))
    if ys.size == 0:
        return BandResult(0, None, empty, empty)
    ys = ys + y0
    hot = color_delta(img1[ys, xs], img2[ys, xs]) > limit
    ys, xs = ys[hot], xs[hot]
    aa = np.zeros(ys.shape, bool)
    if not include_aa and ys.size:
        aa = antialiased(img1, img2, ys, xs)
        rest = np.flatnonzero(~aa)
        aa[rest] = antialiased(img2, img1, ys[rest], xs[rest])
    counted = ~aa
    dys, dxs = ys[counted], xs[counted]
    if out is not None and indexed:
        out[ys[aa] - y0, xs[aa]] = AA_INDEX
        out[dys - y0, dxs] = DIFF_INDEX
    elif out is not None:
        if not style.diff_mask:
            out[ys[aa] - y0, xs[aa], :3] = style.aa_color
            out[ys[aa] - y0, xs[aa], 3] = 255
        out[dys - y0, dxs, :3] = style.diff_color
        out[dys - y0, dxs, 3] = 255
    first = int(dys[0]) * width + int(dxs[0]) if dys.size else None
    return BandResult(int(dys.size), first, dys, dxs)


def _workers() -> int:
    return max(1, min(2, os.cpu_count() or 1))


CELL = 8  # px per side of a cell of the coarse change map compare() builds boxes from


@dataclass
class Tally:
    """Where the counted pixels are: per row, and per CELL×CELL cell."""

    rows: np.ndarray  # (H,) int32
    cells: np.ndarray  # (ceil(H/CELL), ceil(W/CELL)) int32

    @classmethod
    def empty(cls, height: int, width: int) -> "Tally":
        return cls(np.zeros(height, np.int32),
                   np.zeros((-(-height // CELL), -(-width // CELL)), np.int32))

    def add(self, ys: np.ndarray, xs: np.ndarray) -> None:
        np.add.at(self.rows, ys, 1)
        np.add.at(self.cells, (ys // CELL, xs // CELL), 1)


class RowKernel(Protocol):
    """A module whose diff_rows runs the whole kernel over a band of rows: theme.pixels.diff.jit
    (numba), or the one pixels/aot.py compiled ahead of time. Its arguments are as _numba_band
    passes them (their C types: aot.EXPORTS); it returns (count, first counted pixel)."""

    diff_rows: Callable[..., tuple[int, int]]


def _jit() -> RowKernel | None:
    """The numba kernel module, or None when numba is not installed."""
    try:
        from . import jit
    except ImportError:
        return None
    return jit


def _aot() -> RowKernel | None:
    """The kernel compiled ahead of time (pixels/aot.py; built on first use), or None."""
    from .. import aot

    return aot.get()


def available_engines() -> list[str]:
    engines = ["numpy"]
    if _jit() is not None:
        engines.append("numba")
        if _aot() is not None:
            engines.append("aot")
    return engines


def compiled(engine: str) -> RowKernel | None:
    """The module whose diff_rows runs the kernel for `engine`, or None for numpy.

    "auto": the ahead-of-time module (no start-up cost), else the JIT, else numpy.
    """
    if engine == "numpy":
        return None
    if engine == "aot":
        module = _aot()
        if module is None:
            raise ValueError("engine='aot' needs numba and a C compiler for its first build")
        return module
    if engine == "numba":
        module = _jit()
        if module is None:
            raise ValueError("engine='numba' needs the numba package")
        return module
    if engine != "auto":
        raise ValueError(f"engine must be auto, aot, numba or numpy, got {engine!r}")
    return _aot() or _jit()


def run(img1: np.ndarray, img2: np.ndarray, out: np.ndarray | None, *, threshold: float = 0.1,
        include_aa: bool = False, style: Style = Style(), fail_fast: bool = False,
        tally: Tally | None = None, engine: str = "auto") -> int:
    """Diff two (H, W, 4) uint8 arrays; draw into `out` if given: (H, W, 4) RGBA, or
    (H, W) uint8 palette indices (index_palette(style); not with diff_mask or fail_fast).

    Returns pixelmatch's count (1 at most with fail_fast). `tally`, if given,
    receives where the counted pixels are. engine: "auto", "aot", "numba" or "numpy"
    (see compiled(); the compiled kernels are 2-4x faster and need no temporaries).
    """
    height, width = img1.shape[:2]
    if out is not None and out.ndim == 2 and (
            style.diff_mask or fail_fast or not 0 <= style.alpha <= MAX_INDEXED_ALPHA):
        raise ValueError("an indexed diff image needs diff_mask=False, fail_fast=False "
                         f"and 0 <= alpha <= {MAX_INDEXED_ALPHA}")
    limit = max_delta(threshold)
    bands = [(y, min(y + BAND_ROWS, height)) for y in range(0, height, BAND_ROWS)]
    module = compiled(engine)
    if module is not None and engine == "auto" and not all(
            x.flags.c_contiguous for x in (img1, img2) + ((out,) if out is not None else ())):
        module = _jit()  # the ahead-of-time module takes C-contiguous arrays only
    if module is not None:
        one = _numba_band(module, img1, img2, out, limit, include_aa, style, fail_fast, tally)
    else:
        one = _numpy_band(img1, img2, out, limit, include_aa, style, fail_fast, tally)
    if fail_fast:  # in order, and stop at the first counted pixel like the reference
        for band in bands:
            if one(band):
                return 1
        return 0
    if len(bands) > 1 and _workers() > 1:
        with ThreadPoolExecutor(_workers()) as pool:
            return sum(pool.map(one, bands))
    return sum(map(one, bands))


# One band (y0, y1) checked: the pixels it counted.
BandJob = Callable[[tuple[int, int]], int]


def _numba_band(jit: RowKernel, img1: np.ndarray, img2: np.ndarray, out: np.ndarray | None, limit: float,
                include_aa: bool, style: Style, fail_fast: bool, tally: Tally | None) -> BandJob:
    height, width = img1.shape[:2]
    a32, b32 = _u32(img1), _u32(img2)
    draw = out is not None
    indexed = out is not None and out.ndim == 2
    rgba = out if out is not None and not indexed else np.zeros((1, 1, 4), np.uint8)
    idx = out if out is not None and indexed else np.zeros((1, 1), np.uint8)
    aa_rgb = np.array(style.aa_color, np.uint8)
    diff_rgb = np.array(style.diff_color, np.uint8)
    t = tally or Tally(np.zeros(height, np.int32), np.zeros((-(-height // CELL), -(-width // CELL)), np.int32))

    def one(band: tuple[int, int]) -> int:
        count, _first = jit.diff_rows(
            img1, img2, a32, b32, rgba, idx, draw, indexed, band[0], band[1], limit, include_aa,
            float(style.alpha), aa_rgb, diff_rgb, style.diff_mask, fail_fast, t.rows, t.cells, CELL)
        return count

    return one


def _numpy_band(img1: np.ndarray, img2: np.ndarray, out: np.ndarray | None, limit: float, include_aa: bool,
                style: Style, fail_fast: bool, tally: Tally | None) -> BandJob:
    width = img1.shape[1]

    def one(band: tuple[int, int]) -> int:
        y0, y1 = band
        if not fail_fast or out is None:
            r = diff_band(img1, img2, out[y0:y1] if out is not None else None,
                          y0, y1, limit, include_aa, style)
        else:  # draw nothing after the first counted pixel
            target = out[y0:y1].copy()
            r = diff_band(img1, img2, target, y0, y1, limit, include_aa, style)
            stop = (r.first - y0 * width + 1) if r.first is not None else target.size // 4
            out[y0:y1].reshape(-1, 4)[:stop] = target.reshape(-1, 4)[:stop]
        if fail_fast and r.count:
            r = BandResult(1, r.first, r.ys[:1], r.xs[:1])
        if tally is not None and r.count:
            tally.add(r.ys, r.xs)
        return r.count

    return one
