"""Tall pages: clipped DevTools captures stitched into one image, and the guard that checks it.

Why not `page.screenshot(full_page=True)`: on a 122 644 px article it came back
with rows ~56 000–92 000 blank although the content was there (MEASUREMENTS.md).
Why DevTools `Page.captureScreenshot` with `captureBeyondViewport` and
`optimizeForSpeed`: each call costs about the same (~3 s on that page) whatever
its height, so fewer, taller calls win — up to the point where a call silently
drops rows (65 536 px did). 16 384 px tiles were whole and 24 s; the default
tile height is that, configurable as `tile_height`.

Decoding a tile (base64 + PNG inflate, ~0.4 s per 16 384 px tile with Pillow)
runs in a worker thread while the browser renders the next tile; the PNG
decoders release the GIL while inflating, so the two overlap on 2 cores.
"""

from __future__ import annotations

import base64
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from .. import images
from ..errors import CaptureError, ImageError


def decode_png(data: bytes, *, what: str = "screenshot") -> np.ndarray:
    """PNG bytes → (H, W, 4) uint8 RGBA, through theme.images (Pillow, or imagecodecs when installed)."""
    try:
        return images.decode_png(data, name=what)
    except ImageError as err:
        raise CaptureError(f"{err} (the browser returned it); re-run the capture") from None


@dataclass
class TileTimes:
    """Where the time of a tiled capture went, in seconds."""

    browser: float = 0.0  # inside Page.captureScreenshot: layout, paint, raster, PNG encode
    decode: float = 0.0  # base64 + PNG decode in the worker (overlaps `browser`)
    wait: float = 0.0  # time the main thread waited for decoding after the last tile
    calls: int = 0
    per_call: list[float] = field(default_factory=list)


def _capture_call(cdp, x: int, y: int, width: int, height: int) -> str:
    params = {
        "format": "png",
        "clip": {"x": x, "y": y, "width": width, "height": height, "scale": 1},
        "captureBeyondViewport": True,
        "optimizeForSpeed": True,
        "fromSurface": True,
    }
    return cdp.send("Page.captureScreenshot", params)["data"]


def capture_tiles(cdp, width: int, height: int, tile_height: int, times: TileTimes | None = None) -> np.ndarray:
    """The page's [0, width) × [0, height) in CSS px as one RGBA array, `tile_height` rows per call."""
    times = times if times is not None else TileTimes()
    image = np.empty((height, width, 4), dtype=np.uint8)

    def place(y: int, h: int, b64: str) -> None:
        t0 = time.perf_counter()
        tile = decode_png(base64.b64decode(b64), what=f"tile at y={y}")
        if tile.shape[:2] != (h, width):
            raise CaptureError(
                f"tile at y={y}: the browser returned {tile.shape[1]}×{tile.shape[0]} px for a "
                f"{width}×{h} clip; lower tile_height in [tool.theme.visual]"
            )
        image[y:y + h] = tile
        times.decode += time.perf_counter() - t0

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="theme-decode") as pool:
        pending = []
        for y in range(0, height, tile_height):
            h = min(tile_height, height - y)
            t0 = time.perf_counter()
            b64 = _capture_call(cdp, 0, y, width, h)
            spent = time.perf_counter() - t0
            times.browser += spent
            times.per_call.append(spent)
            times.calls += 1
            pending.append(pool.submit(place, y, h, b64))
        t0 = time.perf_counter()
        for job in pending:
            job.result()
        times.wait += time.perf_counter() - t0
    return image


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


def check_whole(image: np.ndarray, lines: list[list[float]], tile_height: int) -> None:
    """Raise CaptureError when text lines the DOM says are visible have no ink in the image."""
    flat = inkless_lines(image, lines)
    if not flat:
        return
    tiles = sorted({y // tile_height for _, y, _, _ in flat})
    first = ", ".join(f"y={y}" for _, y, _, _ in flat[:5])
    raise CaptureError(
        f"the stitched page image is not whole: {len(flat)} of {len(lines)} visible text lines are blank "
        f"(first at {first}; tiles {', '.join(str(t) for t in tiles)} of {tile_height} px); "
        "lower tile_height in [tool.theme.visual] and re-run"
    )
