"""PNG's five scanline filters undone in place, by numba (compiled ahead of time by aot.py).

Why: after libdeflate's inflate (images.py) this decodes a page faster than libspng, and widens Chromium's RGB
to RGBA in place (measured: benchmarks/README.md); tests/unit/test_images.py checks it against libpng and Pillow.
"""

from __future__ import annotations

import numba  # optional: without numba this import fails (images.py then uses libspng or Pillow)
import numpy as np


@numba.njit(nogil=True, boundscheck=False, cache=False)
def unfilter(buf, height, width, channels):
    """Decode `height` filtered scanlines of `width` 8-bit RGB (channels=3) or RGBA
    (4) pixels at the start of `buf` (each a filter byte, then the row) into RGBA
    at the start of `buf`, in place. `buf` holds max(H·(C·W+1), 4·W·H) bytes.
    Returns -1, or the first row whose filter type is unknown.

    Two passes, each in place. First the filters: row y's output (at y·C·W)
    starts before its input (at y·(C·W+1)+1) and is written left to right, so
    every byte written has been read, and row y-1's output, which Up, Average and
    Paeth read, lies wholly before row y's. Then, for RGB, the rows are widened
    to RGBA from the last pixel back: pixel k moves from 3k to 4k, never onto a
    pixel not yet moved. (One fused pass was slower: per-byte branches; benchmarks/README.md.)
    """
    stride = channels * width
    bpp = channels
    for y in range(height):
        src = y * (stride + 1) + 1
        dst = y * stride
        up = dst - stride  # row y-1, decoded
        kind = buf[src - 1]
        if kind == 0 or (kind == 2 and y == 0):  # None; Up of an all-zero row above
            for i in range(stride):
                buf[dst + i] = buf[src + i]
        elif kind == 1 or (kind == 4 and y == 0):  # Sub (Paeth picks "left" on row 0)
            for i in range(bpp):
                buf[dst + i] = buf[src + i]
            for i in range(bpp, stride):
                buf[dst + i] = buf[src + i] + buf[dst + i - bpp]
        elif kind == 2:  # Up: plus the byte above
            for i in range(stride):
                buf[dst + i] = buf[src + i] + buf[up + i]
        elif kind == 3:  # Average of left and above, rounded down
            for i in range(stride):
                left = np.int32(buf[dst + i - bpp]) if i >= bpp else np.int32(0)
                above = np.int32(buf[up + i]) if y > 0 else np.int32(0)
                buf[dst + i] = buf[src + i] + np.uint8((left + above) >> 1)
        elif kind == 4:  # Paeth: whichever of left, above, upper-left is nearest left+above-upper-left
            for i in range(bpp):
                buf[dst + i] = buf[src + i] + buf[up + i]  # left = upper-left = 0: above wins
            for i in range(bpp, stride):
                a = np.int32(buf[dst + i - bpp])
                b = np.int32(buf[up + i])
                c = np.int32(buf[up + i - bpp])
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                if pa <= pb and pa <= pc:
                    pred = a
                elif pb <= pc:
                    pred = b
                else:
                    pred = c
                buf[dst + i] = buf[src + i] + np.uint8(pred)
        else:
            return y
    if channels == 3:
        for k in range(width * height - 1, -1, -1):
            buf[4 * k + 3] = 255
            buf[4 * k + 2] = buf[3 * k + 2]
            buf[4 * k + 1] = buf[3 * k + 1]
            buf[4 * k] = buf[3 * k]
    return -1
