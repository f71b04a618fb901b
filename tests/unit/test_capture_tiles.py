"""The wholeness guard on plain arrays: a text line with no ink is a blank band."""

import numpy as np
import pytest

from theme.capture.tiles import check_whole, inkless_lines
from theme.core.errors import CaptureError


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
    blank = r"not whole: 5 of 15 visible text lines came back blank .*tiles 1 of 1024 px"
    with pytest.raises(CaptureError, match=blank):
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


class _ClipServer:
    """Answers Page.captureScreenshot clips of `image` as real PNGs, as Chromium does
    (RGB, base64); a stand-in for the DevTools session only: the browser's side of
    tiling is tested in tests/visual/test_capture_engine.py."""

    def __init__(self, image: np.ndarray, channels: int):
        self.image, self.channels, self.clips = image, channels, []

    def send(self, method, params, timeout=0):  # as CDPSession.send
        import base64

        from theme.pixels import images

        clip = params["clip"]
        self.clips.append((clip["y"], clip["height"]))
        band = self.image[clip["y"]:clip["y"] + clip["height"], :, :self.channels]
        return {"data": base64.b64encode(images.encode_png(band, level=1)).decode()}


@pytest.mark.parametrize("channels", [3, 4])
def test_tiles_decoded_in_place_stitch_to_the_page_with_their_seams(channels):
    """Each tile is decoded into its rows of the page image and spills its seam rows
    (and an RGBA stream's filter bytes) into the next tile's rows: the stitched image
    must still be the page, and each seam the rows the tile above saw."""
    from theme.capture.tiles import SEAM_ROWS, TileJob

    height, width = 1000, 31
    page = np.random.default_rng(channels).integers(0, 256, (height, width, 4), dtype=np.uint8)
    if channels == 3:
        page[..., 3] = 255
    seen = []
    server = _ClipServer(page, channels)
    job = TileJob(server, width, height, 300, hook=lambda y, tile: seen.append((y, tile.shape))).start()
    got = job.image()
    assert np.array_equal(got, page)
    assert server.clips == [(0, 300 + SEAM_ROWS), (300, 300 + SEAM_ROWS), (600, 300 + SEAM_ROWS), (900, 100)]
    assert seen == [(0, (316, width, 4)), (300, (316, width, 4)), (600, (316, width, 4)), (900, (100, width, 4))]
    assert sorted(job.seams) == [300, 600, 900]
    for y, rows in job.seams.items():
        assert np.array_equal(rows, page[y:y + SEAM_ROWS])


def test_a_hook_that_changes_a_tile_in_place_changes_the_stitched_image():
    """The tests' blank-tile hook edits the decoded tile; in place, that is the page image."""
    from theme.capture.tiles import TileJob

    page = np.random.default_rng(9).integers(0, 256, (600, 20, 4), dtype=np.uint8)
    page[..., 3] = 255

    def blank_second(y, tile):
        if y == 200:
            tile[:] = 255

    got = TileJob(_ClipServer(page, 3), 20, 600, 200, hook=blank_second).start().image()
    assert (got[200:400] == 255).all()
    assert np.array_equal(got[:200], page[:200]) and np.array_equal(got[400:], page[400:])


class _StuckServer(_ClipServer):
    """Answers the first tile, then never returns the second: DevTools' own timeout fires."""

    def send(self, method, params, timeout=0):
        if params["clip"]["y"] > 0:
            from playwright.sync_api import TimeoutError as PlaywrightTimeout

            self.waited = timeout
            raise PlaywrightTimeout(f"CDPSession.send: Timeout {timeout:g}ms exceeded.")
        return super().send(method, params)


def test_a_tile_the_browser_never_returns_fails_the_page_naming_the_tile():
    from theme.capture.tiles import TileJob
    from theme.core.errors import Unresponsive

    page = np.full((600, 20, 4), 255, dtype=np.uint8)
    server = _StuckServer(page, 3)
    with pytest.raises(Unresponsive) as err:
        TileJob(server, 20, 600, 300, timeout_s=120, where="index.html (desktop-light)").start()
    assert server.waited == 120_000 and err.value.kind == "unresponsive"
    assert str(err.value) == ("index.html (desktop-light): the tile at y=300: the browser did not return it "
                              "within 120 s; lower tile_height in [tool.theme.visual], or run again")


def test_tile_rows_keep_a_calls_area_for_wide_pages():
    from theme.capture.tiles import tile_rows

    assert tile_rows(390, 32768) == 32768
    assert tile_rows(1280, 32768) == 32768
    assert tile_rows(1281, 32768) == 16384  # just wider: the next power of two down
    assert tile_rows(9207, 32768) == 4096  # 32768 × 1280 / 9207 = 4555 rows
    assert tile_rows(200_000, 32768) == 1024  # never below the floor
    assert tile_rows(1280, 1024) == 1024 and tile_rows(5000, 512) == 512  # nor above what was asked
