"""A page image in a report: its changed bands cropped (expected, actual, diff, rows aligned)
and a narrow overview of the whole page; lossless PNGs of at most a few MB, where the three
full-size images of a 1280 × 127 000 page weigh 89 MB.

A failed page check makes them at once, from the pixels it already holds (write_review): beside
its full-size actual in the artefacts folder, with `<stem>.review.json` naming them, and no
full-size expected or diff image. The report copies them (review_of); it decodes full-size
images again (page_fields) only for artefacts written without a review.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Callable, TypedDict

import numpy as np

from ..core.fsutil import atomic_write_bytes, atomic_write_text, sha256_file
from ..pixels import images
from ..pixels.diff import shift
from ..pixels.diff.kernel import DIFF_INDEX, Style
from ..pixels.diff.result import DiffResult, IndexedImage
from ..pixels.resident import release
from . import patch

CONTEXT = 40  # px of unchanged page shown above, below and beside a change
BAND_ROWS = 1200  # a longer band is cut into bands this tall: a page that changed all over
BAND_BYTES = 3 << 20  # crops of one page's bands: past this, the less changed bands are only listed
OVERVIEW_WIDTH = 96  # an overview is at most about this wide and this tall: a minimap beside the
OVERVIEW_HEIGHT = 8192  # bands, not a picture to read (a 390 × 215 000 mobile page is 1:550)
DIFF_RGB = tuple(Style().diff_color)  # the diff image's colour for a counted pixel
SCAN = 4096  # rows looked at a time: bounded temporaries on 130 000-row pages


def page_fields(folder: Path, stem: str, full: dict[str, Path]) -> dict[str, Any]:
    """Write the bands and overview of one page entry under `folder`/images/`stem`.*;
    returns the entry's new fields: bands, overview, the actual's sha256 (which `theme accept`
    checks the full-size actual it finds against) and, when small, a patch (patch.py)."""
    main = full.get("actual") or full.get("expected")
    if main is None:
        return {}
    rel = Path("images") / stem
    pixels = images.read_png(main)
    fields: dict[str, Any] = {"overview": overview(folder, rel, pixels), "bands": ()}
    if "actual" in full:
        fields["actual_sha256"] = sha256_file(full["actual"])
    if "actual" in full and "expected" in full:
        expected = images.read_png(full["expected"])
        diff = _Diff.from_path(full["diff"]) if "diff" in full else None
        fields.update(_compared(folder, rel, expected, pixels, diff))
    return fields


def _compared(folder: Path, rel: Path, expected: np.ndarray, actual: np.ndarray, diff: _Diff | None,
              result: DiffResult | None = None, pixels: str | None = None) -> dict[str, Any]:
    """Bands and patch; `result`, the check's own comparison, gives the row alignment and the
    counted pixels per row, so neither is made again; `pixels`, the actual's pixel digest."""
    alignment = result.alignment if result is not None else None
    per_row = result.row_counts if result is not None and result.row_counts is not None else None
    bands, pairs = _bands(folder, rel, expected, actual, diff, alignment.pairs if alignment else None, per_row)
    return {"bands": tuple(bands), "patch": patch.write(folder, rel, expected, actual, pairs,
                                                        alignment.hashes if alignment else None, pixels)}


def review_path(actual: Path) -> Path:
    """Where write_review leaves the fields of the page whose full-size actual is `actual`."""
    return actual.with_name(actual.name[:-len(".actual.png")] + ".review.json")


def write_review(actual_path: Path, expected: np.ndarray, actual: np.ndarray, result: DiffResult,
                 pixels: str | None = None, written: Callable[[], object] | None = None) -> None:
    """A failed page's bands, overview and patch, made from the pixels its check holds and
    written beside its full-size actual (`<stem>.actual.png`), so that no full-size expected
    or diff image is written, nor any decoded again for the report.
    `result`: the check's comparison (its diff image, row alignment and counts are reused);
    `pixels`: images.pixels_sha256 of `actual`, when the caller has it; `written`: returns once
    the actual's file is written, when that is being done meanwhile (else it already is)."""
    folder, rel = actual_path.parent, Path(actual_path.name[:-len(".actual.png")])
    fields: dict[str, Any] = {"overview": overview(folder, rel, actual), "bands": ()}
    diff = _Diff.from_image(result.diff) if result.diff is not None else None
    fields.update(_compared(folder, rel, expected, actual, diff, result, pixels))
    if written is not None:
        written()
    fields["actual_sha256"] = sha256_file(actual_path)
    atomic_write_text(review_path(actual_path), json.dumps(_absolute(folder, fields), sort_keys=True))


def _absolute(folder: Path, fields: dict[str, Any]) -> dict[str, Any]:
    """The fields with their image paths made absolute (report._copy_bands copies those)."""
    def at(rel: str) -> str:
        return str((folder / rel).resolve())

    out = dict(fields)
    out["overview"] = {**fields["overview"], "image": at(fields["overview"]["image"])}
    out["bands"] = [{**b, "images": {k: at(v) for k, v in b["images"].items()}} for b in fields["bands"]]
    if fields.get("patch") and fields["patch"].get("image"):
        out["patch"] = {**fields["patch"], "image": at(fields["patch"]["image"])}
    return out


def review_of(actual: Path) -> dict[str, Any] | None:
    """The fields write_review left for the page whose full-size actual is `actual`, or None
    when there are none, or they were made for another actual (a run before this one)."""
    try:
        fields: dict[str, Any] = json.loads(review_path(actual).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if fields.get("actual_sha256") != sha256_file(actual):
        return None
    fields["bands"] = tuple(fields["bands"])
    return fields


def overview(folder: Path, rel: Path, page: np.ndarray) -> dict[str, Any]:
    """The whole page shrunk by an integer factor (box filter): a minimap to mark bands on."""
    height, width = page.shape[:2]
    factor = max(1, math.ceil(width / OVERVIEW_WIDTH), math.ceil(height / OVERVIEW_HEIGHT))
    images.load_pillow()

    # A band of rows at a time, each a whole number of boxes: the same pixels as the page
    # reduced whole, without a copy of it (a page memory-mapped read-only is copied to be read)
    rows = factor * max(1, SCAN // factor)
    small = np.concatenate([_reduced(page, y, y + rows, factor) for y in range(0, height, rows)])
    path = rel.with_name(rel.name + ".overview.png")
    atomic_write_bytes(folder / path, images.encode_png(small, level=9))
    return {"image": path.as_posix(), "height": int(height), "width": int(width), "scale": factor}


def page_overview(artifacts_dir: Path, key: str, page: np.ndarray) -> dict[str, Any]:
    """The overview of a new page image (created, or added in a comparison), made from its
    pixels while the check has them and written beside its artefacts (<key stem>.overview.png);
    the entry carries it (its image's absolute path), and the report copies it in, as page_fields
    would have made it from the full-size PNG, but without decoding that."""
    rel = Path(key[:-len(".png")])
    fields = overview(artifacts_dir, rel, page)  # a band at a time, each dropped once reduced
    return {**fields, "image": str(artifacts_dir / fields["image"])}


def _reduced(page: np.ndarray, y0: int, y1: int, factor: int) -> np.ndarray:
    """Rows y0..y1 of `page` shrunk by `factor`; a file-backed page's rows are then dropped
    from memory (theme/pixels/resident.py), so an overview never holds the page resident.

    An opaque band is reduced as RGB from its own memory (images.rgb_view): Pillow reduces
    RGBA through a premultiplied copy, which for alpha 255 changes nothing and cost ~1 s CPU
    a 1280 × 127 000 page (~0.15 s so; benchmarks/README.md, "Updates and failing runs")."""
    from PIL import Image

    band = np.ascontiguousarray(page[y0:y1])
    if band.size and int(band[:, :, 3].min()) == 255:
        small = np.array(images.rgb_view(band).reduce(factor))
        if small.shape[2] == 4:
            small[:, :, 3] = 255  # RGBX: its X is alpha's place
        else:  # a Pillow that copied the band (images.rgb_view; Pillow 10.0) reduces plain RGB
            small = np.dstack((small, np.full(small.shape[:2], 255, np.uint8)))
    else:
        small = np.asarray(Image.fromarray(band, "RGBA").reduce(factor))
    release(page, y0, y1)
    return small


def changed_rows(expected: np.ndarray, actual: np.ndarray, diff: np.ndarray | None,
                 pairs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(how much changed in each row of `actual`, the row alignment's pairs).

    `diff`: diff-coloured pixels per row (what the diff counted, inserted rows included).
    `pairs`: the alignment's, when the comparison made one (shift.align, else it is made here).
    A break in the alignment (expected rows removed there, which no actual row shows)
    counts as a whole row on either side of it."""
    width = min(expected.shape[1], actual.shape[1])
    if pairs is None:
        pairs = shift.align(expected[:, :width], actual[:, :width]).pairs
    weight = np.zeros(actual.shape[0], np.int64) if diff is None else diff.astype(np.int64)
    breaks = np.flatnonzero((pairs[1:] != pairs[:-1] + 1) & (pairs[1:] >= 0) & (pairs[:-1] >= 0)) + 1
    weight[breaks - 1] += width
    weight[breaks] += width
    if len(pairs) and pairs[0] > 0:  # rows removed above the first
        weight[0] += width
    if len(pairs) and 0 <= pairs[-1] < expected.shape[0] - 1:  # ... or below the last
        weight[-1] += width
    return weight, pairs


def intervals(rows: np.ndarray, context: int = CONTEXT, longest: int | None = None) -> list[tuple[int, int]]:
    """[a0, a1) spans around the True rows with `context` rows either side; spans whose
    context would touch are one band, cut into pieces of at most `longest` rows."""
    longest = longest or BAND_ROWS
    edges = np.flatnonzero(np.diff(np.concatenate(([0], rows.astype(np.int8), [0]))))
    out: list[list[int]] = []
    for start, end in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
        a0, a1 = max(0, start - context), min(len(rows), end + context)
        if out and a0 <= out[-1][1]:
            out[-1][1] = max(out[-1][1], a1)
        else:
            out.append([a0, a1])
    return [(y, min(y + longest, b)) for a, b in out for y in range(a, b, longest)]


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


class _Diff:
    """A diff image (palette indices, or RGBA), and where its diff-coloured pixels are."""

    def __init__(self, pixels: np.ndarray, hot: np.ndarray | None, palette: np.ndarray | None = None):
        self._pixels = pixels
        self._hot = hot  # the diff colour's palette indices, for a palette image
        self._palette = palette  # (N, 4) RGBA, for a palette image

    @classmethod
    def from_path(cls, path: Path) -> "_Diff":
        images.load_pillow()
        from PIL import Image

        with Image.open(path) as image:
            image.load()
            if image.mode == "P":  # theme's diff images: one byte a pixel, the diff colour one palette entry
                pal = np.array(image.getpalette(), np.uint8).reshape(-1, 3)
                alpha = np.full((len(pal), 1), 255, np.uint8)
                trns = image.info.get("transparency")
                if isinstance(trns, bytes):
                    alpha[:len(trns), 0] = np.frombuffer(trns, np.uint8)[:len(pal)]
                return cls(np.asarray(image), np.flatnonzero((pal == DIFF_RGB).all(axis=1)), np.hstack([pal, alpha]))
            return cls(np.asarray(image.convert("RGBA")), None)

    @classmethod
    def from_image(cls, diff: np.ndarray | IndexedImage) -> "_Diff":
        """The diff a check made: indexed (DIFF_INDEX is the diff colour) or RGBA."""
        if isinstance(diff, IndexedImage):
            return cls(diff.indices, np.array([DIFF_INDEX]), diff.palette)
        return cls(diff, None)

    def png(self, x0: int, y0: int, x1: int, y1: int) -> bytes:
        """Lossless PNG bytes of the crop [y0, y1) × [x0, x1)."""
        crop = self._pixels[y0:y1, x0:x1]
        if self._palette is not None:
            return images.encode_png(crop, palette=self._palette)
        return images.encode_png(crop)

    def hot(self, y0: int, y1: int) -> np.ndarray:
        """(rows, width) bool: the diff-coloured pixels of rows y0..y1."""
        band = self._pixels[y0:y1]
        return np.isin(band, self._hot) if self._hot is not None else (band[..., :3] == DIFF_RGB).all(axis=2)

    def per_row(self, height: int) -> np.ndarray:
        rows = np.zeros(height, np.int64)
        for y in range(0, min(height, self._pixels.shape[0]), SCAN):
            rows[y:y + SCAN] = self.hot(y, y + SCAN).sum(axis=1)[:height - y]
        return rows


def columns(hot: np.ndarray | None, band: np.ndarray, context: int = CONTEXT) -> tuple[int, int]:
    """[x0, x1) around the changed columns of a band of `actual` rows, `context` wide on either
    side. An inserted row is diff-coloured edge to edge: its content's columns count instead
    (where it differs from its first pixel). The whole width when nothing tells (rows removed)."""
    width = band.shape[1]
    if hot is None or not hot.size:
        return 0, width
    full = hot.all(axis=1)
    marked = hot[~full].any(axis=0)
    if full.any():
        inserted = band[full]
        marked |= (inserted != inserted[:, :1]).any(axis=(0, 2))
    cols = np.flatnonzero(marked)
    if not cols.size:
        return 0, width
    return max(0, int(cols[0]) - context), min(width, int(cols[-1]) + 1 + context)


class Band(TypedDict):
    """One changed band of a page entry, as report.json holds it."""

    rows: list[int]  # [a0, a1): rows of the actual image
    expected_rows: list[int]  # [e0, e1): the expected rows they pair with
    columns: list[int]  # [x0, x1): the columns the crops keep
    weight: int  # pixels that differ in it: the most changed bands get crops first
    images: dict[str, str]  # kind -> its crop, relative to the report folder (none past BAND_BYTES)


def _bands(folder: Path, rel: Path, expected: np.ndarray, actual: np.ndarray, diff: _Diff | None,
           pairs: np.ndarray | None = None, per_row: np.ndarray | None = None) -> tuple[list[Band], np.ndarray]:
    """Every changed band; crops for the most changed ones (diff pixels in them) while they
    fit in BAND_BYTES: sub-pixel snapping can change a thousand bands of a long page, and a
    report must stay small. The rest are listed and marked on the overview. Also returns
    the row alignment's pairs. `pairs` and `per_row` (the diff's counted pixels per row) when
    the comparison has them."""
    if diff is not None and per_row is None:
        per_row = diff.per_row(actual.shape[0])
    weight, pairs = changed_rows(expected, actual, per_row if diff is not None else None, pairs)
    spans = intervals(weight > 0)
    bands: list[Band] = []
    for a0, a1 in spans:
        e0, e1 = expected_span(pairs, a0, a1, expected.shape[0])
        x0, x1 = columns(diff.hot(a0, a1) if diff else None, actual[a0:a1])
        bands.append({"rows": [a0, a1], "expected_rows": [e0, e1], "columns": [x0, x1],
                      "weight": int(weight[a0:a1].sum()), "images": {}})
    used = 0
    for k in sorted(range(len(bands)), key=lambda k: (-bands[k]["weight"], k)):
        crops = _crops(bands[k], expected, actual, diff)
        size = sum(len(data) for data in crops.values())
        if used and used + size > BAND_BYTES:
            break  # this band and every less changed one: listed, not shown
        used += size
        bands[k]["images"] = {kind: _write(folder, rel, k + 1, kind, data) for kind, data in crops.items()}
    return bands, pairs


def _crops(band: Band, expected: np.ndarray, actual: np.ndarray, diff: _Diff | None) -> dict[str, bytes]:
    """Lossless PNG bytes of a band's expected, actual and diff crops (same columns)."""
    (a0, a1), (e0, e1), (x0, x1) = band["rows"], band["expected_rows"], band["columns"]
    out = {}
    if e1 > e0:
        out["expected"] = images.encode_png(expected[e0:e1, x0:x1])
    out["actual"] = images.encode_png(actual[a0:a1, x0:x1])
    if diff is not None:
        out["diff"] = diff.png(x0, a0, x1, a1)
    return out


def _write(folder: Path, rel: Path, k: int, kind: str, data: bytes) -> str:
    path = rel.with_name(f"{rel.name}.band-{k}.{kind}.png")
    atomic_write_bytes(folder / path, data)
    return path.as_posix()
