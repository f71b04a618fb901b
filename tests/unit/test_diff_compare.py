"""compare(): counts, tolerances in words, sizes, boxes, JSON — what a user reads."""

from __future__ import annotations

import json

import numpy as np
import pytest

from theme.core.config import Tolerance
from theme.pixels.diff import available_engines, compare, pixelmatch


def page(h=120, w=160, seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 4), 255, np.uint8)
    for top in range(4, h - 10, 12):
        for x in range(4, w - 10, 7):
            img[top:top + 6, x:x + int(rng.integers(2, 6)), :3] = int(rng.integers(0, 80))
    return img


def with_box(img, x, y, w, h, colour=(200, 30, 30, 255)):
    out = img.copy()
    out[y:y + h, x:x + w] = colour
    return out


def test_identical_images_match_without_a_diff_image():
    a = page()
    r = compare(a, a.copy())
    assert r.matches and r.diff_pixels == 0 and r.failed_rule is None
    assert r.diff is None and r.boxes == [] and r.shifts == []
    assert r.summary() == "images match (160×120)"


def test_count_equals_pixelmatch_and_rule_in_words():
    a = page()
    b = with_box(a, 30, 40, 20, 10)
    h, w = a.shape[:2]
    r = compare(a, b)
    assert r.diff_pixels == pixelmatch(a, b, w, h) == 200
    assert not r.matches
    assert r.failed_rule == "200 pixels differ (1.04%) beyond threshold 0.1, more than max_diff_pixels = 0"
    assert r.ratio == pytest.approx(200 / (w * h))
    assert r.total_pixels == w * h


def test_diff_image_is_pixelmatch_output():
    a = page()
    b = with_box(a, 30, 40, 20, 10)
    h, w = a.shape[:2]
    out = np.zeros_like(a)
    pixelmatch(a, b, w, h, out)
    assert np.array_equal(compare(a, b).diff, out)
    assert compare(a, b, diff_image=False).diff is None


def test_max_diff_pixels_allows_up_to_the_limit():
    a = page()
    b = with_box(a, 30, 40, 20, 10)
    assert compare(a, b, Tolerance(max_diff_pixels=200)).matches
    r = compare(a, b, Tolerance(max_diff_pixels=199))
    assert r.failed_rule.endswith("more than max_diff_pixels = 199")


def test_max_diff_ratio_is_named_when_it_is_the_larger_allowance():
    a = page()
    b = with_box(a, 30, 40, 20, 10)  # 1.04 %
    assert compare(a, b, Tolerance(max_diff_ratio=0.011)).matches
    r = compare(a, b, Tolerance(max_diff_ratio=0.01, max_diff_pixels=5))
    assert "more than max_diff_ratio = 0.01 (192 pixels)" in r.failed_rule
    assert "within tolerance: 200 pixels differ" in compare(a, b, Tolerance(max_diff_ratio=0.02)).summary()


def test_threshold_decides_what_counts():
    a = np.full((50, 60, 4), 255, np.uint8)
    b = with_box(a, 30, 20, 20, 10, colour=(240, 240, 240, 255))  # faint grey on white
    strict = compare(a, b, Tolerance(threshold=0.0))
    assert not strict.matches and strict.diff_pixels == 200
    assert compare(a, b).matches  # 15 levels of grey are below pixelmatch's default 0.1


def test_boxes_surround_the_changed_areas_largest_first():
    a = page(200, 300)
    b = with_box(with_box(a, 200, 150, 40, 30), 10, 10, 8, 8)
    r = compare(a, b)
    (x, y, w, h), (x2, y2, w2, h2) = r.boxes
    assert x <= 200 and y <= 150 and x + w >= 240 and y + h >= 180 and w * h < 60 * 50
    assert x2 <= 10 and y2 <= 10 and x2 + w2 >= 18 and y2 + h2 >= 18
    assert "largest change at x=" in r.summary()


def test_box_count_is_capped():
    a = np.full((400, 400, 4), 255, np.uint8)
    b = a.copy()
    b[::40, ::40, :3] = 0  # 100 isolated changes
    r = compare(a, b)
    assert len(r.boxes) == 50 and r.boxes_truncated == 50


def test_different_widths_are_a_result_and_the_overlap_is_diffed():
    a = page(100, 160)
    b = with_box(page(100, 160)[:, :150].copy(), 10, 10, 5, 4)
    r = compare(a, b)
    assert r.size_mismatch and not r.matches
    assert r.expected_size == (160, 100) and r.actual_size == (150, 100)
    assert r.diff_pixels == 20
    assert r.failed_rule.startswith("sizes differ: expected 160×100, actual 150×100")


def test_to_json_is_deterministic_and_serialisable():
    a = page()
    b = with_box(a, 30, 40, 20, 10)
    first = json.dumps(compare(a, b).to_json(), sort_keys=True)
    assert first == json.dumps(compare(a, b).to_json(), sort_keys=True)
    data = json.loads(first)
    assert data["diff_pixels"] == 200 and data["matches"] is False
    assert data["expected_size"] == [160, 120] and data["boxes"]


def test_bad_input_is_a_clear_value_error():
    with pytest.raises(ValueError, match=r"expected must be an \(H, W, 4\) uint8"):
        compare(np.zeros((2, 2, 3), np.uint8), np.zeros((2, 2, 4), np.uint8))


@pytest.mark.parametrize("engine", available_engines())
def test_indexed_diff_image_has_the_same_pixels_as_rgba(engine):
    a = page(200, 300)
    b = with_box(a, 100, 60, 40, 30)
    b[120:122, 20:200, :3] = 190  # a change crossing text: anti-aliased and counted pixels
    rgba = compare(a, b, engine=engine)
    indexed = compare(a, b, diff_image="indexed", engine=engine)
    assert indexed.diff_pixels == rgba.diff_pixels > 0
    assert indexed.diff.indices.shape == (200, 300) and indexed.diff.indices.dtype == np.uint8
    assert np.array_equal(indexed.diff.rgba(), rgba.diff)


def test_indexed_diff_image_after_a_shift():
    a = page(200, 160)
    b = np.concatenate([a[:80], np.full((12, 160, 4), 255, np.uint8), a[80:]])
    rgba, indexed = compare(a, b), compare(a, b, diff_image="indexed")
    assert [s.by for s in indexed.shifts] == [12]
    assert np.array_equal(indexed.diff.rgba(), rgba.diff)


def test_diff_image_argument_is_checked():
    with pytest.raises(ValueError, match="diff_image"):
        compare(page(), page(), diff_image="rgb")


def test_ratio_is_a_share_of_the_larger_image_and_never_above_100_percent():
    """Rows removed from the top and others inserted at the bottom count in full on both
    sides: 6 000 pixels differ in images of 5 000, which is all of it, not 120 %."""
    def rows(n, seed):
        out = np.random.default_rng(seed).integers(0, 255, (n, 50, 4), dtype=np.uint8)
        out[..., 3] = 255
        return out

    common = rows(40, 1)
    r = compare(np.concatenate([rows(60, 2), common]), np.concatenate([common, rows(60, 3)]), diff_image=False)
    assert r.diff_pixels == 6000 and r.total_pixels == 5000
    assert r.ratio == 1.0 and "(100.00%)" in r.summary()
