"""Boxes around changed areas, from the coarse map of changed cells the kernel fills.

Cells (kernel.CELL px square) holding a counted pixel are grouped by
8-connectivity after a one-cell dilation, so changes a few pixels apart (the
letters of one word) make one box. Bounded work: when more than MAX_CELLS cells
changed, the map is pooled 2×2 until it is small enough, and only the MAX_BOXES
largest boxes are returned.
"""

from __future__ import annotations

import numpy as np

MAX_BOXES = 50
MAX_CELLS = 20_000


def boxes_of(cells: np.ndarray, cell: int, size: tuple[int, int]) -> tuple[list[tuple[int, int, int, int]], int]:
    """((x, y, w, h) boxes in px, largest first, clipped to `size`), and how many were dropped."""
    hot = cells > 0
    scale = cell
    while hot.sum() > MAX_CELLS:  # pool 2×2: coarser boxes, bounded time
        h, w = hot.shape
        hot = np.pad(hot, ((0, h % 2), (0, w % 2)))
        hot = hot.reshape(hot.shape[0] // 2, 2, hot.shape[1] // 2, 2).any(axis=(1, 3))
        scale *= 2
    labels = _components(hot)
    found = []
    for (r0, r1, c0, c1) in labels:
        x, y = c0 * scale, r0 * scale
        w = min((c1 + 1) * scale, size[0]) - x
        h = min((r1 + 1) * scale, size[1]) - y
        found.append((x, y, w, h))
    found.sort(key=lambda b: (-b[2] * b[3], b[1], b[0]))
    return found[:MAX_BOXES], max(0, len(found) - MAX_BOXES)


def _components(hot: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Bounding (row0, row1, col0, col1) of each group of cells within one cell of each other."""
    rows, cols = np.nonzero(hot)
    index = {(int(r), int(c)): k for k, (r, c) in enumerate(zip(rows, cols))}
    parent = list(range(len(index)))

    def find(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    reach = [(dr, dc) for dr in range(-2, 3) for dc in range(-2, 3) if (dr, dc) > (0, 0)]
    for (r, c), k in index.items():
        for dr, dc in reach:  # dilation by one cell on each side: gaps of one cell join
            other = index.get((r + dr, c + dc))
            if other is not None:
                a, b = find(k), find(other)
                if a != b:
                    parent[a] = b
    bounds: dict[int, list[int]] = {}
    for (r, c), k in index.items():
        b = bounds.setdefault(find(k), [r, r, c, c])
        b[0], b[1], b[2], b[3] = min(b[0], r), max(b[1], r), min(b[2], c), max(b[3], c)
    return [tuple(b) for b in bounds.values()]
