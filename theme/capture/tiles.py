"""Tall pages: clipped DevTools captures (TileJob) stitched into one image, and the
guards that check it (check_whole, check_seams). Not `page.screenshot(full_page=True)`:
on a tall article it came back with a band of rows blank (benchmarks/README.md).
"""

from __future__ import annotations

import base64
import contextlib
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..core.errors import CaptureError, ImageError, RenderError
from ..pixels import images
from ..pixels.resident import file_backed as page_buffer  # large pages: file-backed (theme/pixels/resident.py)
from ..pixels.resident import release
from .bounded import AsyncSend, background_sender, late
from .model import Rows

if TYPE_CHECKING:
    import asyncio

    from playwright.sync_api import CDPSession

SEAM_ROWS = 16  # rows each tile shares with the next (a call's cost does not depend on its height)
# tile_height is the rows of a call for a page up to this wide; a wider page gets fewer
# rows, so that a call's area stays what was measured whole (benchmarks/README.md).
TILE_WIDTH = 1280
MIN_TILE_ROWS = 1024
BAND_ROWS = 1200  # rows of a page image saved to show a blank band (NotWhole.images)
# Rows around a nudged region's first-capture rows that its tiles must hold: a nudge moves
# it, and each of its frames, by less than a pixel (theme/check/phase.py).
NUDGE_MARGIN = 2


def decode_png(data: bytes, *, what: str = "screenshot", out: np.ndarray | None = None) -> np.ndarray:
    """PNG bytes → (H, W, 4) uint8 RGBA, through theme.pixels.images (Pillow, or imagecodecs
    when installed); `out` as in images.decode_png."""
    try:
        return images.decode_png(data, name=what, out=out)
    except ImageError as err:
        raise CaptureError(f"{err} (the browser returned it); re-run the capture") from None


@dataclass
class TileTimes:
    """Where the time of a tiled capture went, in seconds."""

    browser: float = 0.0  # inside Page.captureScreenshot: layout, paint, raster, PNG encode
    decode: float = 0.0  # base64 + PNG decode in the worker (overlaps `browser`)
    wait: float = 0.0  # time the caller blocked waiting for calls or decoding still running
    calls: int = 0
    per_call: list[float] = field(default_factory=list)


def _clip_params(x: int, y: int, width: int, height: int, beyond: bool = True) -> dict[str, Any]:
    return {
        "format": "png",
        "clip": {"x": x, "y": y, "width": width, "height": height, "scale": 1},
        "captureBeyondViewport": beyond,
        # zlib's fastest settings in the browser's PNG encoder; decoding is unaffected
        # and the pixels are the same (PNG is lossless), only the file is larger.
        "optimizeForSpeed": True,
        "fromSurface": True,
    }


def tile_clips(height: int, tile_height: int) -> list[tuple[int, int, int]]:
    """(y, rows placed, extra rows shared with the next tile) of each call; a call
    asks for rows + extra rows from y."""
    out = []
    for y in range(0, height, tile_height):
        h = min(tile_height, height - y)
        out.append((y, h, min(SEAM_ROWS, height - y - h)))
    return out


def wanted_clips(clips: list[tuple[int, int, int]], only: Rows | None) -> list[tuple[int, int, int]]:
    """The tile_clips() whose rows meet `only` (with NUDGE_MARGIN), all of them when None.

    Whole tiles, not clips around the regions: a clip's pixels can depend on its height
    (on the long runtime page, a code block's rounded corners took 20 other pixels in
    every clip up to 12 000 rows tall than in a 32 768-row tile; benchmarks/README.md), while
    the same call on the same page state gives the same pixels."""
    if only is None:
        return clips
    return [(y, h, extra) for y, h, extra in clips
            if any(a - NUDGE_MARGIN < y + h and y < b + NUDGE_MARGIN for a, b in only)]


def merged(spans: list[tuple[int, int]]) -> Rows:
    """Touching or overlapping [y0, y1) spans joined, in order."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return tuple(out)


class TileJob:
    """The page's [0, width) × [0, height) in CSS px, `tile_height` rows per DevTools call.

    `Page.captureScreenshot` with `captureBeyondViewport` grows the view to the page
    and shrinks it back for each call whatever the clip, so part of the cost is per
    call, not per pixel: few tall calls, up to the height where a call drops rows
    silently (`tile_height`; benchmarks/README.md). The page is held to its width
    first (scripts.PIN_WIDTH), or each call would lay it out and paint it again.

    `start()` issues the calls (in the background when it can), each tile is
    base64- and PNG-decoded in a worker thread as soon as it arrives (imagecodecs
    and zlib release the GIL), and `image()` returns the stitched RGBA array once
    every tile is in place. One worker decodes the tiles in page order, straight
    into their rows of the page image: a tile's seam rows and filter bytes, which
    spill into the next tile's rows, are copied out before the next tile
    overwrites them. (A separate buffer and a copy cost a second image-sized
    allocation, as slow to fault in as the decode.)
    `hook(y, tile)` may change a decoded tile before it is placed: the tests use
    it to blank a tile and prove the wholeness guard notices.
    `only`: take just the tiles holding these rows (wanted_clips); the others stay blank.
    """

    def __init__(self, cdp: CDPSession, width: int, height: int, tile_height: int, *,
                 times: TileTimes | None = None, hook: Callable[[int, np.ndarray], None] | None = None,
                 beyond: bool = True, only: Rows | None = None, timeout_s: float = 0, where: str = "the page"):
        self.cdp, self.width, self.height, self.tile_height = cdp, width, height, tile_height
        self.where = where  # the variant, for errors
        self.timeout_ms = timeout_s * 1000  # for each tile; 0: none (a tile never returned fails the page)
        self.only = only
        self.beyond = beyond  # captureBeyondViewport; False when the viewport already holds the whole page
        self.times = times if times is not None else TileTimes()
        self.hook = hook
        # The page's RGBA, then room for the last tile's filter bytes (decode_room).
        self._flat, self._mapping = page_buffer(images.decode_room(width, height))
        self.array = self._flat[:height * width * 4].reshape(height, width, 4)
        if only is not None and self._mapping is None:
            # The tiles not taken stay blank, not whatever the allocator left there: same
            # inputs, same bytes (a file-backed buffer starts zeroed).
            self._flat.fill(0)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="theme-decode")
        self._decodes: list[Future[None]] = []
        self._task: asyncio.Task[None] | None = None
        self.seams: dict[int, np.ndarray] = {}  # y -> the rows from y on as the tile above saw them

    def clips(self) -> list[tuple[int, int, int]]:
        return wanted_clips(tile_clips(self.height, self.tile_height), self.only)

    @property
    def rows(self) -> Rows | None:
        """The rows the image holds, when only some tiles are taken (else None: all)."""
        if self.only is None:
            return None
        return merged([(y, y + h) for y, h, _ in self.clips()])

    def holds(self, y0: float, y1: float) -> bool:
        """Whether rows y0..y1 are among those taken."""
        rows = self.rows
        return rows is None or any(a <= y0 and y1 <= b for a, b in rows)

    def start(self) -> "TileJob":
        # A coroutine on Playwright's loop keeps requesting tiles whenever the sync
        # caller waits on *any* Playwright call, so one page's tiles are taken while the
        # next page is settled and measured (each page has its own renderer process,
        # and the machine has two cores). Without the loop, the tiles are taken in the
        # foreground: slower, the same pixels.
        sender = background_sender(self.cdp)
        if sender is None:
            for y, h, extra in self.clips():
                t0 = time.perf_counter()
                clip = _clip_params(0, y, self.width, h + extra, self.beyond)
                data = self._tile(y, self.cdp.send, clip)
                self._received(y, h, extra, data, time.perf_counter() - t0)
            return self
        loop, send = sender
        self._task = loop.create_task(self._run(send))
        return self

    async def _run(self, send: AsyncSend) -> None:
        for y, h, extra in self.clips():
            t0 = time.perf_counter()
            clip = _clip_params(0, y, self.width, h + extra, self.beyond)
            try:
                data = (await send("Page.captureScreenshot", clip, self.timeout_ms))["data"]
            except Exception as err:
                raise self._late(y, err) from None
            self._received(y, h, extra, data, time.perf_counter() - t0)

    def _tile(self, y: int, send: Callable[..., dict[str, Any]], clip: dict[str, Any]) -> str:
        try:
            data: str = send("Page.captureScreenshot", clip, timeout=self.timeout_ms)["data"]
        except Exception as err:
            raise self._late(y, err) from None
        return data

    def _late(self, y: int, err: Exception) -> Exception:
        """`err` as a page's failure when it is a tile the browser did not return in time."""
        return late(err, f"{self.where}: the tile at y={y}: the browser did not return it within "
                         f"{self.timeout_ms / 1000:g} s; lower tile_height in [tool.theme.visual], or run again")

    def _received(self, y: int, h: int, extra: int, b64: str, spent: float) -> None:
        self.times.browser += spent
        self.times.per_call.append(spent)
        self.times.calls += 1
        self._decodes.append(self._pool.submit(self._place, y, h, extra, b64))

    def _place(self, y: int, h: int, extra: int, b64: str) -> None:
        t0 = time.perf_counter()
        row = y * self.width * 4
        tile = decode_png(base64.b64decode(b64), what=f"tile at y={y}", out=self._flat[row:])
        if tile.shape[:2] != (h + extra, self.width):
            raise CaptureError(
                f"tile at y={y}: the browser returned {tile.shape[1]}×{tile.shape[0]} px for a "
                f"{self.width}×{h + extra} clip; lower tile_height in [tool.theme.visual]"
            )
        if self.hook is not None:
            self.hook(y, tile)
        if extra and self.holds(y + h, y + h + extra):  # the next tile is taken too
            self.seams[y + h] = tile[h:].copy()  # before the next tile is decoded over them
        if not np.may_share_memory(tile, self.array):  # a decoder that cannot decode in place
            self.array[y:y + h] = tile[:h]
        self._release(y, h)
        self.times.decode += time.perf_counter() - t0

    def _release(self, y: int, h: int) -> None:
        """Drop rows y..y+h, now final, from resident memory (file-backed pages only)."""
        if self._mapping is not None:
            release(self.array, y, y + h)

    def wait_calls(self) -> None:
        """Block until the browser has answered every call (decoding may still run)."""
        if self._task is not None:
            t0 = time.perf_counter()
            task, self._task = self._task, None
            self.cdp._sync(task)  # re-raises what the task raised
            self.times.wait += time.perf_counter() - t0

    def image(self) -> np.ndarray:
        """The stitched image: waits for the calls and for every decode."""
        try:
            self.wait_calls()
            t0 = time.perf_counter()
            for job in self._decodes:
                job.result()
            self.times.wait += time.perf_counter() - t0
        finally:
            self._pool.shutdown(wait=True)
        return self.array

    def cancel(self) -> None:
        """Stop requesting tiles (the page is going away); never raises."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
        if task is not None:
            with contextlib.suppress(BaseException):
                self.cdp._sync(task)
        self._pool.shutdown(wait=True, cancel_futures=True)


def inkless_lines(image: np.ndarray, lines: list[list[float]]) -> list[tuple[int, int, int, int]]:
    """The text-line boxes (x, y, w, h) that are one flat colour in `image`.

    A rendered line of visible text always has glyph edges, so it can never be a
    single colour; a tile the browser returned blank (or from the wrong place,
    over an empty margin) makes its lines flat. The box is shrunk by 1 px on
    each side so rounding never pulls in a neighbour's pixels.
    """
    height, width = image.shape[:2]
    flat = []
    for x, y, w, h in lines:
        x0, y0 = max(0, int(np.ceil(x)) + 1), max(0, int(np.ceil(y)) + 1)
        x1, y1 = min(width, int(np.floor(x + w)) - 1), min(height, int(np.floor(y + h)) - 1)
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        box = image[y0:y1, x0:x1]
        if not (box != box[0, 0]).any():
            flat.append((x0, y0, x1 - x0, y1 - y0))
    return flat


def tile_rows(width: int, tile_height: int) -> int:
    """Rows per capture call for a page `width` px wide: `tile_height` up to TILE_WIDTH px,
    else the largest power of two whose call is no larger in area (a 9 207 px wide page
    gets 4 096 rows where a 1 280 px one gets 32 768), never below MIN_TILE_ROWS."""
    if width <= TILE_WIDTH:
        return tile_height
    rows = max(1, tile_height * TILE_WIDTH // width)
    return max(min(MIN_TILE_ROWS, tile_height), 1 << (rows.bit_length() - 1))


class NotWhole(RenderError):
    """The stitched page image lost rows, or a tile does not continue the one above:
    `rows` (y0, y1) is where, and `images` holds a copy of the band around it."""

    def __init__(self, message: str, image: np.ndarray, rows: tuple[int, int], short: str = ""):
        y0 = max(0, min(rows[0], image.shape[0] - 1) - BAND_ROWS // 4)
        y1 = min(image.shape[0], y0 + BAND_ROWS)
        super().__init__(message, kind="not-whole", images={"blank-band": np.array(image[y0:y1])})
        self.rows = rows
        self.band = (y0, y1)
        self.short = short or message  # what was wrong, in a few words


def check_seams(image: np.ndarray, seams: dict[int, np.ndarray]) -> None:
    """Raise CaptureError where a tile does not continue the one above it: the rows
    they both hold (TileJob.seams) differ.

    A capture call can fail silently, and a band taken from the wrong place, or
    repeated, still has ink where check_whole looks. Each tile but the last is
    taken SEAM_ROWS taller than its share; in every capture measured the shared
    rows were identical (benchmarks/README.md), so any difference is an error."""
    for y in sorted(seams):
        rows = seams[y]
        differ = int((rows != image[y:y + len(rows)]).any(axis=2).sum())
        if differ:
            raise NotWhole(
                f"the stitched page image is not whole: the tile at y={y} does not continue the one above "
                f"({differ} of {rows.shape[0] * rows.shape[1]} px of the {rows.shape[0]} rows both hold differ): "
                "a band was taken from the wrong place, or the page repainted between calls; if it persists, "
                "mask what moves", image, (y, y + len(rows)), f"the tile at y={y} does not continue the one above")


def check_whole(image: np.ndarray, lines: list[list[float]], tile_height: int) -> None:
    """Raise CaptureError when text lines the DOM says are visible have no ink in the image."""
    flat = inkless_lines(image, lines)
    if not flat:
        return
    # A line is named by the tile holding its middle row: a line whose top rows
    # (blank ascender space) sit at the end of the tile above still belongs to
    # the tile that lost its ink.
    tiles = sorted({(y + h // 2) // tile_height for _, y, _, h in flat})
    first = ", ".join(f"y={y}" for _, y, _, _ in flat[:5])
    # Fixed and sticky text is pinned before the capture (scripts.FREEZE_VIEW), so a
    # blank line here is rows the browser returned empty, not text painted elsewhere.
    raise NotWhole(
        f"the stitched page image is not whole: {len(flat)} of {len(lines)} visible text lines came back "
        f"blank (first at {first}; tiles {', '.join(str(t) for t in tiles)} of {tile_height} px): "
        "Chromium drops rows of a capture call too tall to raster; if the same lines stay blank with "
        "smaller tiles, an element paints them only when on screen (content-visibility, a canvas drawn "
        "on scroll): mask it", image, (flat[0][1], flat[0][1] + flat[0][3]),
        f"{len(flat)} of {len(lines)} text lines blank, the first at y={flat[0][1]}")
