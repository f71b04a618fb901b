"""A page's actual image as a lossless patch on its baseline: every actual row that some
expected row equals is copied from there, the few others (1-2 % of a long page after a
note-box change) are stored as one PNG. `theme accept` rebuilds the actual from the report
alone, checked by the sha256 of its pixels, and writes it as `--update-snapshots` would.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..core.fsutil import atomic_write_bytes
from ..pixels import images
from ..pixels.diff import shift
from ..pixels.resident import release

PATCH_BYTES = 4 << 20  # a bigger patch is left out: accept then needs the artefacts folder
CHUNK = 2048  # rows compared at a time


def sources(expected: np.ndarray, actual: np.ndarray, pairs: np.ndarray | None = None,
            hashes: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """For each actual row, an expected row with the very same pixels, or -1. The aligned
    partner (`pairs`) first, so runs stay long; else the first row with the same hash.
    `hashes`: shift.row_hashes of expected and actual, when the comparison made them."""
    he, ha = hashes if hashes is not None else (shift.row_hashes(expected), shift.row_hashes(actual))
    first: dict[int, int] = {}
    for i, h in enumerate(he.tolist()):
        first.setdefault(h, i)
    src = np.array([first.get(h, -1) for h in ha.tolist()], np.int64)
    if pairs is not None:
        aligned = (pairs >= 0) & (he[np.maximum(pairs, 0)] == ha)
        src[aligned] = pairs[aligned]
    src = _continued(src.tolist(), he.tolist(), ha.tolist())
    _verify(src, expected, actual)
    return src


def _verify(src: np.ndarray, expected: np.ndarray, actual: np.ndarray) -> None:
    """A hash is not a proof: keep only rows truly equal (the others become -1). Each run of
    consecutive sources is compared as two slices, a chunk at a time, in 64-bit words: no
    gathered copy of the expected rows, and each chunk of a file-backed page dropped once done."""
    for y0, y1, at in runs(src):
        for a in range(y0, y1, CHUNK) if at >= 0 else ():
            b, e = min(y1, a + CHUNK), at + (a - y0)
            same = (_words(expected[e:e + b - a]) == _words(actual[a:b])).all(axis=1)
            src[a:b][~same] = -1
            release(actual, a, b)
            release(expected, e, e + b - a)


def _words(rows: np.ndarray) -> np.ndarray:
    """(n, words) view of n pixel rows, as 64-bit words when a row's bytes allow."""
    flat = np.ascontiguousarray(rows).reshape(len(rows), -1)
    return flat.view(np.uint64) if flat.shape[1] % 8 == 0 else flat


def _continued(src: list[int], he: list[int], ha: list[int]) -> np.ndarray:
    """A row that the row after the previous one's source also equals takes that one: a white
    row below a copied stretch continues it instead of jumping to the page's first white row."""
    for y in range(1, len(src)):
        nxt = src[y - 1] + 1
        if src[y - 1] >= 0 and src[y] != nxt and nxt < len(he) and he[nxt] == ha[y]:
            src[y] = nxt
    return np.array(src, np.int64)


def runs(src: np.ndarray) -> list[list[int]]:
    """[[y0, y1, at]]: actual rows y0..y1 are expected rows at.. (at >= 0), or the next
    y1 - y0 rows of the patch image (at == -1)."""
    if not len(src):
        return []
    copied = (src[1:] >= 0) & (src[:-1] >= 0) & (src[1:] == src[:-1] + 1)
    cont = np.r_[False, copied | ((src[1:] < 0) & (src[:-1] < 0))]
    starts = np.flatnonzero(~cont)
    ends = np.r_[starts[1:], len(src)]
    return [[int(a), int(b), int(src[a]) if src[a] >= 0 else -1] for a, b in zip(starts, ends, strict=True)]


def write(folder: Path, rel: Path, expected: np.ndarray, actual: np.ndarray, pairs: np.ndarray | None,
          hashes: tuple[np.ndarray, np.ndarray] | None = None, pixels: str | None = None) -> dict[str, Any] | None:
    """The patch rebuilding `actual` from `expected` (its image under `folder`), or None when
    the widths differ or it would weigh more than PATCH_BYTES. `hashes` as in sources;
    `pixels`: images.pixels_sha256(actual), when the caller has it."""
    if expected.shape[1] != actual.shape[1]:
        return None
    src = sources(expected, actual, pairs, hashes)
    literal = np.flatnonzero(src < 0)
    patch: dict[str, Any] = {"runs": runs(src), "size": [int(actual.shape[1]), int(actual.shape[0])],
                             "sha256": pixels or _digest(actual), "expected_sha256": _digest(expected),
                             "image": None}
    if literal.size:
        data = images.encode_png(actual[literal], level=9)
        if len(data) > PATCH_BYTES:
            return None
        path = rel.with_name(rel.name + ".patch.png")
        atomic_write_bytes(folder / path, data)
        patch["image"] = path.as_posix()
    return patch


def _digest(image: np.ndarray) -> str:
    """images.pixels_sha256, a file-backed image's rows dropped from memory as they are hashed."""
    h = images.pixels_hasher(image.shape)
    for y in range(0, image.shape[0], CHUNK):
        h.update(np.ascontiguousarray(image[y:y + CHUNK]).data)
        release(image, y, y + CHUNK)
    return h.hexdigest()


def apply(patch: dict[str, Any], expected: np.ndarray | None, folder: Path) -> np.ndarray | None:
    """The actual image the patch was made from, or None when `expected` is not the
    baseline it was made against (none at all, or another), or the result is not the very image."""
    if expected is None or images.pixels_sha256(expected) != patch["expected_sha256"]:
        return None
    width, height = patch["size"]
    literal = images.read_png(Path(folder) / patch["image"]) if patch["image"] else None
    out = np.empty((height, width, 4), np.uint8)
    taken = 0
    for y0, y1, at in patch["runs"]:
        if at >= 0:
            out[y0:y1] = expected[at:at + (y1 - y0)]
        elif literal is not None:
            out[y0:y1] = literal[taken:taken + (y1 - y0)]
            taken += y1 - y0
        else:
            return None  # new rows, and no image holding them
    return out if images.pixels_sha256(out) == patch["sha256"] else None
