"""Boxes of changed cells: the segment-based grouping equals the plain definition
(cells within two cells of each other belong together) on random maps."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from theme.pixels.diff.boxes import _components


def by_definition(hot: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Flood fill over cells at Chebyshev distance <= 2: slow and obviously right."""
    cells = {(int(r), int(c)) for r, c in zip(*np.nonzero(hot), strict=True)}
    seen, groups = set(), []
    for start in sorted(cells):
        if start in seen:
            continue
        stack, members = [start], []
        seen.add(start)
        while stack:
            r, c = stack.pop()
            members.append((r, c))
            for dr in range(-2, 3):
                for dc in range(-2, 3):
                    n = (r + dr, c + dc)
                    if n in cells and n not in seen:
                        seen.add(n)
                        stack.append(n)
        rows = [m[0] for m in members]
        cols = [m[1] for m in members]
        groups.append((min(rows), max(rows), min(cols), max(cols)))
    return sorted(groups)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 25), st.integers(1, 25), st.floats(0, 0.4), st.integers(0, 2**32 - 1))
def test_groups_equal_the_definition(h, w, share, seed):
    hot = np.random.default_rng(seed).random((h, w)) < share
    assert sorted(_components(hot)) == by_definition(hot)


def test_gaps_of_one_cell_join_and_of_two_cells_do_not():
    hot = np.zeros((3, 12), bool)
    hot[1, [0, 2, 5, 9]] = True  # 0-2: one empty cell between; 2-5 and 5-9: two or more
    assert sorted(_components(hot)) == [(1, 1, 0, 2), (1, 1, 5, 5), (1, 1, 9, 9)]
