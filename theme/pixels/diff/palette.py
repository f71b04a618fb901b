"""A diff image as palette indices: it has few colours (27 greys at alpha 0.1, plus
the aa and diff colours), and an 8-bit palette PNG is a quarter of the bytes to
compress (pixels/images.py: ~4x faster to write than RGBA)."""

from __future__ import annotations

import numpy as np


def palette(rgba: np.ndarray, engine: str = "auto") -> tuple[np.ndarray, np.ndarray] | None:
    """(indices (H, W) uint8, palette (N, 4) uint8) for `rgba`, or None if > 256 colours."""
    rgba = np.ascontiguousarray(rgba)
    height, width = rgba.shape[:2]
    px = rgba.view(np.uint32).reshape(height, width)
    if engine == "numpy":
        return _numpy(px)
    try:
        from . import jit
    except ImportError:
        return _numpy(px)
    indices = np.empty((height, width), np.uint8)
    pal = np.zeros(256, np.uint32)
    n = jit.palette_indices(px, indices, pal)
    if n < 0:
        return None
    return indices, pal[:n].view(np.uint8).reshape(n, 4)


def _numpy(px: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    colours, inverse = np.unique(px, return_inverse=True)
    if len(colours) > 256:
        return None
    return inverse.reshape(px.shape).astype(np.uint8), colours.view(np.uint8).reshape(-1, 4)
