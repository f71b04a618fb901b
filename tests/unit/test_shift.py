"""Shift analysis: inserted/removed rows are reported, not painted red down the page."""

from __future__ import annotations

import numpy as np

from theme.pixels.diff import compare, shift


def article(h=600, w=120, seed=1) -> np.ndarray:
    """Text lines of unique random 'glyphs' separated by blank rows."""
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 4), 255, np.uint8)
    for top in range(6, h - 12, 16):
        for x in range(4, w - 8, 6):
            img[top:top + 8, x:x + int(rng.integers(1, 5)), :3] = rng.integers(0, 100, 3)
    return img


def insert(img, y, rows, colour=230):
    band = np.full((rows, img.shape[1], 4), colour, np.uint8)
    band[..., 3] = 255
    return np.concatenate([img[:y], band, img[y:]])


def test_inserted_rows_are_one_shift_at_the_right_row():
    a = article()
    b = insert(a, 200, 14)
    al = shift.align(a, b)
    assert [str(s) for s in al.shifts] == ["content below y=200 moved down by 14 px"]
    assert (al.pairs == -1).sum() == 14 and al.removed == 0


def test_removed_rows_move_content_up():
    a = article()
    b = np.concatenate([a[:300], a[320:]])  # rows 300..319 removed
    r = compare(a, b)
    assert len(r.shifts) == 1 and r.shifts[0].by == -20
    assert "moved up by 20 px" in str(r.shifts[0])
    assert 296 <= r.shifts[0].y <= 320


def test_after_alignment_only_true_differences_count():
    a = article()
    b = insert(a, 200, 14)
    b[450:454, 20:30, :3] = (255, 0, 0)  # a real change far below the insertion
    r = compare(a, b)
    cut = compare(a, b[:600])  # same height: the shift is still found
    w = a.shape[1]
    assert r.size_mismatch and r.actual_size == (120, 614)
    # the 14 inserted rows count in full, plus at most the 40 recoloured pixels
    assert 14 * w <= r.diff_pixels <= 14 * w + 40
    assert r.diff_pixels < 0.1 * r.total_pixels
    assert [x.by for x in cut.shifts] == [14]
    assert "content below y=200 moved down by 14 px" in r.summary()


def test_same_height_shift_does_not_paint_the_page_red():
    a = article()
    b = insert(a, 200, 14)[:600]  # pushed down, the bottom cut off: same size
    h, w = a.shape[:2]
    r = compare(a, b)
    assert not r.size_mismatch
    assert [s.by for s in r.shifts] == [14]
    assert r.diff_pixels == 28 * w  # 14 inserted rows + 14 rows pushed off the bottom
    inserted = r.diff[200:214]
    assert (inserted[..., :3] == (255, 0, 0)).all()  # drawn in the diff colour
    assert (r.diff[300:400, :, 0] == r.diff[300:400, :, 1]).all()  # below: grey, unchanged


def test_no_shift_for_in_place_changes():
    a = article()
    b = a.copy()
    b[100:110, 10:50, :3] = 0
    al = shift.align(a, b)
    assert al.shifts == [] and al.removed == 0 and (al.pairs >= 0).all()
    assert compare(a, b).shifts == []


def test_row_hashes_see_sideways_moves():
    a = article(h=40)
    b = np.roll(a, 1, axis=1)
    assert (shift.row_hashes(a) != shift.row_hashes(b)).any()
    assert (shift.row_hashes(a) == shift.row_hashes(a.copy())).all()


def test_shift_json():
    s = shift.Shift(y=1520, by=14)
    assert s.to_json() == {"y": 1520, "by": 14, "text": "content below y=1520 moved down by 14 px"}


def test_one_px_moves_undone_at_once_read_as_snapping_not_as_moves():
    """After content above moved by half a pixel, rows snap 1 px down, then back up, again and
    again: a page card listed 11 alternating "moved down by 1 px" / "up by 1 px". They are one
    line now; a real move keeps its own."""
    from theme.pixels.diff.shift import Shift, describe

    shifts = [Shift(100, 1), Shift(140, -1), Shift(200, -1), Shift(260, 1), Shift(400, 14), Shift(500, 1)]
    said = describe(shifts)
    assert [d["text"] for d in said] == [
        "rows y=100–260 snapped 1 px differently (2 times): content moved by a fraction of a pixel",
        "content below y=400 moved down by 14 px",
        "content below y=500 moved down by 1 px",
    ]
