"""A page is compared a band of rows at a time (theme/pixels/diff/result.py `_aligned`), its file-backed
rows dropped from memory as it goes (theme/pixels/resident.py): the verdict must be exactly the one a
whole-page pixelmatch gives, on a real page (the specimen's committed baseline, 1280 × 26 292).

The whole-page reference: the expected rows the alignment pairs with each actual row, as one
image, through `theme.pixels.diff.pixelmatch` (bit-identical to PyPI pixelmatch: test_diff_parity.py),
plus inserted and removed rows in full, as compare() defines a shifted page's count.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from theme.pixels import images, resident
from theme.pixels.diff import compare, pixelmatch
from theme.pixels.diff.kernel import Style
from theme.pixels.diff.result import DIRECT_ROWS

PAGE = Path(__file__).parents[2] / "snapshots" / "index" / "desktop-light" / "page.png"
DIFF_RGB = Style().diff_color


@pytest.fixture(scope="module")
def page() -> np.ndarray:
    image = np.array(images.read_png(PAGE))
    assert image.shape[0] > DIRECT_ROWS  # tall enough to go band by band even unshifted
    return image


def grown(expected: np.ndarray) -> np.ndarray:
    """The page as after a note-box grew: 14 rows inserted at y=5 000 (a copy of a text line,
    so the alignment has to find where), 6 rows gone at 15 000, a box recoloured at 20 000."""
    actual = np.concatenate([expected[:5000], expected[3000:3014], expected[5000:15000], expected[15006:]])
    actual[20000:20030, 300:700, :3] = (200, 40, 40)
    return actual


def file_backed(tmp_path: Path, name: str, image: np.ndarray) -> np.ndarray:
    """`image` as a check holds a page: a read-only file mapping (theme/check/pipeline.py spill)."""
    path = tmp_path / f"{name}.npy"
    np.save(path, image)
    return np.load(path, mmap_mode="r")


def whole_page(expected: np.ndarray, actual: np.ndarray, pairs: np.ndarray, removed: int) -> tuple[int, np.ndarray]:
    """(count, RGBA diff image) of the aligned pair diffed as one image."""
    inserted = pairs < 0
    partner = expected[np.where(inserted, 0, pairs)]
    partner[inserted] = actual[inserted]
    height, width = actual.shape[:2]
    out = np.empty((height, width, 4), np.uint8)
    count = pixelmatch(partner, actual, width, height, out)
    out[inserted, :, :3] = DIFF_RGB
    out[inserted, :, 3] = 255
    return count + (int(inserted.sum()) + removed) * width, out


def counted_per_row(diff: np.ndarray) -> np.ndarray:
    return (diff[..., :3] == DIFF_RGB).all(axis=2).sum(axis=1)


@pytest.mark.slow
def test_a_shifted_page_banded_and_file_backed_gives_the_whole_page_verdict(page, tmp_path):
    actual = grown(page)
    result = compare(file_backed(tmp_path, "expected", page), file_backed(tmp_path, "actual", actual),
                     diff_image=True)
    al = result.alignment
    assert al is not None and result.shifts[0].by == 14 and 5000 <= result.shifts[0].y <= 5014
    assert al.removed == 6 and int((al.pairs < 0).sum()) == 14
    count, diff = whole_page(page, actual, al.pairs, al.removed)
    assert result.diff_pixels == count > 14 * 1280
    assert isinstance(result.diff, np.ndarray) and np.array_equal(result.diff, diff)
    assert np.array_equal(result.row_counts, counted_per_row(diff))
    indexed = compare(file_backed(tmp_path, "e2", page), file_backed(tmp_path, "a2", actual), diff_image="indexed")
    assert indexed.diff is not None and np.array_equal(indexed.diff.rgba(), diff)


def test_an_unshifted_page_banded_gives_pixelmatch_of_the_whole_page(page, tmp_path):
    actual = page.copy()
    actual[10000:10040, 100:900, :3] = (30, 90, 200)
    actual[17000:26000:37, :, :3] //= 2  # rows across band edges, on text and background alike
    result = compare(file_backed(tmp_path, "expected", page), file_backed(tmp_path, "actual", actual),
                     diff_image=True)
    assert result.shifts == []
    out = np.empty_like(page)
    count = pixelmatch(page, actual, page.shape[1], page.shape[0], out)
    assert result.diff_pixels == count > 0
    assert isinstance(result.diff, np.ndarray) and np.array_equal(result.diff, out)
    assert np.array_equal(result.row_counts, counted_per_row(out))


def test_a_page_sized_png_decodes_into_a_file_mapping_with_the_same_pixels(page, monkeypatch):
    monkeypatch.setattr(resident, "FILE_BACKED_BYTES", 64 * 2**20)  # this page is 135 MB of RGBA
    decoded = images.read_png(PAGE)
    assert resident.mapping_of(decoded) is not None
    assert resident.mapping_of(page) is None
    assert np.array_equal(decoded, page)
