"""PNG's five scanline filters undone in place, by numba (compiled ahead of time by aot.py).

Why not a library's decoder: libspng (imagecodecs) takes 0.23 s for a 1280×16 000
page, and most of that is its zlib; libdeflate inflates the same stream in 65 ms,
so inflating with libdeflate and unfiltering here halves the decode (0.11 s),
which is most of `theme diff`'s time and of a check's on long pages. Only the
filters are done here; images.py parses the chunks and inflates, and every PNG
this path does not take (interlaced, palette, grey, 16-bit, tRNS) goes to libspng
or Pillow. tests/unit/test_images.py checks every filter against Pillow.

Optional: importing this module raises ImportError when numba is missing.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(nogil=True, boundscheck=False, cache=False)
def unfilter(buf, height, stride, bpp):
    """Decode `height` filtered scanlines in `buf` (each a filter byte then `stride`
    bytes) into their first height*stride bytes, in place; bpp = bytes per pixel.

    In place works because row y's output (at y*stride) starts before its input
    (at y*(stride+1)+1) and is written left to right: every byte written has been
    read, and row y-1's output, which the Up, Average and Paeth filters read, lies
    wholly before row y's. Returns -1, or the first row with an unknown filter type.
    """
    for y in range(height):
        src = y * (stride + 1) + 1
        dst = y * stride
        up = dst - stride  # row y-1, decoded
        kind = buf[src - 1]
        if kind == 0 or (kind == 2 and y == 0):  # None; Up of an all-zero row above
            for i in range(stride):
                buf[dst + i] = buf[src + i]
        elif kind == 1:  # Sub: plus the byte one pixel to the left
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
            for i in range(stride):
                a = np.int32(buf[dst + i - bpp]) if i >= bpp else np.int32(0)
                b = np.int32(buf[up + i]) if y > 0 else np.int32(0)
                c = np.int32(buf[up + i - bpp]) if i >= bpp and y > 0 else np.int32(0)
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
    return -1
