"""A ready page's tiles taken (tiles.py) and made into a Capture: the layout checked
again afterwards (the tiles taken again when it moved), the stitched image guarded,
the regions named and the fonts fingerprinted."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from ..baselines.style_record import MISSING
from ..core.config import VisualConfig
from ..core.errors import UnstableRender
from ..pixels.resident import release
from . import scripts
from .bounded import TILE_ANSWER_S, evaluate, watched
from .fonts import fallback_fonts, file_of, file_sha256, split_stack, web_fonts
from .model import FLOW, Capture, JsonObject, PageStyles, Progress, Region, mark
from .readiness import Readiness, Ready, keeps_changing
from .regions import regions
from .server import LocalServer
from .tiles import NotWhole, TileJob, check_seams, check_whole, tile_clips, tile_rows, wanted_clips

if TYPE_CHECKING:
    from playwright.sync_api import Page

CAPTURE_ATTEMPTS = 3  # full captures before UnstableRender when layout moved during one
SMALLER_TILES = 2  # times a page image that is not whole is taken again, each time with half the rows
TEXT_SAMPLES = 20000  # text lines checked by the wholeness guard (evenly spread)

MIN_ROWS = 1024  # the smallest tiles a page image that is not whole is taken again with
# Whether captures read each region's style record (benchmarks/capture_bench.py turns it off
# to measure what it costs).
RECORD_STYLES = True
TileHook = Callable[[int, np.ndarray], None]


@dataclass
class Shooting:
    """A variant whose tiles are being taken."""

    ready: Ready
    tiles: TileJob


class Shooter:
    """Starts a ready page's tiles, and completes them into a Capture.

    `fingerprint`: the session's environment, which every Capture's extends with
    the fonts its page used."""

    def __init__(self, visual: VisualConfig, readiness: Readiness, server: LocalServer, fingerprint: JsonObject):
        self.visual = visual
        self.readiness = readiness
        self.server = server
        self.fingerprint = fingerprint

    def start(self, ready: Ready, say: Progress, hook: TileHook | None = None) -> Shooting:
        """Start taking `ready`'s tiles (in the background when it can); `hook` as in TileJob."""
        rows = tile_rows(ready.width, self.visual.tile_height)
        say(f"{ready.where}: capturing {ready.width}×{ready.height} px{_some_tiles(ready, rows)}")
        ready.tiles_started = time.perf_counter()
        return Shooting(ready, self._tiles(ready, rows, hook))

    def _tiles(self, ready: Ready, rows: int, hook: TileHook | None) -> TileJob:
        return TileJob(ready.cdp, ready.width, ready.height, rows, times=ready.tile_times, hook=hook,
                       only=ready.only, timeout_s=max(self.visual.settle_timeout, TILE_ANSWER_S),
                       where=ready.where).start()

    def complete(self, shooting: Shooting, say: Progress, hook: TileHook | None = None) -> Capture:
        """Join the tiles, re-check the layout (retry when it moved), guard, name the regions."""
        ready, timings = shooting.ready, shooting.ready.job.timings
        page = ready.job.page
        arg = {"regions": list(self.visual.regions.items()), "maxSamples": TEXT_SAMPLES,
               "masks": list(self.visual.mask)}
        for attempt in range(CAPTURE_ATTEMPTS):
            shooting.tiles.wait_calls()
            t = mark(timings, "tiles", ready.tiles_started)
            # The page must not have moved while the tiles were taken (a late
            # font, an image, a script): compare the layout hash again. The
            # same round trip measures regions and text lines; they describe
            # the tiles only when the hash is unchanged.
            after = json.loads(evaluate(page, scripts.AFTER_TILES, arg))
            t = mark(timings, "regions", t)
            if after["hash"] == ready.before[0]:
                break
            shooting.tiles.cancel()
            if attempt + 1 == CAPTURE_ATTEMPTS:
                raise UnstableRender(
                    f"{ready.where}: the layout changed during each of {CAPTURE_ATTEMPTS} captures; "
                    f"{keeps_changing(page, self.visual.mask, self.readiness.mask_at)}")
            say(f"{ready.where}: layout changed during capture, retrying ({attempt + 2}/{CAPTURE_ATTEMPTS})")
            self.readiness.measure(ready)
            mark(timings, "stable", t)
            shooting.tiles = self.start(ready, say, hook).tiles  # the caller cancels whatever is current
        image, notes = self._whole(shooting, after, say, hook)
        self.readiness.check_resources(ready.job.lane, ready.job.variant, ready.where)  # a font asked for late
        release(image)  # the guard read rows all over a tall page; the caller reads what it needs
        t = mark(timings, "guard", t)
        found = regions(after["found"], self.visual.regions, ready.width, ready.height)
        fingerprint = self._fingerprint(after)
        t = mark(timings, "regions", t)
        # a capture of some tiles only serves crops of nudged regions (phase.realigned), no check
        styles = (style_records(page, found, self.visual.mask, DrawnFiles(self.server, self.visual.route))
                  if RECORD_STYLES and ready.only is None else {})
        if RECORD_STYLES and ready.only is None and self.visual.full_page:
            styles[FLOW] = flow_record(page, self.visual.mask, self.server)
        mark(timings, "styles", t)
        tt, shots = ready.tile_times, ready.shots
        timings.update(switched=ready.job.switched, tile_calls=tt.calls, tile_seconds=tt.browser,
                       check_shots=shots.calls, check_shot_seconds=shots.seconds, decode_seconds=tt.decode,
                       decode_wait=tt.wait)
        return Capture(
            variant=ready.job.variant, image=image, regions=found, aborted=sorted(ready.job.aborted),
            fingerprint=fingerprint, seconds=time.perf_counter() - ready.job.opened,
            full_page=self.visual.full_page, timings=timings, nudged=dict(ready.nudged),
            explain={**ready.job.explain, "undefined_tags": after["undefined"],
                     "routed": sorted(ready.job.lane.routed), "aborted": sorted(ready.job.aborted)},
            notes=notes, styles=styles, loaded=ready.job.lane.loaded(), rows=shooting.tiles.rows,
        )

    def _whole(self, shooting: Shooting, after: JsonObject, say: Progress,
               hook: TileHook | None) -> tuple[np.ndarray, list[str]]:
        """The stitched image, guarded (check_whole, check_seams). When it is not whole, the
        page is taken again with tiles of half the rows, up to SMALLER_TILES times: a call
        too large for the machine's raster memory at that moment drops rows, and a smaller
        one does not. Returns the image and a note saying what it took; raises the last
        NotWhole, with the band that was blank, when even the smallest tiles lose rows."""
        ready, tiles = shooting.ready, shooting.tiles
        failed: list[str] = []
        while True:
            image = tiles.image()
            try:
                check_whole(image, [line for line in after["lines"] if tiles.holds(line[1], line[1] + line[3])],
                            tiles.tile_height)
                check_seams(image, tiles.seams)
            except NotWhole as err:
                failed.append(f"{tiles.tile_height}-px tiles ({err.short})")
                if len(failed) > SMALLER_TILES or tiles.tile_height // 2 < MIN_ROWS:
                    raise NotWhole(f"{ready.where}: {err} (tried {', then '.join(failed)})", image,
                                   err.rows, err.short) from None
                rows = tiles.tile_height // 2
                say(f"{ready.where}: the page image was not whole; taking it again with {rows}-px tiles")
                tiles = shooting.tiles = self._tiles(ready, rows, hook)
                continue
            if not failed:
                return image, []
            return image, [f"{ready.where}: the page image was not whole with {' nor with '.join(failed)}; "
                           f"it is whole with {tiles.tile_height}-px tiles, which this capture used"]

    def _fingerprint(self, after: JsonObject) -> JsonObject:
        return page_fingerprint(self.fingerprint, after, self.server, self.visual)


def _some_tiles(ready: Ready, rows: int) -> str:
    """", 1 of 4 tiles (...)" when only the tiles of nudged regions are taken, else ""."""
    if ready.only is None:
        return ""
    every = tile_clips(ready.height, rows)
    return f", {len(wanted_clips(every, ready.only))} of {len(every)} tiles (those its nudged regions lie in)"


def page_fingerprint(session: JsonObject, after: JsonObject, server: LocalServer, visual: VisualConfig) -> JsonObject:
    """The session's fingerprint with the fonts of a page (`after`: its font stacks and loaded
    resources, as scripts.AFTER_TILES reads them): the web fonts' files, and the system fonts
    its other families fall back to."""
    web = set(after["fonts"]["web"])
    families = sorted({f for stack in after["fonts"]["stacks"] for f in split_stack(stack)} - web)
    # A remote browser's system fonts were measured in it (launch.remote_fingerprint).
    system = session.get("system_fonts") or fallback_fonts(families)
    return {**session, "fonts": web_fonts(after["resources"], server, visual.route), "system_fonts": system}


def style_records(page: Page, found: list[Region], masks: Sequence[str], files: DrawnFiles) -> dict[str, PageStyles]:
    """Region path -> its style record (theme/capture/js/computed_styles.js), read on the page
    as its tiles were taken: after the layout hash agreed, before the lane is released or
    switched. Reading computed styles draws nothing, so the pixels are those of the tiles."""
    if not found:
        return {}
    return read_records(page, [{"key": r.path.as_posix(), "selector": r.selector} for r in found], masks, files)


def read_records(page: Page, asked: list[dict[str, Any]], masks: Sequence[str],
                 files: DrawnFiles) -> dict[str, PageStyles]:
    """computed_styles.js on `asked` ({key, selector} or {key, element}): key -> its record;
    the text under `masks` (selectors painted over) is left out of it, and each element's
    files are named with their digests (DrawnFiles)."""
    question = {"regions": asked, "masks": list(masks)}
    # As one JSON string: Playwright's own serialisation of ~60 000 nested values took most of the time
    # Element handles (a reader state's) cannot be sent as JSON: those go through Playwright
    if all("element" not in a for a in asked):
        got: dict[str, Any] = json.loads(evaluate(page, _AS_JSON, question))
    else:
        with watched(page, "reading the styles of a state's elements"):
            got = json.loads(page.evaluate(_AS_JSON, question))
    # A background's url() names our server, whose port is new each run: as the page's own path.
    ours = files.server.origin + "/"
    return {key: {selector: {**{k: v.replace(ours, "") if isinstance(v, str) else v for k, v in props.items()},
                             "files": files.named(props.get("files") or [])}
                  for selector, props in record.items()}
            for key, record in got.items() if record is not None}


def flow_record(page: Page, masks: Sequence[str], server: LocalServer) -> PageStyles:
    """The page's text flow by kinds of element (theme/capture/js/flow_record.js), the record of
    its whole-page image: read with the regions' records, on the page as its tiles were taken."""
    got: PageStyles = json.loads(evaluate(page, _FLOW_AS_JSON, {"masks": list(masks)}))
    ours = server.origin + "/"  # a background's url() names our server, whose port is new each run
    return {kind: {k: v.replace(ours, "") for k, v in props.items()} for kind, props in got.items()}


class DrawnFiles:
    """How a style record names the files an element draws from (computed_styles.js gives
    their URLs): named as the fingerprint names web fonts (fonts.file_of), each with the
    first 12 hex digits of its sha256 as it is on disk now, one a line, sorted. A changed
    image then reads as that file changed, where its pixels alone would not say which.
    Digests are read once a capture; a blob: URL (made by a script, new each load) is left out."""

    def __init__(self, server: LocalServer, route: Mapping[str, Path | str]) -> None:
        self.server, self.route = server, route
        self._named: dict[str, str | None] = {}

    def named(self, urls: Sequence[str]) -> str:
        return "\n".join(sorted({n for url in urls if (n := self._name(url)) is not None}))

    def _name(self, url: str) -> str | None:
        if url not in self._named:
            self._named[url] = self._read(url)
        return self._named[url]

    def _read(self, url: str) -> str | None:
        if url.startswith("blob:"):
            return None
        if url.startswith("data:"):
            kind = url[5:].split(",", 1)[0].split(";", 1)[0] or "text/plain"
            return f"a data: URL ({kind}) {hashlib.sha256(url.encode()).hexdigest()[:12]}"
        name, local = file_of(url, self.server, self.route)
        return f"{name} {file_sha256(local)[:12] if local is not None and local.is_file() else MISSING}"


_AS_JSON = f"(question) => JSON.stringify(({scripts.COMPUTED_STYLES})(question))"
_FLOW_AS_JSON = f"(question) => JSON.stringify(({scripts.FLOW_RECORD})(question))"
