"""Screenshot-like synthetic image pairs for the diff benchmark.

The pairs follow benchmarks/README.md ("text lines shifted 1 px plus one real box
change, ~1 % of pixels differ"): a white page with lines of dark, anti-aliased
"glyphs"; in the second image some paragraphs are moved right by one pixel (what a
sub-pixel layout change does) and one box changes colour (a real change).
Deterministic: the same arguments always give the same arrays.
"""

from __future__ import annotations

import numpy as np

LINE = 24  # px per text line, like 16 px text at 1.5 line height
GLYPH_H = 12


def page(width: int, height: int, seed: int = 1) -> np.ndarray:
    """A white RGBA page with text-like lines: solid glyph cores and grey edges."""
    rng = np.random.default_rng(seed)
    img = np.full((height, width, 4), 255, np.uint8)
    for top in range(8, height - LINE, LINE):
        if rng.random() < 0.15:  # paragraph gap
            continue
        x = 40
        right = width - 40 - int(rng.integers(0, 300))
        while x < right:
            w = int(rng.integers(3, 9))
            _glyph(img, top, x, w, int(rng.integers(20, 60)))
            x += w + int(rng.integers(1, 3)) + (6 if rng.random() < 0.18 else 0)
    return img


def _glyph(img: np.ndarray, top: int, x: int, w: int, ink: int) -> None:
    img[top:top + GLYPH_H, x:x + w, :3] = ink
    # one-pixel anti-aliased edges left and right, as a font rasteriser leaves them
    img[top:top + GLYPH_H, x - 1, :3] = np.minimum(img[top:top + GLYPH_H, x - 1, :3], 170)
    img[top:top + GLYPH_H, x + w, :3] = np.minimum(img[top:top + GLYPH_H, x + w, :3], 200)


def screenshot_pair(width: int, height: int, *, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(expected, actual): some paragraphs shifted 1 px right plus one box recoloured."""
    a = page(width, height, seed)
    b = a.copy()
    rng = np.random.default_rng(seed + 1)
    step = 12 * LINE
    for top in range(0, height, step):
        if rng.random() < 0.5:  # about half of the blocks move by one pixel
            band = slice(top, min(top + 3 * LINE, height))
            b[band, 1:] = a[band, :-1]
    box_y, box_x = height // 3, width // 4
    b[box_y:box_y + 60, box_x:box_x + 240] = (30, 90, 200, 255)
    return a, b


def heavy_pairs(width: int, height: int, seed: int = 1) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Worst cases: every pixel different, and the whole page shifted down by 1 px."""
    a = page(width, height, seed)
    inverted = a.copy()
    inverted[..., :3] = 255 - a[..., :3]
    shifted = np.full_like(a, 255)
    shifted[1:] = a[:-1]
    return {"all pixels differ": (a, inverted), "page shifted 1 px": (a, shifted)}
