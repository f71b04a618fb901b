"""Rows inserted or removed between two page images: row hashes + patience alignment.

A heading grown by 14 px changes every pixel row below it, though nothing there changed. Aligning the rows'
hashes finds blocks of the same content at another height; a change of offset between blocks is a Shift.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import NotRequired, TypedDict

import numpy as np

from ..resident import release

MIN_BLOCK_ROWS = 8  # a shift is only reported between blocks this tall (no 1-row noise)
Token = tuple[int, int]  # a run of identical rows: (row hash, rows)
Block = tuple[int, int, int]  # (expected row, actual row, length): rows that match


class Moved(TypedDict):
    """A shift as report.json and the terminal say it (Shift.to_json, describe)."""

    y: int
    by: int
    text: str
    to: NotRequired[int]  # the last row of a run of 1-px snaps


@dataclass(frozen=True)
class Shift:
    """Content at and below expected row `y` appears `by` px lower (negative: higher)."""

    y: int  # row in the expected image
    by: int

    def __str__(self) -> str:
        way = "down" if self.by > 0 else "up"
        return f"content below y={self.y} moved {way} by {abs(self.by)} px"

    def to_json(self) -> Moved:
        return {"y": self.y, "by": self.by, "text": str(self)}


def describe(shifts: list[Shift]) -> list[Moved]:
    """The shifts as a reader should see them: a 1-px move undone by the next shift (rows that
    snapped differently after content above moved by a fraction of a pixel) is not a move,
    so runs of those become one line; real moves keep their own (Shift.to_json)."""
    out: list[Moved] = []
    i = 0
    while i < len(shifts):
        start = i
        while i + 1 < len(shifts) and abs(shifts[i].by) == 1 and shifts[i + 1].by == -shifts[i].by:
            i += 2
        if i > start:
            first, last, times = shifts[start].y, shifts[i - 1].y, (i - start) // 2
            out.append({"y": first, "by": 0, "to": last,
                        "text": f"rows y={first}–{last} snapped 1 px differently "
                                f"({times} time{'s' if times > 1 else ''}): content moved by a fraction of a pixel"})
            continue
        out.append(shifts[i].to_json())
        i += 1
    return out


@dataclass(frozen=True)
class Alignment:
    blocks: list[Block]  # increasing
    pairs: np.ndarray  # (H_actual,) expected row paired with each actual row, -1: inserted
    removed: int  # expected rows with no partner
    shifts: list[Shift]
    # row_hashes of the expected and actual images aligned (a failed page's review reuses them)
    hashes: tuple[np.ndarray, np.ndarray] = (np.zeros(0, np.uint64), np.zeros(0, np.uint64))


HASH_BAND = 2048  # rows per matrix product: bounded temporaries on odd widths or column slices


def row_hashes(img: np.ndarray, engine: str = "auto") -> np.ndarray:
    """One uint64 per pixel row of an (H, W, 4) uint8 image (or a column slice of one).

    The hash is a matrix-vector product mod 2**64: the row read as 64-bit words
    (two pixels each) times fixed odd per-word weights. Position-dependent (a
    row moved sideways hashes differently), and numpy's integer matmul runs at
    near memory speed without the numba JIT, far faster than blake2b per row or the
    JIT's start-up (measured: benchmarks/README.md). `engine`
    is accepted for symmetry with the kernel; every engine hashes the same way.
    """
    del engine
    height, width = img.shape[:2]
    out = np.zeros(height, np.uint64)
    if width == 0:
        return out
    words = width * 4 // 8 if width % 2 == 0 else width
    weights = _weights(words)
    for y0 in range(0, height, HASH_BAND):
        band = np.ascontiguousarray(img[y0:y0 + HASH_BAND]).reshape(-1, width * 4)
        if width % 2 == 0:
            vec = band.view(np.uint64)
        else:  # one pixel per word
            vec = band.view(np.uint32).astype(np.uint64)
        np.matmul(vec, weights, out=out[y0:y0 + len(band)])  # wraps mod 2**64
        release(img, y0, y0 + HASH_BAND)  # a file-backed page is read a band at a time
    return out


def _weights(words: int) -> np.ndarray:
    """Fixed odd 64-bit weights, one per word: splitmix64 of 1, 2, 3, ... (Steele et al.,
    "Fast splittable pseudorandom number generators", 2014), computed in numpy's
    wrapping uint64 arithmetic: the same in every run, without importing numpy.random."""
    z = np.arange(1, words + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    weights: np.ndarray = (z ^ (z >> np.uint64(31))) | np.uint64(1)
    return weights


def align(expected: np.ndarray, actual: np.ndarray, engine: str = "auto") -> Alignment:
    """Align the rows of two images of the same width (H, W, 4)."""
    with ThreadPoolExecutor(2) as pool:  # numba releases the GIL: both images at once
        ha, hb = pool.map(lambda img: row_hashes(img, engine), (expected, actual))
    (ta, ba), (tb, bb) = _runs(ha), _runs(hb)
    a, b = ha.tolist(), hb.tolist()
    blocks = _extend(_merge(sorted(_rows_of(_patience(ta, tb), ba, bb))), a, b)
    pairs = np.full(len(b), -1, np.int64)
    i_prev = j_prev = 0
    removed = 0
    for i, j, n in blocks + [(len(a), len(b), 0)]:
        # unmatched rows between blocks: paired top-down and diffed; rows left over were inserted/removed
        gap = min(i - i_prev, j - j_prev)
        pairs[j_prev:j_prev + gap] = np.arange(i_prev, i_prev + gap)
        removed += (i - i_prev) - gap
        pairs[j:j + n] = np.arange(i, i + n)
        i_prev, j_prev = i + n, j + n
    return Alignment(blocks, pairs, removed, _shifts(blocks), (ha, hb))


def _runs(hashes: np.ndarray) -> tuple[list[Token], np.ndarray]:
    """Runs of identical rows as tokens (hash, length), and each token's first row.

    Text lines are runs of repeated rows; as tokens they become unique, which the
    patience anchors need, and the sequences get ~10x shorter.
    """
    if len(hashes) == 0:
        return [], np.zeros(1, np.int64)
    starts = np.flatnonzero(np.r_[True, hashes[1:] != hashes[:-1]])
    bounds = np.r_[starts, len(hashes)]
    tokens = list(zip(hashes[starts].tolist(), np.diff(bounds).tolist(), strict=True))
    return tokens, bounds


def _rows_of(blocks: list[Block], bounds_a: np.ndarray, bounds_b: np.ndarray) -> list[Block]:
    """Token blocks back to row blocks."""
    return [(int(bounds_a[i]), int(bounds_b[j]), int(bounds_a[i + n] - bounds_a[i]))
            for i, j, n in blocks]


def _patience(a: Sequence[Token], b: Sequence[Token]) -> list[Block]:
    """Matching blocks (i, j, n) of two token lists; explicit stack, no recursion limit.

    Bram Cohen's patience diff: match common prefix and suffix, anchor on tokens that occur
    exactly once in both, keep the longest run of anchors increasing in both, then the gaps."""
    out: list[Block] = []
    stack = [(0, len(a), 0, len(b))]
    while stack:
        a0, a1, b0, b1 = stack.pop()
        p = 0  # common prefix
        while a0 + p < a1 and b0 + p < b1 and a[a0 + p] == b[b0 + p]:
            p += 1
        if p:
            out.append((a0, b0, p))
            a0, b0 = a0 + p, b0 + p
        s = 0  # common suffix
        while a1 - s > a0 and b1 - s > b0 and a[a1 - s - 1] == b[b1 - s - 1]:
            s += 1
        if s:
            out.append((a1 - s, b1 - s, s))
            a1, b1 = a1 - s, b1 - s
        if a0 == a1 or b0 == b1:
            continue
        anchors = _anchors(a, b, a0, a1, b0, b1)
        if not anchors:
            continue
        prev_i, prev_j = a0, b0
        for i, j in anchors:
            stack.append((prev_i, i, prev_j, j))
            out.append((i, j, 1))
            prev_i, prev_j = i + 1, j + 1
        stack.append((prev_i, a1, prev_j, b1))
    return [blk for blk in out if blk[2] > 0]


def _anchors(a: Sequence[Token], b: Sequence[Token], a0: int, a1: int, b0: int, b1: int) -> list[tuple[int, int]]:
    """Rows unique in both ranges, reduced to the longest run increasing in both."""
    ca, cb = Counter(a[a0:a1]), Counter(b[b0:b1])
    where_b = {b[j]: j for j in range(b0, b1) if cb[b[j]] == 1}
    pairs = [(i, where_b[a[i]]) for i in range(a0, a1) if ca[a[i]] == 1 and a[i] in where_b]
    return _longest_increasing(pairs)


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Longest subsequence increasing in j (pairs come sorted by i): patience sorting."""
    import bisect

    tails: list[int] = []  # j of the last pair of the best run of each length
    tail_idx: list[int] = []
    back = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        pos = bisect.bisect_left(tails, j)
        if pos == len(tails):
            tails.append(j)
            tail_idx.append(k)
        else:
            tails[pos] = j
            tail_idx[pos] = k
        back[k] = tail_idx[pos - 1] if pos else -1
    run = []
    k = tail_idx[-1] if tail_idx else -1
    while k >= 0:
        run.append(pairs[k])
        k = back[k]
    return run[::-1]


def _merge(blocks: list[Block]) -> list[Block]:
    """Join touching blocks with the same offset."""
    out: list[Block] = []
    for i, j, n in blocks:
        if out and out[-1][0] + out[-1][2] == i and out[-1][1] + out[-1][2] == j:
            pi, pj, pn = out[-1]
            out[-1] = (pi, pj, pn + n)
        else:
            out.append((i, j, n))
    return out


def _extend(blocks: list[Block], a: list[int], b: list[int]) -> list[Block]:
    """Grow blocks row by row into the gaps between them (a token may be cut by an edit:
    a blank run split by inserted rows), so a shift is placed at the exact row."""
    bounds = [(0, 0, 0)] + blocks + [(len(a), len(b), 0)]
    grown = [list(blk) for blk in bounds]
    for k in range(len(grown) - 1):
        left, right = grown[k], grown[k + 1]
        i0, j0 = left[0] + left[2], left[1] + left[2]
        i1, j1 = right[0], right[1]
        p = 0
        while i0 + p < i1 and j0 + p < j1 and a[i0 + p] == b[j0 + p]:
            p += 1
        left[2] += p
        s = 0
        while i1 - s > i0 + p and j1 - s > j0 + p and a[i1 - s - 1] == b[j1 - s - 1]:
            s += 1
        right[0], right[1], right[2] = i1 - s, j1 - s, right[2] + s
    return _merge([(i, j, n) for i, j, n in grown if n > 0])


def _shifts(blocks: list[Block]) -> list[Shift]:
    """Changes of offset between consecutive tall blocks."""
    tall = [blk for blk in blocks if blk[2] >= MIN_BLOCK_ROWS]
    shifts = []
    offset = 0  # the page top is the reference: no block before it means offset 0
    for i, j, _n in tall:
        if j - i != offset:
            shifts.append(Shift(y=i, by=(j - i) - offset))
            offset = j - i
    return shifts
