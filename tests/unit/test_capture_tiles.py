"""The wholeness guard on plain arrays: a text line with no ink is a blank band."""

import numpy as np
import pytest

from theme.capture.tiles import check_whole, inkless_lines
from theme.errors import CaptureError


def page_with_text(height=3000, width=200, lines=range(100, 3000, 200)):
    """White page; each 'line' is a 20 px box with a dark glyph stroke in it."""
    image = np.full((height, width, 4), 255, np.uint8)
    boxes = []
    for y in lines:
        image[y + 5:y + 15, 20:22, :3] = 30  # a vertical stroke, like the stem of a letter
        boxes.append([10.0, float(y), 100.0, 20.0])
    return image, boxes


def test_a_whole_page_passes():
    image, boxes = page_with_text()
    assert inkless_lines(image, boxes) == []
    check_whole(image, boxes, tile_height=1024)


def test_a_blank_tile_is_named_with_its_index():
    image, boxes = page_with_text()
    image[1024:2048] = 255  # the second tile came back empty
    flat = inkless_lines(image, boxes)
    assert [y for _, y, _, _ in flat] == [y + 1 for y in range(100, 3000, 200) if 1024 <= y < 2048]
    with pytest.raises(CaptureError, match=r"not whole: 5 of 15 visible text lines are blank .*tiles 1 of 1024 px"):
        check_whole(image, boxes, tile_height=1024)


def test_a_line_straddling_a_tile_edge_is_named_by_the_tile_that_lost_its_ink():
    """A line box starting 2 px above the edge keeps only blank ascender rows in
    tile 0: the tile that came back empty is 1, and the message says so."""
    image, boxes = page_with_text(lines=[500, 1022, 1500, 2100])
    image[1024:2048] = 255
    with pytest.raises(CaptureError, match=r"first at y=1023, y=1501; tiles 1 of 1024 px\)"):
        check_whole(image, boxes, tile_height=1024)


def test_boxes_are_shrunk_so_a_neighbour_on_the_edge_does_not_count_as_ink():
    image = np.full((100, 100, 4), 255, np.uint8)
    image[40, :, :3] = 0  # a rule exactly on the box's top edge
    assert inkless_lines(image, [[10.0, 40.0, 50.0, 20.0]]) == [(11, 41, 48, 18)]


def test_boxes_too_small_or_outside_are_skipped():
    image = np.full((100, 100, 4), 255, np.uint8)
    assert inkless_lines(image, [[10.0, 10.0, 2.0, 2.0], [10.0, 500.0, 20.0, 20.0]]) == []


def test_every_call_but_the_last_shares_rows_with_the_next():
    from theme.capture.tiles import SEAM_ROWS, tile_clips

    clips = tile_clips(40_000, 16_384)
    assert clips == [(0, 16_384, SEAM_ROWS), (16_384, 16_384, SEAM_ROWS), (32_768, 7_232, 0)]
    assert tile_clips(16_390, 16_384) == [(0, 16_384, 6), (16_384, 6, 0)]  # never beyond the page
    assert tile_clips(500, 16_384) == [(0, 500, 0)]


def test_a_seam_that_does_not_continue_the_tile_above_is_refused():
    from theme.capture.tiles import check_seams

    image = np.random.default_rng(3).integers(0, 256, (300, 40, 4), dtype=np.uint8)
    seams = {100: image[100:116].copy(), 200: image[200:216].copy()}
    check_seams(image, seams)  # both continue: nothing raised
    seams[200][5, 7, 1] ^= 1  # one channel of one pixel
    with pytest.raises(CaptureError, match=r"the tile at y=200 does not continue the one above \(1 of 640 px"):
        check_seams(image, seams)
