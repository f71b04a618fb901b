"""The capture session: one local server and one browser, many variants.

    with Session(visual) as s:
        for v in variants(visual):
            cap = s.capture(v)        # Capture: full-page RGBA image + named regions

Steps of one capture, and why each is there:
  1. a page of its own, in a browser context (UTC, en-US) that no other variant
     is using; its viewport and colour scheme set, then navigated. Contexts and
     their pages are reused ("lanes", see _Lane): a fresh context and renderer
     cost ~1 CPU-s of the ~2 a specimen load takes. Nothing leaks from one
     variant to the next: each is a fresh navigation, and the storage the last
     one could have written is cleared first;
  2. every request routed: our server passes, `route` prefixes are served from
     local folders, anything else is aborted and listed (hermetic);
  3. settled by what the page does (_wait_quiet): its requests answered, fonts,
     images, maths typeset, then a short quiet with no request, definition, DOM
     change or short timer; custom tags nothing defines are plain markup;
  4. the reader's view (_settle): scrolled through once and back to the top when
     something observes scrolling, then frozen: observers disconnected, animated
     images at their first frame, fixed and sticky elements pinned where they
     sit at scroll 0; screenshot-only CSS (no animation, transition or caret)
     + the user's `style`;
  5. masks painted, then "stable" (see `_wait_stable`), regions and text lines measured;
  6. tiles captured with captureBeyondViewport and stitched (tiles.py), layout
     re-checked, wholeness guarded (no blank text line, and every tile
     continues the one above it).
capture_all() overlaps neighbouring variants: step 6 of one runs in the
background while steps 1–5 of the next run, one page's tiles at a time (see
its docstring). And a page whose own scripts never learned the
colour scheme is not loaded again for its other scheme: that variant switches
the emulated scheme on the page already taken, and steps 3–6 run again
(_plan, _switch); the same pixels as a fresh load, ~1 CPU-s less.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import platform
import re
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable, Iterable, Iterator, Mapping
from urllib.parse import unquote, urlsplit

import numpy as np

from .. import __version__
from .. import config as config_mod
from ..config import VisualConfig
from ..errors import CaptureError, ConfigError, UnstableRender
from . import scripts
from .browser import BrowserInfo, find_browser, launch_flags
from .fonts import fallback_fonts, split_stack
from .naming import Variant, heading_bases, region_names, safe_segment
from .server import LocalServer, resolve
from .tiles import TileJob, TileTimes, check_seams, check_whole, decode_png, release

MASK_COLOR = "#ff00ff"  # loud on purpose: a masked box is never mistaken for content
STABLE_CHECKS = 20  # rounds of (layout hash, viewport shot) before UnstableRender
CAPTURE_ATTEMPTS = 3  # full captures before UnstableRender when layout moved during one
NAV_TIMEOUT_MS = 60_000
QUIET_MS = 250  # no request, definition, DOM change or short timer for this long: the page is done
SOFT_WAIT_S = 3.0  # how long past everything else a page's DOM may keep changing before we move on
POLL_MS = 40
TEXT_SAMPLES = 20000  # text lines checked by the wholeness guard (evenly spread)
_FONT_EXT = (".woff2", ".woff", ".ttf", ".otf")

Progress = Callable[[str], None]
Nudges = Mapping[str, tuple[float, float]]  # region path ("code/intro.png") -> (dx, dy) CSS px


@dataclass(frozen=True)
class Region:
    """A component on the page: where it is in the full image and what it is called."""

    key: str  # the config key, e.g. "note-box"
    name: str  # "<heading slug>[-k]", e.g. "memory-usage-2"
    box: tuple[int, int, int, int]  # x, y, w, h in page px, clipped to the image
    heading: str  # text of the nearest preceding h1–h4 ("" when none)
    selector: str  # a readable selector path, for messages and reports
    # The element's CSS box as measured (x, y, w, h; Chromium lays out in 1/64 px).
    # Its fractional part is the region's sub-pixel phase: see theme/phase.py.
    css_box: tuple[float, float, float, float] | None = None

    @property
    def path(self) -> PurePosixPath:
        return PurePosixPath(safe_segment(self.key)) / f"{self.name}.png"


@dataclass
class Capture:
    """One variant's full-page image and the regions cropped from it."""

    variant: Variant
    image: np.ndarray  # (H, W, 4) uint8 RGBA
    regions: list[Region]
    aborted: list[str]  # URLs that were neither local nor routed, sorted
    fingerprint: dict  # JSON-able: browser, platform, flags, tile height, web fonts, system fonts, theme version
    seconds: float
    full_page: bool = True  # whether images() yields page.png first
    timings: dict = field(default_factory=dict)  # seconds per step, for benchmarks
    nudged: dict = field(default_factory=dict)  # region path -> (dx, dy) CSS px it was moved by
    # region path -> its crop from a second capture at a baseline's sub-pixel phase (theme/phase.py)
    realigned: dict = field(default_factory=dict)
    # What settling waited for and how long, undefined tags, routed URLs, pinned
    # fixed/sticky elements, frozen images: `theme capture --explain` prints it.
    explain: dict = field(default_factory=dict)

    def crop(self, region: Region) -> np.ndarray:
        x, y, w, h = region.box
        return self.image[y:y + h, x:x + w]

    def images(self) -> Iterator[tuple[PurePosixPath, np.ndarray]]:
        """('page.png', full image) when full_page, then every region, in config-key then document order."""
        if self.full_page:
            yield PurePosixPath("page.png"), self.image
        for region in self.regions:
            yield region.path, self.crop(region)


def _playwright_version() -> str:
    try:
        return importlib.metadata.version("playwright")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover
        return "unknown"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _clip_box(box: list[float], width: int, height: int) -> tuple[int, int, int, int] | None:
    """Float CSS box → whole pixels covering it, clipped to the image; None when nothing is left."""
    x, y, w, h = box
    x0, y0 = max(0, int(np.floor(x))), max(0, int(np.floor(y)))
    x1, y1 = min(width, int(np.ceil(x + w))), min(height, int(np.ceil(y + h)))
    if x1 <= x0 or y1 <= y0:
        return None
    return (x0, y0, x1 - x0, y1 - y0)


def config_position(source: Path | None, key: str) -> str:
    """`file:line:col` of `key` in the config file when known, else the table name."""
    if source is None:
        return "[tool.theme.visual]"
    try:
        text = Path(source).read_text(encoding="utf-8")
    except OSError:
        return str(source)
    return config_mod._Reader(Path(source), text).position(key)


def check_config(visual: VisualConfig, source: Path | None = None) -> None:
    """Fail before starting a browser on what the config alone shows is wrong."""
    at = lambda key: config_position(source, key)  # noqa: E731
    if not visual.root.is_dir():
        raise ConfigError(f"{at('root')}: root {visual.root} is not a folder; build the article or fix root")
    for page in visual.pages:
        if resolve(visual.root, "/" + page.lstrip("/")) is None:
            raise ConfigError(f"{at('pages')}: page {page!r} is not a file under {visual.root}; fix pages")
    if visual.style is not None and not visual.style.is_file():
        raise ConfigError(f"{at('style')}: style {visual.style} does not exist; create it or remove style")
    for prefix, folder in visual.route.items():
        if not Path(folder).is_dir():
            raise ConfigError(f"{at('route')}: route {prefix!r} maps to {folder}, which is not a folder")


_THREAD = threading.local()


@contextlib.contextmanager
def _shared_playwright():
    """One Playwright driver per thread, shared by nested Sessions.

    Playwright's sync API refuses to start a second instance while one runs in
    the same thread, so a second Session (another config) reuses the first's.
    """
    from playwright.sync_api import sync_playwright

    if getattr(_THREAD, "users", 0) == 0:
        _THREAD.manager = sync_playwright()
        _THREAD.playwright = _THREAD.manager.__enter__()
    _THREAD.users = getattr(_THREAD, "users", 0) + 1
    try:
        yield _THREAD.playwright
    finally:
        _THREAD.users -= 1
        if _THREAD.users == 0:
            manager, _THREAD.manager, _THREAD.playwright = _THREAD.manager, None, None
            manager.__exit__(None, None, None)


@dataclass
class _Lane:
    """A browser context with one page, handed from variant to variant.

    Measured on the specimen (1280 px, 2 cores): a new context and page, then
    the load, took 2.0-2.6 CPU-s (1.0-1.4 s); navigating a page that already
    exists, 1.0-1.1 CPU-s (0.7 s), the same pixels. The difference is the new
    renderer process and context. Between variants the lane forgets: the old
    document's session and local storage, the other storage of our origin and
    of every routed one, cookies;
    then it waits on about:blank, so the next variant's viewport change does
    not re-lay out the old page. A lane that saw an error is closed, not reused.
    """

    context: object
    page: object
    cdp: object
    aborted: set  # the current variant's blocked URLs: the route handler adds to whatever set is here
    script: str | None = None  # id of the current variant's DATA_THEME script
    routed: set = field(default_factory=set)  # the current variant's URLs served from a route
    inflight: set = field(default_factory=set)  # requests to our origin or a route not yet answered
    net_last: float = 0.0  # time.monotonic() of the last such request's start or end


@dataclass
class _Pending:
    """A variant whose page is loading."""

    variant: Variant
    lane: _Lane
    page: object
    aborted: set
    url: str
    opened: float
    timings: dict
    switched: bool = False  # the page was already loaded, in another scheme (Session._switch)
    explain: dict = field(default_factory=dict)  # what settling waited for and did (Capture.explain)


@dataclass
class _Ready:
    """A variant that is loaded, settled, stable and measured: ready for its tiles."""

    job: _Pending
    where: str
    cdp: object
    shots: "_Shots"
    tile_times: TileTimes
    before: tuple = ()  # the stable look (layout hash, first-screen hash) the tiles were started from
    width: int = 0
    height: int = 0
    tiles_started: float = 0.0
    nudged: dict = field(default_factory=dict)  # region path -> (dx, dy) applied


@dataclass
class _Shooting:
    """A variant whose tiles are being taken."""

    ready: _Ready
    tiles: TileJob


class _Shots:
    """Viewport screenshots for the stability check, timed (the benchmark counts them)."""

    def __init__(self, cdp):
        self.cdp = cdp
        self.calls = 0
        self.seconds = 0.0

    def viewport_hash(self, clip: tuple[int, int] | None = None) -> str:
        """sha256 of a PNG of the viewport, or of its top-left `clip` = (width, height) px:
        the same pixels give the same bytes either way (one encoder, same options)."""
        t0 = time.perf_counter()
        params = {"format": "png", "optimizeForSpeed": True}
        if clip is not None:
            params["clip"] = {"x": 0, "y": 0, "width": clip[0], "height": clip[1], "scale": 1}
        data = self.cdp.send("Page.captureScreenshot", params)["data"]
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        return hashlib.sha256(data.encode()).hexdigest()


@dataclass(frozen=True)
class _Step:
    """One variant in the order capture_all takes them."""

    index: int  # its place in the caller's list (captures are yielded in that order)
    follows: int | None = None  # the step (place in the plan) whose page it may take, switching the scheme


def _same_view(a: Variant, b: Variant) -> bool:
    return (a.page, a.viewport, a.width, a.height) == (b.page, b.viewport, b.width, b.height)


def _plan(todo: list[Variant], switchable: Callable[[Variant], bool]) -> list[_Step]:
    """The order to take `todo` in, and which variants may switch a page's scheme.

    A light and a dark variant of one page at one viewport need not load the page
    twice: once the light one's tiles are taken, its page can emulate dark and be
    taken again (see Session._switch for when that is the same as a fresh load).
    But a switched variant waits for the one before it, where two fresh ones
    load, settle and tile side by side on the two cores. So runs of one page
    and viewport are paired and interleaved: light A, light B, dark A, dark B,
    where dark A switches A's page while light B is being tiled; the switched
    step is always two places after the one it follows, the pipeline's depth.
    A is the wider view: its tiles take longest (desktop 1280 px: 2.2 s; mobile
    390 px, 1.5 times as tall: 1.2 s, on the specimen), so it starts first.
    A run without a partner is taken fresh, variant by variant, as before.
    """
    runs: list[list[int]] = []
    for i, v in enumerate(todo):
        last = runs[-1] if runs else None
        if (last and switchable(v) and switchable(todo[last[-1]])
                and _same_view(todo[last[-1]], v)
                and v.media_scheme not in {todo[j].media_scheme for j in last}):
            last.append(i)
        else:
            runs.append([i])
    steps: list[_Step] = []
    r = 0
    while r < len(runs):
        a = runs[r]
        b = runs[r + 1] if r + 1 < len(runs) else []
        if len(a) < 2 or len(b) < 2:
            steps += [_Step(i) for i in a]
            r += 1
            continue
        if todo[b[0]].width > todo[a[0]].width:
            a, b = b, a  # the wider first: its rows have more pixels, and its chain ends last
        order = [run[k] for k in range(max(len(a), len(b))) for run in (a, b) if k < len(run)]
        place = {i: len(steps) + n for n, i in enumerate(order)}
        for n, i in enumerate(order):
            run = a if i in a else b
            k = run.index(i)
            prev = place[run[k - 1]] if k else None
            steps.append(_Step(i, prev if prev == len(steps) - 2 else None))
        r += 2
    return steps


class Session:
    """Starts the 127.0.0.1 server and ONE browser once; `capture()` any number of variants."""

    def __init__(self, visual: VisualConfig, *, browser: str | None = None, source: Path | None = None):
        """`browser`: an executable to use instead of find_browser(); `source`: the config
        file, so errors about its keys point at `file:line:col`."""
        check_config(visual, source)
        self.visual = visual
        self.source = source
        self._browser_arg = browser
        self._stack = ExitStack()
        self.server: LocalServer | None = None
        self.browser_info: BrowserInfo | None = None
        self.fingerprint: dict = {}
        self._browser = None
        self._nudges: dict = {}  # variant -> Nudges, for the capture_all() in progress
        self._lanes: list[_Lane] = []  # idle lanes, parked on about:blank
        self._style_css = visual.style.read_text(encoding="utf-8") if visual.style else None
        # Test hook: called as hook(y, tile) on every decoded tile before it is placed.
        self.tile_hook: Callable[[int, np.ndarray], None] | None = None

    # ------------------------------------------------------------ lifecycle

    def __enter__(self) -> "Session":
        try:
            self._start()
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def close(self) -> None:
        self._stack.close()

    def _start(self) -> None:
        from playwright.sync_api import Error as PlaywrightError

        self.server = self._stack.enter_context(LocalServer(self.visual.root))
        pw = self._stack.enter_context(_shared_playwright())
        self.browser_info = find_browser(self._browser_arg, playwright=pw)
        flags = launch_flags(offline=self.visual.offline)
        try:
            self._browser = pw.chromium.launch(
                executable_path=str(self.browser_info.executable), args=flags, headless=True
            )
        except PlaywrightError as err:
            first = str(err).strip().splitlines()[0] if str(err).strip() else "unknown error"
            raise CaptureError(
                f"{self.browser_info.executable}: the browser did not start ({first}); "
                "set THEME_BROWSER to a working Chromium"
            ) from None
        self._stack.callback(self._browser.close)
        self._stack.callback(self._close_lanes)
        self.fingerprint = {
            "browser": {
                "name": self._browser.browser_type.name,
                "version": self._browser.version,
                "executable": str(self.browser_info.executable),
                "found_by": self.browser_info.source,
            },
            "playwright": _playwright_version(),
            "platform": {"system": platform.system(), "release": platform.release(),
                         "machine": platform.machine(), "libc": "-".join(platform.libc_ver())},
            "device_scale_factor": 1,
            "launch_flags": flags,
            # Pixels can depend on where the clips start (tiles of 24 576 px gave 44 px
            # other than 16 384 on the 390 px specimen; 32 768 gave none), so the tile
            # height is part of the environment a baseline was made in.
            "tile_height": self.visual.tile_height,
            "theme_version": __version__,
        }

    # ------------------------------------------------------------ routing

    def _routed_file(self, url: str) -> tuple[bool, Path | None]:
        """(matched a route prefix?, the local file or None). The longest prefix wins."""
        for prefix in sorted(self.visual.route, key=len, reverse=True):
            if url.startswith(prefix):
                rest = unquote(urlsplit(url[len(prefix):]).path)
                return True, resolve(Path(self.visual.route[prefix]), "/" + rest.lstrip("/"))
        return False, None

    def _handler(self, lane: "_Lane"):
        origin = self.server.origin + "/"
        offline = self.visual.offline

        def handle(route) -> None:
            url = route.request.url
            if url.startswith(origin):
                route.continue_()
                return
            matched, local = self._routed_file(url)
            if local is not None:
                lane.routed.add(url)
                route.fulfill(path=str(local), headers={"Access-Control-Allow-Origin": "*"})
            elif matched or offline:
                lane.aborted.add(url)
                route.abort("blockedbyclient")
            else:
                route.continue_()

        return handle

    def _font_files(self, urls: list[str]) -> dict[str, str]:
        """sha256 of every font file the page loaded, keyed by path under root (or routed URL)."""
        out = {}
        for url in sorted(set(urls)):
            if not urlsplit(url).path.lower().endswith(_FONT_EXT):
                continue
            local = self.server.local_file(url)
            key = None
            if local is not None:
                key = PurePosixPath(unquote(urlsplit(url).path)).as_posix().lstrip("/")
            else:
                matched, local = self._routed_file(url)
                key = url if local is not None else None
            if key is not None:
                out[key] = _sha256(local)
        return out

    # ------------------------------------------------------------ capture

    def capture(self, variant: Variant, progress: Progress | None = None,
                nudges: Nudges | None = None) -> Capture:
        """One variant: load, stabilise, capture, crop."""
        return next(self.capture_all([variant], progress, {variant: nudges} if nudges else None))

    def capture_all(self, todo: Iterable[Variant], progress: Progress | None = None,
                    nudges: Mapping[Variant, Nudges] | None = None) -> Iterator[Capture]:
        """Captures in order, overlapping the work of neighbouring variants.

        `nudges` moves regions by a fraction of a pixel before a variant is
        captured: {variant: {"code/intro.png": (dx, dy)}}, in CSS px (see
        theme/phase.py for why). The regions moved are in `Capture.nudged`.

        Each variant has its own page (its own renderer process), and the machine
        has two cores, so while variant N's tiles are being taken (the browser's
        work) variant N+1 is loaded, settled, checked for stability and measured;
        N+2's navigation starts as soon as N+1's page is in use. N+1's tiles
        start once N's capture calls are answered, and N is finished (layout
        re-checked, wholeness guarded, regions named) and yielded while N+1's
        tiles are taken: one page is tiled at a time. On the long runtime page
        (131 000 px, 2 cores) light and dark tiled at once took 39.9 s, the
        same as one after the other (40.3 s); tiled in turn, with the next
        page loaded and settled meanwhile, 35.4 s, and one renderer holds
        tile bitmaps at a time (benchmarks/README.md).
        """
        if self._browser is None:
            raise CaptureError("Session.capture() called outside `with Session(...)`")
        say = progress or (lambda _msg: None)
        todo = list(todo)
        self._nudges = dict(nudges or {})
        plan = _plan(todo, self._switchable)
        followed = {step.follows for step in plan if step.follows is not None}
        opened: dict[int, _Pending] = {}  # place in the plan -> a fresh page, loading
        kept: dict[int, _Lane] = {}  # place of a switched step -> the page it is to take
        read: dict[int, str | None] = {}  # place -> how its page learned the scheme (None: it did not)
        finished: dict[int, Capture] = {}  # todo index -> capture, held until the ones before it are out
        turn = 0  # the todo index yielded next
        shooting: tuple[int, _Shooting] | None = None

        def due() -> Iterator[Capture]:
            nonlocal turn
            while turn in finished:
                yield finished.pop(turn)
                turn += 1

        def finish(done: tuple[int, _Shooting]) -> None:
            place, work = done
            after = place + 2
            keep = after < len(plan) and plan[after].follows == place and after not in opened
            finished[plan[place].index] = self._complete_and_close(work, say, keep=keep)
            if keep:
                kept[after] = work.ready.job.lane

        try:
            for place, step in enumerate(plan):
                variant = todo[step.index]
                job = opened.pop(place, None) or self._take(variant, kept.pop(place, None))
                ahead = place + 1
                if ahead < len(plan) and (plan[ahead].follows is None or read.get(plan[ahead].follows)):
                    opened[ahead] = self._open(todo[plan[ahead].index])
                try:
                    ready = self._prepare(job, say)
                    if place in followed:
                        read[place] = self._scheme_read(job.page)
                except BaseException:
                    self._release(job.lane, reuse=False)
                    if shooting is not None:  # the variant before this one is good: hand it over first
                        done, shooting = shooting, None
                        finish(done)
                        yield from due()
                    raise
                if shooting is not None:
                    # One page's capture calls at a time: on a real 131 000 px article two
                    # pages tiled at once took as long as one after the other (each call
                    # ~3 s of a renderer's main thread, two renderers on two cores with the
                    # decoding), and held two renderers' tile bitmaps at once.
                    shooting[1].tiles.wait_calls()
                current = self._start_tiles(ready, say)
                done, shooting = shooting, (place, current)
                if done is not None:
                    finish(done)
                    yield from due()
            if shooting is not None:
                done, shooting = shooting, None
                finish(done)
                yield from due()
        finally:
            if shooting is not None:
                shooting[1].tiles.cancel()
                self._release(shooting[1].ready.job.lane, reuse=False)
            for left in opened.values():
                self._release(left.lane, reuse=False)
            for lane in kept.values():
                self._release(lane, reuse=False)

    def _switchable(self, variant: Variant) -> bool:
        """Whether `variant` may be taken from another scheme's page (_plan): not when the
        config says `switch_schemes = false`, when it forces <html data-theme> before the
        page's scripts, nor when regions are nudged."""
        return self.visual.switch_schemes and variant.data_theme is None and not self._nudges.get(variant)

    def _scheme_read(self, page) -> str | None:
        """How a script of the page, in any frame, learned the colour scheme (scripts.SCHEME_PROBE)."""
        for frame in page.frames:
            how = frame.evaluate(scripts.SCHEME_READ)
            if how:
                return how
        return None

    def _take(self, variant: Variant, lane: "_Lane | None") -> "_Pending":
        """`variant` on `lane`'s page by switching the scheme, or on a fresh page when
        there is no lane or its page's scripts have since learned the scheme."""
        if lane is not None:
            try:
                how = self._scheme_read(lane.page)
            except BaseException:
                self._release(lane, reuse=False)
                raise
            if how is None:
                return self._switch(lane, variant)  # releases the lane itself if it fails
            self._release(lane, reuse=True)
        return self._open(variant)

    def _switch(self, lane: "_Lane", variant: Variant) -> "_Pending":
        """The lane's page, as taken for its last variant, now in `variant`'s colour scheme.

        The same as a fresh load in that scheme when the page's own scripts never
        learned the scheme (scripts.SCHEME_PROBE), because then only its CSS, and
        what the browser picks by media query (<picture> sources), depend on it.
        Measured on the specimen: ~1 CPU-s of load saved for each such variant."""
        started = time.perf_counter()
        try:
            lane.page.evaluate(scripts.UNMASK)  # masks are placed anew where this scheme lays things out
            lane.page.emulate_media(color_scheme=variant.media_scheme, reduced_motion="reduce")
        except BaseException:
            self._release(lane, reuse=False)
            raise
        return _Pending(variant, lane, lane.page, lane.aborted, self.server.url(variant.page), started,
                        {"open": time.perf_counter() - started}, switched=True)

    def _complete_and_close(self, shooting: "_Shooting", say: Progress, keep: bool = False) -> Capture:
        """Finish `shooting`; its lane is parked, or with `keep` left as it is for a switched step."""
        reuse = False
        try:
            capture = self._complete(shooting, say)
            reuse = True
            return capture
        finally:
            shooting.tiles.cancel()
            if not (keep and reuse):
                self._release(shooting.ready.job.lane, reuse=reuse)

    @contextlib.contextmanager
    def open(self, variant: Variant) -> Iterator[object]:
        """A loaded, settled Playwright page of `variant` (same routing and stabilisation),
        for checks on the DOM or for `screenshot()`. Closed on exit."""
        job = self._open(variant)
        try:
            where = f"{variant.page} ({variant.viewport}-{variant.scheme})"
            self._wait_loaded(job.page, job.url, where)
            self._settle(job.lane, variant, where, {})
            yield job.page
        finally:
            self._release(job.lane, reuse=False)  # the caller may have changed anything

    def elements_at(self, variant: Variant, boxes: list[tuple[int, int, int, int]]) -> list[str | None]:
        """For each box (x, y, w, h in page px), a selector of the smallest element holding it,
        on a freshly loaded and settled page of `variant` (for `theme capture --explain`)."""
        if not boxes:
            return []
        with self.open(variant) as page:
            return page.evaluate(scripts.ELEMENTS_AT, [list(b) for b in boxes])

    def _mark(self, timings: dict, name: str, since: float) -> float:
        now = time.perf_counter()
        timings[name] = timings.get(name, 0.0) + (now - since)
        return now

    def _new_lane(self, variant: Variant) -> _Lane:
        context = self._browser.new_context(
            viewport={"width": variant.width, "height": variant.height},
            device_scale_factor=1,
            color_scheme=variant.media_scheme,
            reduced_motion="reduce",
            locale="en-US",
            timezone_id="UTC",
            service_workers="block",
        )
        try:
            context.add_init_script(scripts.EAGER + scripts.SCHEME_PROBE + scripts.WATCH)
            page = context.new_page()
            lane = _Lane(context, page, context.new_cdp_session(page), set())
            self._track_requests(lane)
            lane.cdp.send("Page.enable")  # else this session's addScriptToEvaluateOnNewDocument never runs
            # Only requests that do NOT go to our server are intercepted: the pattern
            # is matched inside the browser driver, so local files (most requests)
            # never take the round trip through this Python process.
            page.route(re.compile(rf"^(?!{re.escape(self.server.origin)}/)"), self._handler(lane))
        except BaseException:
            context.close()
            raise
        return lane

    def _track_requests(self, lane: _Lane) -> None:
        """Count the lane's requests to our server and to routes while they are in flight
        (network quiet, _wait_quiet). Third-party requests are aborted, or when online
        never waited for: a beacon that hangs must not hold the capture."""
        ours = (self.server.origin + "/", *self.visual.route)

        def started(request) -> None:
            if request.url.startswith(ours):
                lane.inflight.add(request)
                lane.net_last = time.monotonic()

        def ended(request) -> None:
            if request in lane.inflight:
                lane.inflight.discard(request)
                lane.net_last = time.monotonic()

        lane.page.on("request", started)
        lane.page.on("requestfinished", ended)
        lane.page.on("requestfailed", ended)

    def _release(self, lane: _Lane, *, reuse: bool) -> None:
        """Park `lane` for the next variant, or close it (after an error, or when parking fails)."""
        from playwright.sync_api import Error as PlaywrightError

        if reuse:
            try:
                if lane.script is not None:
                    lane.cdp.send("Page.removeScriptToEvaluateOnNewDocument", {"identifier": lane.script})
                    lane.script = None
                for frame in lane.page.frames:  # each frame's own storage: a routed origin's frame
                    frame.evaluate(scripts.FORGET)  # has a partition that clearDataForOrigin misses
                for origin in self._origins():
                    lane.cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
                lane.context.clear_cookies()
                lane.page.goto("about:blank")
                self._lanes.append(lane)
                return
            except PlaywrightError:
                pass  # a page that cannot be parked is not trusted with another variant
        with contextlib.suppress(PlaywrightError):
            lane.context.close()

    def _origins(self) -> list[str]:
        """Every origin a page can have stored something under: our server's, and each routed prefix's."""
        routed = {f"{u.scheme}://{u.netloc}" for u in map(urlsplit, self.visual.route) if u.scheme and u.netloc}
        return [self.server.origin, *sorted(routed - {self.server.origin})]

    def _close_lanes(self) -> None:
        lanes, self._lanes = self._lanes, []
        for lane in lanes:
            self._release(lane, reuse=False)

    def _open(self, variant: Variant) -> "_Pending":
        """A page for `variant` (an idle lane's, else a new one), navigation started but not awaited."""
        started = time.perf_counter()
        lane = self._lanes.pop() if self._lanes else self._new_lane(variant)
        try:
            page = lane.page
            page.set_viewport_size({"width": variant.width, "height": variant.height})  # also screen.width/height
            page.emulate_media(color_scheme=variant.media_scheme, reduced_motion="reduce")
            lane.aborted, lane.routed, lane.inflight = set(), set(), set()
            if variant.data_theme is not None:
                source = scripts.DATA_THEME % {"data_theme": json.dumps(variant.data_theme)}
                lane.script = lane.cdp.send("Page.addScriptToEvaluateOnNewDocument", {"source": source})["identifier"]
            url = self.server.url(variant.page)
            # Navigation started from inside the page returns at once (page.goto would block).
            page.evaluate("(url) => { window.location.href = url; }", url)
        except BaseException:
            self._release(lane, reuse=False)
            raise
        return _Pending(variant, lane, page, lane.aborted, url, started,
                        {"open": time.perf_counter() - started})

    def _prepare(self, job: "_Pending", say: Progress) -> "_Ready":
        """Load, settle, mask, wait until stable and take the page size: everything before the tiles."""
        variant, page, timings = job.variant, job.page, job.timings
        where = f"{variant.page} ({variant.viewport}-{variant.scheme})"
        say(f"{where}: {'switching scheme' if job.switched else 'loading'}")
        t = time.perf_counter()
        if job.switched:
            page.evaluate(scripts.NEXT_FRAME)  # media queries re-evaluated: <picture> sources swapped
        else:
            self._wait_loaded(page, job.url, where)
        t = self._mark(timings, "load", t)
        self._check_selectors(self._settle(job.lane, variant, where, job.explain, again=job.switched))
        t = self._mark(timings, "settle", t)
        cdp = job.lane.cdp
        ready = _Ready(job, where, cdp, _Shots(cdp), TileTimes())
        if self._nudges.get(variant):
            # Before the masks: a mask is placed where its element is, so it must
            # see the element where it will be captured.
            ready.nudged = self._nudge(page, self._nudges[variant])
        if self.visual.mask:
            # Masks are placed where their elements are, so only once those stopped moving.
            self._wait_stable(page, ready.shots, where)
            page.evaluate(scripts.MASK, {"selectors": list(self.visual.mask), "color": MASK_COLOR})
        self._measure(ready)
        self._mark(timings, "stable", t)
        return ready

    def _measure(self, ready: "_Ready") -> None:
        """Wait for two agreeing looks, then take the page size the tiles will cover."""
        ready.before = self._wait_stable(ready.job.page, ready.shots, ready.where)
        geometry = ready.job.page.evaluate(scripts.GEOMETRY)
        ready.width, ready.height = int(geometry["width"]), int(geometry["height"])

    def _start_tiles(self, ready: "_Ready", say: Progress) -> "_Shooting":
        say(f"{ready.where}: capturing {ready.width}×{ready.height} px")
        ready.tiles_started = time.perf_counter()
        tiles = TileJob(ready.cdp, ready.width, ready.height, self.visual.tile_height,
                        times=ready.tile_times, hook=self.tile_hook).start()
        return _Shooting(ready, tiles)

    def _complete(self, shooting: "_Shooting", say: Progress) -> Capture:
        """Join the tiles, re-check the layout (retry when it moved), guard, name the regions."""
        ready, timings = shooting.ready, shooting.ready.job.timings
        page = ready.job.page
        arg = {"regions": list(self.visual.regions.items()), "maxSamples": TEXT_SAMPLES,
               "masks": list(self.visual.mask)}
        for attempt in range(CAPTURE_ATTEMPTS):
            shooting.tiles.wait_calls()
            t = self._mark(timings, "tiles", ready.tiles_started)
            # The page must not have moved while the tiles were taken (a late
            # font, an image, a script): compare the layout hash again. The
            # same round trip measures regions and text lines; they describe
            # the tiles only when the hash is unchanged.
            after = json.loads(page.evaluate(scripts.AFTER_TILES, arg))
            t = self._mark(timings, "regions", t)
            if after["hash"] == ready.before[0]:
                break
            shooting.tiles.cancel()
            if attempt + 1 == CAPTURE_ATTEMPTS:
                raise UnstableRender(
                    f"{ready.where}: the layout changed during each of {CAPTURE_ATTEMPTS} captures; "
                    "something keeps moving after load (a script or late content) — mask it with `mask = [...]`"
                )
            say(f"{ready.where}: layout changed during capture, retrying ({attempt + 2}/{CAPTURE_ATTEMPTS})")
            self._measure(ready)
            self._mark(timings, "stable", t)
            shooting.tiles = self._start_tiles(ready, say).tiles  # the caller cancels whatever is current
        image = shooting.tiles.image()
        t = self._mark(timings, "tiles", t)
        check_whole(image, after["lines"], self.visual.tile_height)
        check_seams(image, shooting.tiles.seams)
        release(image)  # the guard read rows all over a tall page; the caller reads what it needs
        t = self._mark(timings, "guard", t)
        regions = self._regions(after["found"], ready.width, ready.height)
        web = set(after["fonts"]["web"])
        families = sorted({f for stack in after["fonts"]["stacks"] for f in split_stack(stack)} - web)
        fingerprint = {**self.fingerprint, "fonts": self._font_files(after["resources"]),
                       "system_fonts": fallback_fonts(families)}
        self._mark(timings, "regions", t)
        tt, shots = ready.tile_times, ready.shots
        timings.update(switched=ready.job.switched, tile_calls=tt.calls, tile_seconds=tt.browser,
                       check_shots=shots.calls, check_shot_seconds=shots.seconds, decode_seconds=tt.decode,
                       decode_wait=tt.wait)
        return Capture(
            variant=ready.job.variant, image=image, regions=regions, aborted=sorted(ready.job.aborted),
            fingerprint=fingerprint, seconds=time.perf_counter() - ready.job.opened,
            full_page=self.visual.full_page, timings=timings, nudged=dict(ready.nudged),
            explain={**ready.job.explain, "undefined_tags": after["undefined"],
                     "routed": sorted(ready.job.lane.routed), "aborted": sorted(ready.job.aborted)},
        )

    def _wait_loaded(self, page, url: str, where: str) -> None:
        from playwright.sync_api import Error as PlaywrightError

        try:
            page.wait_for_url(url, wait_until="load", timeout=NAV_TIMEOUT_MS)
        except PlaywrightError as err:
            raise CaptureError(f"{where}: the page did not load ({str(err).splitlines()[0]})") from None

    def _settle(self, lane: "_Lane", variant: Variant, where: str, explain: dict,
                again: bool = False) -> dict | None:
        """Wait until the page has done what it does after load (_wait_quiet), give it the
        reader's view (scrolled through once, back at the top, then frozen: FREEZE_VIEW),
        then screenshot-only CSS. Returns the first configured selector that does not
        parse (see _check_selectors), or None. `again`: the page was settled and frozen
        before (in another scheme); its sheets are in place."""
        page = lane.page
        self._wait_quiet(lane, variant, where, explain, "load")
        if again:
            page.evaluate(scripts.STOP_ANIMATIONS)
            return None
        status = explain["load"]["status"]
        if status["observers"] or status["scrollers"]:
            t = time.perf_counter()
            steps = page.evaluate(scripts.READ_THROUGH)
            explain["read_through"] = {"screens": steps, "seconds": round(time.perf_counter() - t, 3)}
            self._wait_quiet(lane, variant, where, explain, "read_through_settle")
        explain["frozen"] = page.evaluate(scripts.FREEZE_VIEW)
        sheets = [scripts.STABLE_CSS] + ([self._style_css] if self._style_css is not None else [])
        items = [[k, s] for k, s in self.visual.regions.items()] + [["mask", s] for s in self.visual.mask]
        return page.evaluate(scripts.FREEZE, {"sheets": sheets, "flag": STABLE_FLAG, "selectors": items})

    def _wait_quiet(self, lane: "_Lane", variant: Variant, where: str, explain: dict, what: str) -> None:
        """Return once the page is done: no request to our server or a route in flight,
        fonts loaded, every image complete, maths typeset (d-math shadow roots, or
        <html data-typeset="done">), and then QUIET_MS with no request, no new custom
        element definition, no DOM change and no short timer pending.

        The first four are waited for up to settle_timeout, then a CaptureError names
        what was still pending. The quiet is waited for up to SOFT_WAIT_S more: a page
        whose DOM never stops changing (a clock) is left to the stability check, which
        says what to mask. Custom tags nothing defines are listed, never waited for."""
        page = lane.page
        t0 = time.monotonic()
        deadline = t0 + self.visual.settle_timeout
        hard_done = None
        while True:
            status = page.evaluate(scripts.PROBE, {"dataTheme": variant.data_theme})
            now = time.monotonic()
            pending = self._pending(lane, status)
            net_quiet = 0.0 if lane.inflight else (now - lane.net_last) * 1000
            quiet = min(net_quiet, status["quietMs"]) if not status["timers"] else 0.0
            if not pending:
                hard_done = hard_done or now
                if quiet >= QUIET_MS or now - hard_done > SOFT_WAIT_S:
                    break
            elif now > deadline:
                raise CaptureError(
                    f"{where}: still waiting after {self.visual.settle_timeout} s for {'; '.join(pending)}; "
                    f"{self._pending_advice(lane, status)}")
            page.wait_for_timeout(POLL_MS)
        page.evaluate(scripts.DECODE_IMAGES)
        explain[what] = {"seconds": round(time.monotonic() - t0, 3), "status": status,
                         "quiet": quiet >= QUIET_MS}

    @staticmethod
    def _pending(lane: "_Lane", status: dict) -> list[str]:
        """What a settled page must not still be doing, in words for the error."""
        out = []
        if lane.inflight:
            urls = sorted(r.url for r in lane.inflight)
            out.append(f"{len(urls)} request(s) ({urls[0]}{', …' if len(urls) > 1 else ''})")
        if status["readyState"] != "complete":
            out.append(f"the load event (document is {status['readyState']!r})")
        if status["mathsPending"]:
            out.append(f"{status['mathsPending']} of {status['maths']} d-math elements to be typeset")
        if status["typeset"] not in (None, "done"):
            out.append(f"<html data-typeset> to be 'done' (it is {status['typeset']!r})")
        if status["images"]:
            out.append(f"{len(status['images'])} image(s) ({status['images'][0]})")
        if status["fonts"] != "loaded":
            out.append("web fonts to load")
        return out

    def _pending_advice(self, lane: "_Lane", status: dict) -> str:
        """The config key that helps with what was pending."""
        if status["mathsPending"] and lane.aborted:
            return (f"the page's maths library may be among the {len(lane.aborted)} aborted request(s) "
                    f"(first {sorted(lane.aborted)[0]}): serve it from a local copy with `route` in "
                    f"{config_position(self.source, 'route')}")
        return f"raise settle_timeout in {config_position(self.source, 'settle_timeout')} if the page is only slow"

    def _check_selectors(self, bad: dict | None) -> None:
        """ConfigError naming the config key of a selector the browser could not parse."""
        if bad:
            what = "mask" if bad["where"] == "mask" else f"region {bad['where']!r}"
            raise ConfigError(
                f"{config_position(self.source, bad['where'])}: {what}: {bad['selector']!r} "
                "is not a valid CSS selector; fix the selector"
            )

    def _wait_stable(self, page, shots: "_Shots", where: str) -> tuple:
        """Return once two consecutive looks at the page agree.

        "Capture until two consecutive captures are identical" would mean taking
        a 120 000 px page twice (≈ 2 × 10 s). Instead one look is a pair:
          - a hash of every element's box and the document size (LAYOUT_HASH),
            taken after two animation frames: catches anything that moves or
            resizes anywhere on the page, for a few ms;
          - a hash of a viewport screenshot (the first screen, ~30 ms): catches
            paint-only changes (colours, a canvas, a blink) the layout misses.
        Both must be equal twice in a row. After the tiles, the layout hash is
        taken once more, so a change *during* the capture is caught too.
        """
        previous = None
        for _ in range(STABLE_CHECKS):
            layout = page.evaluate(scripts.LAYOUT_HASH_NEXT_FRAME)
            look = (layout, shots.viewport_hash())
            if look == previous:
                return look
            previous = look
        raise UnstableRender(
            f"{where}: the page kept changing over {STABLE_CHECKS} checks (layout or the first screen "
            "differs each time); stop the animation or mask the element with `mask = [...]`"
        )

    def _named(self, found: dict) -> Iterator[tuple[str, str, int, dict]]:
        """(key, name, ordinal, measured item) of every region element, in config-key then
        document order; `ordinal` is the element's place among its key's visible matches."""
        bases = heading_bases(found["headings"])
        for key in self.visual.regions:
            items = found["regions"].get(key, [])
            names = region_names([it["heading"] for it in items], bases)
            for ordinal, (item, name) in enumerate(zip(items, names)):
                yield key, name, ordinal, item

    def _regions(self, found: dict, width: int, height: int) -> list[Region]:
        headings = found["headings"]
        out = []
        for key, name, _ordinal, item in self._named(found):
            box = _clip_box(item["box"], width, height)
            if box is None:
                continue  # named first, so skipping it renames nothing
            heading = headings[item["heading"]] if item["heading"] is not None else ""
            out.append(Region(key, name, box, heading, item["selector"], tuple(item["box"])))
        return out

    def _nudge(self, page, nudges: Nudges) -> dict:
        """Move the named regions' elements by (dx, dy) CSS px (relative positioning, which
        moves an element without moving anything else); returns those that were moved."""
        found = page.evaluate(scripts.REGIONS, {"regions": list(self.visual.regions.items())})
        todo = []
        for key, name, ordinal, _item in self._named(found):
            path = Region(key, name, (0, 0, 0, 0), "", "").path.as_posix()
            if path in nudges:
                dx, dy = nudges[path]
                todo.append({"path": path, "selector": self.visual.regions[key], "ordinal": ordinal,
                             "dx": dx, "dy": dy})
        moved = set(page.evaluate(scripts.NUDGE, todo)) if todo else set()
        return {t["path"]: (t["dx"], t["dy"]) for t in todo if t["path"] in moved}


STABLE_FLAG = "__themeStable"


def screenshot(target) -> np.ndarray:
    """A Playwright Page or Locator → (H, W, 4) RGBA, with animations off and the caret hidden."""
    page = target if hasattr(target, "goto") else target.page
    if not page.evaluate(f"() => !!window.{STABLE_FLAG}"):
        page.evaluate(scripts.ADOPT_CSS, scripts.STABLE_CSS)
        page.evaluate(scripts.STOP_ANIMATIONS)
        page.evaluate(f"() => {{ window.{STABLE_FLAG} = true; }}")
    png = target.screenshot(type="png", animations="disabled", caret="hide", scale="css")
    return decode_png(png, what="screenshot")

