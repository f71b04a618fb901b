"""Boxes around changed areas, from the kernel's coarse map of changed cells (kernel.CELL px square).

Cells are grouped by 8-connectivity after a one-cell dilation, so changes a few pixels apart (one word's
letters) make one box. Bounded work: over MAX_CELLS the map is pooled 2×2; the MAX_BOXES largest are kept.
"""

from __future__ import annotations

import numpy as np

MAX_BOXES = 50
MAX_CELLS = 20_000


def boxes_of(cells: np.ndarray, cell: int, size: tuple[int, int]) -> tuple[list[tuple[int, int, int, int]], int]:
    """((x, y, w, h) boxes in px, largest first, clipped to `size`), and how many were dropped."""
    hot: np.ndarray = cells > 0
    scale = cell
    while hot.sum() > MAX_CELLS:  # pool 2×2: coarser boxes, bounded time
        h, w = hot.shape
        hot = np.pad(hot, ((0, h % 2), (0, w % 2)))
        hot = np.asarray(hot.reshape(hot.shape[0] // 2, 2, hot.shape[1] // 2, 2).any(axis=(1, 3)))
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
    """Bounding (row0, row1, col0, col1) of each group of cells within two cells of
    each other (Chebyshev distance <= 2: a one-cell dilation on each side makes them
    overlap).

    Works on segments, not cells: within a row, hot cells at most 2 apart form one
    segment [a, b] (every cell of it is then within 1 of a hot cell), so a segment
    two rows away at most touches it exactly when its span meets [a - 2, b + 2].
    A text page has far fewer segments than cells, and this far faster than union-find
    over cells (measured: benchmarks/README.md).
    """
    rows, cols = np.nonzero(hot)  # row-major order
    if rows.size == 0:
        return []
    new = np.r_[True, (rows[1:] != rows[:-1]) | (cols[1:] - cols[:-1] > 2)]
    starts = np.flatnonzero(new)
    ends = np.r_[starts[1:], rows.size] - 1
    seg_r = rows[starts].tolist()
    seg_a = cols[starts].tolist()
    seg_b = cols[ends].tolist()
    parent = list(range(len(seg_r)))

    def find(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    first: dict[int, int] = {}  # row -> index of its first segment (segments are sorted by row, then column)
    for k, r in enumerate(seg_r):
        first.setdefault(r, k)
    n = len(seg_r)
    for k in range(n):
        r, a, b = seg_r[k], seg_a[k], seg_b[k]
        for dr in (1, 2):
            j = first.get(r + dr)
            while j is not None and j < n and seg_r[j] == r + dr:
                if seg_a[j] > b + 2:
                    break  # later segments of that row lie further right
                if seg_b[j] >= a - 2:
                    x, y = find(k), find(j)
                    if x != y:
                        parent[x] = y
                j += 1
    bounds: dict[int, list[int]] = {}
    for k in range(n):
        r = seg_r[k]
        b = bounds.setdefault(find(k), [r, r, seg_a[k], seg_b[k]])
        b[0], b[1] = min(b[0], r), max(b[1], r)
        b[2], b[3] = min(b[2], seg_a[k]), max(b[3], seg_b[k])
    return [(r0, r1, c0, c1) for r0, r1, c0, c1 in bounds.values()]
