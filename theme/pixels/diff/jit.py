"""The pixelmatch kernel compiled by numba: one pass per pixel, no temporaries.

Same maths and operation order as kernel.py and the PyPI reference; with fastmath off numba never reorders
or fuses float64 operations (no FMA), so results are bit-identical (tests/unit/test_diff_parity.py).
"""

from __future__ import annotations

import numba  # optional: without numba this import fails and the numpy kernel is used
import numpy as np

_OPTS = dict(nogil=True, fastmath=False, boundscheck=False)


def _njit(fn):
    """numba.njit with the on-disk cache (next to this file, else numba's user-wide
    folder), or without it when neither is writable: numba raises at decoration
    time then, and compiling in every process is slower but still right."""
    try:
        return numba.njit(cache=True, **_OPTS)(fn)
    except RuntimeError:  # "cannot cache function ...: no locator available"
        return numba.njit(**_OPTS)(fn)


@_njit
def _blend(c, a):
    return 255.0 + (c - 255.0) * a


@_njit
def _yiq_of(img, y, x):
    """(Y, I, Q) of the pixel blended onto white: rgb2y/rgb2i/rgb2q in the reference."""
    r = np.float64(img[y, x, 0])
    g = np.float64(img[y, x, 1])
    b = np.float64(img[y, x, 2])
    a = np.float64(img[y, x, 3]) / 255.0
    r = _blend(r, a)
    g = _blend(g, a)
    b = _blend(b, a)
    yy = r * 0.29889531 + g * 0.58662247 + b * 0.11448223
    ii = r * 0.59597799 - g * 0.27417610 - b * 0.32180189
    qq = r * 0.21147017 - g * 0.52261711 + b * 0.31114694
    return yy, ii, qq


@_njit
def _brightness(img, y, x):
    r = np.float64(img[y, x, 0])
    g = np.float64(img[y, x, 1])
    b = np.float64(img[y, x, 2])
    a = np.float64(img[y, x, 3]) / 255.0
    r = _blend(r, a)
    g = _blend(g, a)
    b = _blend(b, a)
    return r * 0.29889531 + g * 0.58662247 + b * 0.11448223


@_njit
def _has_many_siblings(img32, x1, y1, width, height):
    x0 = max(x1 - 1, 0)
    y0 = max(y1 - 1, 0)
    x2 = min(x1 + 1, width - 1)
    y2 = min(y1 + 1, height - 1)
    zeroes = 1 if (x1 == x0 or x1 == x2 or y1 == y0 or y1 == y2) else 0
    centre = img32[y1, x1]
    for x in range(x0, x2 + 1):
        for y in range(y0, y2 + 1):
            if x == x1 and y == y1:
                continue
            if img32[y, x] == centre:
                zeroes += 1
            if zeroes > 2:
                return True
    return False


@_njit
def _antialiased(img, img32, other32, x1, y1, width, height):
    x0 = max(x1 - 1, 0)
    y0 = max(y1 - 1, 0)
    x2 = min(x1 + 1, width - 1)
    y2 = min(y1 + 1, height - 1)
    zeroes = 1 if (x1 == x0 or x1 == x2 or y1 == y0 or y1 == y2) else 0
    min_d = 0.0
    max_d = 0.0
    min_x = min_y = max_x = max_y = 0
    centre = img32[y1, x1]
    yc = 0.0
    have_yc = False  # the centre's brightness, computed when a neighbour differs
    for x in range(x0, x2 + 1):  # x outer, y inner: the reference's order
        for y in range(y0, y2 + 1):
            if x == x1 and y == y1:
                continue
            if img32[y, x] == centre:
                delta = 0.0
            else:
                if not have_yc:
                    yc = _brightness(img, y1, x1)
                    have_yc = True
                delta = yc - _brightness(img, y, x)
            if delta == 0:
                zeroes += 1
                if zeroes > 2:
                    return False
            elif delta < min_d:
                min_d = delta
                min_x = x
                min_y = y
            elif delta > max_d:
                max_d = delta
                max_x = x
                max_y = y
    if min_d == 0 or max_d == 0:
        return False
    return (_has_many_siblings(img32, min_x, min_y, width, height)
            and _has_many_siblings(other32, min_x, min_y, width, height)) or (
        _has_many_siblings(img32, max_x, max_y, width, height)
        and _has_many_siblings(other32, max_x, max_y, width, height))


@_njit
def diff_rows(a8, b8, a32, b32, out, out_idx, draw, indexed, y0, y1, limit, include_aa,
              alpha, aa_rgb, diff_rgb, diff_mask, fail_fast, row_counts, cells, cell):
    """Rows y0..y1 of pixelmatch. Returns (count, flat index of first counted or -1).

    The full-size diff image is drawn only if `draw`: into `out` (H, W, 4) RGBA, or,
    if `indexed`, into `out_idx` (H, W) as palette indices (kernel.index_palette:
    grey level g -> g, diff colour -> 0, aa colour -> 1). `row_counts` (H,) and
    `cells` (ceil(H/cell), ceil(W/cell)) receive counted pixels, for compare().
    """
    height, width = a32.shape
    count = 0
    gray_key = np.uint32(0)
    gray_val = np.uint8(0)
    have_gray = False
    # the colour distance depends on the two pixel values only: reuse it along runs
    # of the same pair (a page where everything changed is mostly long runs)
    last_p = np.uint32(0)
    last_q = np.uint32(0)
    last_hot = False
    for y in range(y0, y1):
        for x in range(width):
            p = a32[y, x]
            q = b32[y, x]
            hot = False
            if p != q:
                if p == last_p and q == last_q:
                    hot = last_hot
                else:
                    y1_, i1, q1 = _yiq_of(a8, y, x)
                    y2_, i2, q2 = _yiq_of(b8, y, x)
                    dy = y1_ - y2_
                    di = i1 - i2
                    dq = q1 - q2
                    delta = 0.5053 * dy * dy + 0.299 * di * di + 0.1957 * dq * dq
                    hot = delta > limit
                    last_p = p
                    last_q = q
                    last_hot = hot
            if hot:
                aa = False
                if not include_aa:
                    # antialiased() is False whenever 3+ neighbours equal the centre
                    # (the border counting as one), whatever the scan order: count them
                    # here first. Most changed pixels stop here, saving a call in which numba
                    # increfs and decrefs three arrays (measured: benchmarks/README.md).
                    nx0 = max(x - 1, 0)
                    ny0 = max(y - 1, 0)
                    nx2 = min(x + 1, width - 1)
                    ny2 = min(y + 1, height - 1)
                    za = 1 if (x == nx0 or x == nx2 or y == ny0 or y == ny2) else 0
                    zb = za
                    # only "more than 2" matters, so stop counting once both are: in a
                    # flat area that is after 3 of the 8 neighbours (a page where
                    # everything changed is mostly flat areas)
                    for nx in range(nx0, nx2 + 1):
                        if za > 2 and zb > 2:
                            break
                        for ny in range(ny0, ny2 + 1):
                            if nx == x and ny == y:
                                continue
                            if a32[ny, nx] == p:
                                za += 1
                            if b32[ny, nx] == q:
                                zb += 1
                    aa = (za <= 2 and _antialiased(a8, a32, b32, x, y, width, height)) or (
                        zb <= 2 and _antialiased(b8, b32, a32, x, y, width, height))
                if aa:
                    if draw and indexed:
                        out_idx[y, x] = 1  # kernel.AA_INDEX
                    elif draw and not diff_mask:
                        out[y, x, 0] = aa_rgb[0]
                        out[y, x, 1] = aa_rgb[1]
                        out[y, x, 2] = aa_rgb[2]
                        out[y, x, 3] = 255
                else:
                    if draw and indexed:
                        out_idx[y, x] = 0  # kernel.DIFF_INDEX
                    elif draw:
                        out[y, x, 0] = diff_rgb[0]
                        out[y, x, 1] = diff_rgb[1]
                        out[y, x, 2] = diff_rgb[2]
                        out[y, x, 3] = 255
                    count += 1
                    row_counts[y] += 1
                    cells[y // cell, x // cell] += 1
                    if fail_fast:
                        return count, y * width + x
            elif draw and not diff_mask:
                # draw_gray_pixel depends on the pixel value only: reuse it along runs
                if not have_gray or p != gray_key:
                    r = np.float64(a8[y, x, 0])
                    g = np.float64(a8[y, x, 1])
                    b = np.float64(a8[y, x, 2])
                    yy = r * 0.29889531 + g * 0.58662247 + b * 0.11448223
                    val = 255.0 + (yy - 255.0) * (alpha * np.float64(a8[y, x, 3]) / 255.0)
                    gray_val = np.uint8(np.int64(val))
                    gray_key = p
                    have_gray = True
                if indexed:
                    out_idx[y, x] = gray_val
                    continue
                out[y, x, 0] = gray_val
                out[y, x, 1] = gray_val
                out[y, x, 2] = gray_val
                out[y, x, 3] = 255
    return count, -1


@_njit
def palette_indices(img32, indices, palette):
    """Map each pixel to a palette slot (first-seen order); -1 if over 256 colours.

    A small open-addressing hash table keeps this one pass even when colours
    change at every pixel; runs of one colour skip the lookup.
    """
    size = 1024
    keys = np.zeros(size, np.uint32)
    slots = np.full(size, -1, np.int32)
    n = 0
    last_key = np.uint32(0)
    last_slot = -1
    height, width = img32.shape
    for y in range(height):
        for x in range(width):
            p = img32[y, x]
            if last_slot < 0 or p != last_key:
                h = (np.uint64(p) * np.uint64(2654435761)) % np.uint64(size)
                h = np.int64(h)
                while slots[h] >= 0 and keys[h] != p:
                    h = (h + 1) % size
                if slots[h] < 0:
                    if n == 256:
                        return -1
                    keys[h] = p
                    slots[h] = n
                    palette[n] = p
                    n += 1
                last_key = p
                last_slot = slots[h]
            indices[y, x] = last_slot
    return n
