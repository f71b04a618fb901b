"""A page image in a report: each changed band cropped (expected, actual, diff, rows aligned)
and a narrow overview of the whole page; lossless PNGs a few hundred kB in all, where three
full-size 1280 × 130 000 images weigh ~50 MB. The full-size images stay in the artefacts folder.
"""

from __future__ import annotations

import hashlib
import io
import math
from pathlib import Path
from typing import Any

import numpy as np

from . import images
from .diff import shift
from .fsutil import atomic_write_bytes

CONTEXT = 60  # rows of unchanged page shown above and below a change
OVERVIEW_HEIGHT = 8192  # an overview is at most about this tall ...
OVERVIEW_WIDTH = 24  # ... and at least this wide (a mobile page is 1:550)
DIFF_RGB = (255, 0, 0)  # theme.diff's diff colour: rows holding it changed
SCAN = 4096  # rows looked at a time: bounded temporaries on 130 000-row pages


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def page_fields(folder: Path, stem: str, full: dict[str, Path]) -> dict[str, Any]:
    """Write the bands and overview of one page entry under `folder`/images/`stem`.*;
    returns the entry's new fields: bands, overview, and the actual's sha256 (which
    `theme accept` checks the full-size actual it finds against)."""
    main = full.get("actual") or full.get("expected")
    if main is None:
        return {}
    rel = Path("images") / stem
    pixels = images.read_png(main)
    fields: dict[str, Any] = {"overview": _overview(folder, rel, pixels), "bands": ()}
    if "actual" in full:
        fields["actual_sha256"] = sha256_file(full["actual"])
    if "actual" in full and "expected" in full:
        expected = images.read_png(full["expected"])
        fields["bands"] = tuple(_bands(folder, rel, expected, pixels, full.get("diff")))
    return fields


def _overview(folder: Path, rel: Path, page: np.ndarray) -> dict[str, Any]:
    """The whole page shrunk by an integer factor (box filter): a minimap to mark bands on."""
    height, width = page.shape[:2]
    factor = max(1, min(math.ceil(height / OVERVIEW_HEIGHT), width // OVERVIEW_WIDTH))
    small = images.pillow().fromarray(np.ascontiguousarray(page), "RGBA").reduce(factor)
    path = rel.with_name(rel.name + ".overview.png")
    atomic_write_bytes(folder / path, images.encode_png(np.asarray(small), level=9))
    return {"image": path.as_posix(), "height": int(height), "width": int(width), "scale": factor}


def changed_rows(expected: np.ndarray, actual: np.ndarray, diff: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(rows of `actual` where something changed, the row alignment's pairs).

    Changed: a diff-coloured pixel (what the diff counted, inserted rows included), or
    a break in the alignment (expected rows removed there, which no actual row shows)."""
    width = min(expected.shape[1], actual.shape[1])
    pairs = shift.align(expected[:, :width], actual[:, :width]).pairs
    rows = np.zeros(actual.shape[0], bool) if diff is None else diff
    breaks = np.flatnonzero((pairs[1:] != pairs[:-1] + 1) & (pairs[1:] >= 0) & (pairs[:-1] >= 0)) + 1
    rows[breaks - 1] = rows[breaks] = True
    if len(pairs) and pairs[0] > 0:  # rows removed above the first
        rows[0] = True
    if len(pairs) and 0 <= pairs[-1] < expected.shape[0] - 1:  # ... or below the last
        rows[-1] = True
    return rows, pairs


def intervals(rows: np.ndarray, context: int = CONTEXT) -> list[tuple[int, int]]:
    """[a0, a1) spans around the True rows with `context` rows either side; spans whose
    context would touch are one band."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], rows.astype(np.int8), [0]))))
    out: list[list[int]] = []
    for start, end in zip(edges[::2].tolist(), edges[1::2].tolist()):
        a0, a1 = max(0, start - context), min(len(rows), end + context)
        if out and a0 <= out[-1][1]:
            out[-1][1] = max(out[-1][1], a1)
        else:
            out.append([a0, a1])
    return [(a, b) for a, b in out]


def expected_span(pairs: np.ndarray, a0: int, a1: int, height: int) -> tuple[int, int]:
    """The expected rows a band of actual rows [a0, a1) stands for: from the row paired
    with its first paired row to the one paired with its last, extended to the band's edges."""
    paired = np.flatnonzero(pairs[a0:a1] >= 0)
    if not paired.size:  # every row inserted: the expected rows where they went in
        before = np.flatnonzero(pairs[:a0] >= 0)
        at = int(pairs[before[-1]]) + 1 if before.size else 0
        return at, at
    first, last = int(paired[0]) + a0, int(paired[-1]) + a0
    return max(0, int(pairs[first]) - (first - a0)), min(height, int(pairs[last]) + (a1 - last))


def _diff_rows(path: Path | None, height: int) -> tuple[np.ndarray | None, Any]:
    """(rows holding the diff colour, the diff image opened by Pillow) or (None, None)."""
    if path is None:
        return None, None
    im = images.pillow().open(path)
    im.load()
    if im.mode == "P":  # theme's diff images: one byte a pixel, the diff colour one palette entry
        pal = np.array(im.getpalette(), np.uint8).reshape(-1, 3)
        hot = np.flatnonzero((pal == DIFF_RGB).all(axis=1))
        pixels = np.asarray(im)
        test = lambda band: np.isin(band, hot).any(axis=1)  # noqa: E731
    else:
        pixels = np.asarray(im.convert("RGBA"))
        test = lambda band: (band[..., :3] == DIFF_RGB).all(axis=2).any(axis=1)  # noqa: E731
    rows = np.zeros(height, bool)
    for y in range(0, min(height, pixels.shape[0]), SCAN):
        rows[y:y + SCAN] = test(pixels[y:y + SCAN])
    return rows, im


def _bands(folder: Path, rel: Path, expected: np.ndarray, actual: np.ndarray, diff_path: Path | None) -> list[dict]:
    diff_rows, diff_im = _diff_rows(diff_path, actual.shape[0])
    rows, pairs = changed_rows(expected, actual, diff_rows)
    out = []
    for k, (a0, a1) in enumerate(intervals(rows), 1):
        e0, e1 = expected_span(pairs, a0, a1, expected.shape[0])
        crops = {"actual": actual[a0:a1]}
        if e1 > e0:
            crops["expected"] = expected[e0:e1]
        paths = {}
        for kind, crop in crops.items():
            paths[kind] = _write(folder, rel, k, kind, images.encode_png(crop, level=9))
        if diff_im is not None:
            buf = io.BytesIO()
            diff_im.crop((0, a0, diff_im.width, a1)).save(buf, format="PNG", compress_level=9)
            paths["diff"] = _write(folder, rel, k, "diff", buf.getvalue())
        out.append({"rows": [a0, a1], "expected_rows": [e0, e1],
                    "images": {kind: paths[kind] for kind in ("expected", "actual", "diff") if kind in paths}})
    return out


def _write(folder: Path, rel: Path, k: int, kind: str, data: bytes) -> str:
    path = rel.with_name(f"{rel.name}.band-{k}.{kind}.png")
    atomic_write_bytes(folder / path, data)
    return path.as_posix()
