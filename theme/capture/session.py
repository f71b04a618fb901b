"""The capture session: one local server and one browser, many variants.

    with Session(visual) as s:
        for v in variants(visual):
            cap = s.capture(v)        # Capture: full-page RGBA image + named regions
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib.metadata
import platform
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Generator, Iterable, Iterator, Mapping

import numpy as np

from .. import __version__
from ..config import VisualConfig
from ..errors import CaptureError
from . import bounded, remote, scripts
from .browser import BrowserInfo, find_browser, launch_flags
from .config_checks import check_config
from .lanes import Lanes, Pending, scheme_read
from .model import Capture, Failure, JsonObject, Nudges, Progress, Region, label
from .naming import Variant
from .readiness import STABLE_FLAG, Readiness, wait_loaded
from .schedule import Schedule
from .server import LocalServer
from .shoot import Shooter, Shooting
from .states import StartLook, capture_state, reset, settle_fresh, start_look
from .tiles import decode_png

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page, Playwright

__all__ = ["Capture", "Region", "Session", "check_config", "screenshot"]

_THREAD = threading.local()
CONNECT_TIMEOUT_MS = 30_000


@contextlib.contextmanager
def _shared_playwright() -> Iterator[Playwright]:
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


def _playwright_version() -> str:
    try:
        return importlib.metadata.version("playwright")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover
        return "unknown"


class Session:
    """Starts the 127.0.0.1 server and ONE browser once; `capture()` any number of variants.

    Each variant goes through three hands: a lane gives it a page (lanes.py), the
    page is waited into its final state (readiness.py), its tiles are taken and
    checked (shoot.py); capture_all overlaps neighbouring variants (schedule.py)."""

    def __init__(self, visual: VisualConfig, *, browser: str | None = None, source: Path | None = None,
                 endpoint: str | None = None):
        """`browser`: an executable to use instead of find_browser(); `source`: the config
        file, so errors about its keys point at `file:line:col`; `endpoint`: a browser
        server (`theme browser serve`) to connect to instead of launching one."""
        check_config(visual, source)
        self.visual = visual
        self.source = source
        self.endpoint = endpoint
        self._browser_arg = browser
        self._stack = ExitStack()
        self.server: LocalServer | None = None
        self.browser_info: BrowserInfo | None = None
        self.fingerprint: JsonObject = {}
        self.notes: list[str] = []  # what happened to browser endpoints (a Pool's); none here
        self._browser: Browser | None = None
        self._nudges: dict[Variant, Nudges] = {}  # for the capture_all() in progress
        style_css = visual.style.read_text(encoding="utf-8") if visual.style else None
        self._readiness = Readiness(visual, source, style_css)
        self._lanes: Lanes | None = None  # with the browser
        self._shooter: Shooter | None = None  # with the browser
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

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def close(self) -> None:
        self._stack.close()

    def _start(self) -> None:
        self.server = self._stack.enter_context(LocalServer(self.visual.root))
        pw = self._stack.enter_context(_shared_playwright())
        browser = self._connect(pw, self.endpoint) if self.endpoint else self._launch(pw)
        self._browser = browser
        self._stack.callback(browser.close)
        self._lanes = Lanes(browser, self.server, self.visual)
        self._stack.callback(self._lanes.close)
        self._shooter = Shooter(self.visual, self._readiness, self.server, self.fingerprint)

    def _launch(self, pw: Playwright) -> Browser:
        from playwright.sync_api import Error as PlaywrightError

        info = self.browser_info = find_browser(self._browser_arg, playwright=pw)
        flags = launch_flags(offline=self.visual.offline)
        try:
            browser = pw.chromium.launch(executable_path=str(info.executable), args=flags, headless=True)
        except PlaywrightError as err:
            raise CaptureError(
                f"{info.executable}: the browser did not start ({_first_line(err)}); "
                "set THEME_BROWSER to a working Chromium"
            ) from None
        self.fingerprint = self._fingerprint(browser, info, flags)
        return browser

    def _connect(self, pw: Playwright, endpoint: str) -> Browser:
        """Playwright's own protocol; `<loopback>` lets a browser on another machine (a
        container) reach this machine's 127.0.0.1 server through the connection."""
        from playwright.sync_api import Error as PlaywrightError

        try:
            browser = pw.chromium.connect(endpoint, timeout=CONNECT_TIMEOUT_MS, expose_network="<loopback>")
        except PlaywrightError as err:
            raise CaptureError(f"{remote.mask(endpoint)}: cannot connect to the browser server "
                               f"({remote.scrub(_first_line(err), (endpoint,))}); start one with "
                               f"`theme browser serve` or fix {remote.ENV} / [tool.theme.visual.browser]") from None
        self.fingerprint = remote_fingerprint(browser, endpoint, self.visual)
        return browser

    def _fingerprint(self, browser: Browser, info: BrowserInfo, flags: list[str]) -> JsonObject:
        """The environment every capture of this session is made in (Capture.fingerprint adds its fonts)."""
        return {
            "browser": {
                "name": browser.browser_type.name,
                "version": browser.version,
                "executable": str(info.executable),
                "found_by": info.source,
            },
            "playwright": _playwright_version(),
            "platform": {"system": platform.system(), "release": platform.release(),
                         "machine": platform.machine(), "libc": "-".join(platform.libc_ver())},
            "device_scale_factor": 1,
            "launch_flags": flags,
            # Pixels can depend on where the clips start (benchmarks/README.md), so the
            # tile height is part of the environment a baseline was made in.
            "tile_height": self.visual.tile_height,
            "theme_version": __version__,
        }

    def answers(self) -> bool:
        """Whether the browser still answers (a round trip: a killed server or a closed
        connection raises), to tell a page's own failure from its browser going away."""
        try:
            self._started()[0].new_context().close()
            return True
        except Exception:  # noqa: BLE001 - any failure of the probe means: gone
            return False

    def _started(self) -> tuple[Browser, Lanes, Shooter]:
        """The browser and what works with it; only inside `with Session(...)`."""
        if self._browser is None or self._lanes is None or self._shooter is None:
            raise CaptureError("Session.capture() called outside `with Session(...)`")
        return self._browser, self._lanes, self._shooter

    # ------------------------------------------------------------ capture

    def capture(self, variant: Variant, progress: Progress | None = None,
                nudges: Nudges | None = None) -> Capture:
        """One variant: load, stabilise, capture, crop."""
        shot = next(self.capture_all([variant], progress, {variant: nudges} if nudges else None))
        if isinstance(shot, Failure):  # not without failures=True: capture_all raises instead
            raise shot.error or CaptureError(shot.message)
        return shot

    def capture_all(self, todo: Iterable[Variant], progress: Progress | None = None,
                    nudges: Mapping[Variant, Nudges] | None = None, *,
                    failures: bool = False) -> Iterator[Capture | Failure]:
        """Captures in order, overlapping the work of neighbouring variants.

        `nudges` moves regions by a fraction of a pixel before a variant is
        captured: {variant: {"code/intro.png": (dx, dy)}}, in CSS px (see
        theme/check/phase.py for why). The regions moved are in `Capture.nudged`.

        The machine has two cores, so while variant N's tiles are being taken
        (the browser's work) the next fresh page is loaded, settled, checked for
        stability and measured. N+1's tiles start once N's capture calls are
        answered, and N is finished (layout re-checked, wholeness guarded,
        regions named) and yielded while N+1's tiles are taken. One page is
        tiled at a time: two at once took as long as one after the other, and
        held two renderers' tile bitmaps (benchmarks/README.md). A dark variant
        takes its light one's page right after it (schedule.plan, Lanes.switch):
        that page is completed first, then switched, a gap of ~0.3 s.

        A variant whose page fails (a RenderError, a settle that times out, a
        renderer that crashes) while the browser still answers is that variant's
        failure alone: with `failures` it is yielded in its place as a Failure and
        the others go on; without, the captures before it are yielded, then its
        error is raised.

        Reader states (a Variant with `state`, states.py) come after the pages'
        own variants, each on a fresh page of its own; the next state's page loads
        while the steps of the one before are done (_states).
        """
        self._started()
        say = progress or (lambda _msg: None)
        self._nudges = dict(nudges or {})
        todo = list(todo)
        states = [v for v in todo if v.state]  # after the pages (naming.variants)
        first = yield from self._pages([v for v in todo if not v.state], say, failures,
                                       then=states[0] if states else None)
        yield from self._states(states, say, failures, first)

    def _pages(self, todo: list[Variant], say: Progress, failures: bool,
               then: Variant | None) -> Generator[Capture | Failure, None, Pending | None]:
        """capture_all for the pages' own variants: the overlapped schedule. Returns the
        page of `then` (the first reader state), opened while the last page's tiles were
        taken, as a next page is."""
        _, lanes, shooter = self._started()
        schedule = Schedule(todo, self._switchable)
        ahead: Pending | None = None
        try:
            for place, variant in schedule:
                if schedule.switches_shooting(place):  # its page must be complete first
                    yield from self._hand_over(schedule, schedule.stop(), say)
                job = schedule.opened(place) or lanes.take(variant, schedule.kept(place))
                schedule.load_ahead(place, lanes.open)
                try:
                    ready = self._readiness.prepare(job, self._nudges.get(variant), say)
                    if schedule.followed(place):
                        schedule.note_read(place, scheme_read(job.page))
                        schedule.load_ahead(place, lanes.open)  # now known: switch it, or load anew
                except BaseException as err:
                    lanes.release(job.lane, reuse=False)
                    failure = self._failure(variant, err)
                    if failure is None:
                        # the variant before this one is good: hand it over first
                        yield from self._hand_over(schedule, schedule.stop(), say, failures)
                        raise
                    say(failure.message)
                    if schedule.followed(place):  # its page is not there to switch: load anew
                        schedule.note_read(place, "its render failed")
                        schedule.load_ahead(place, lanes.open)
                    schedule.finished(place, failure)
                    yield from self._due(schedule, failures)
                    continue
                if schedule.shooting is not None:
                    schedule.shooting.tiles.wait_calls()  # one page's capture calls at a time
                done = schedule.shoot(place, shooter.start(ready, say, self.tile_hook))
                yield from self._hand_over(schedule, done, say, failures)
            ahead = lanes.open(then) if then is not None else None
            yield from self._hand_over(schedule, schedule.stop(), say, failures)
            opened, ahead = ahead, None  # the caller's now: not closed below
            return opened
        finally:
            if ahead is not None:  # the last page failed the run
                lanes.release(ahead.lane, reuse=False)
            left = schedule.stop()
            if left is not None:
                left[1].tiles.cancel()
                lanes.release(left[1].ready.job.lane, reuse=False)
            for lane in schedule.abandon():
                lanes.release(lane, reuse=False)

    def _states(self, todo: list[Variant], say: Progress, failures: bool,
                ahead: Pending | None) -> Iterator[Capture | Failure]:
        """capture_all for reader states. A variant's first state is taken on a fresh page;
        each next state of the same variant on that page, reset (states.reset), when it is
        again as the first state found it (states.start_look: the document, the layout and
        the first screen); else, and after a failure, on a fresh page. A fresh page loads
        while the state before it does its steps, so that its load, the browser's work, runs
        beside that state's waits (a state is mostly waiting for quiet: benchmarks/README.md).
        `chain_states = false`: every state on a fresh page."""
        _, lanes, _ = self._started()
        kept: tuple[Pending, StartLook] | None = None  # a page a state was taken on, and its start
        try:
            for k, variant in enumerate(todo):
                nxt = todo[k + 1] if k + 1 < len(todo) else None
                job, look = (self._chained(kept, variant), kept[1]) if kept is not None else (None, None)
                if job is None:
                    job, ahead, look = ahead or lanes.open(variant), None, None
                    if kept is not None:
                        job.explain["page"] = (f"a fresh load: state {kept[0].variant.state} left its page "
                                               "other than it found it")
                kept = None
                chain_next = nxt is not None and self._chains(variant, nxt)
                if nxt is not None and not chain_next and ahead is None:
                    try:
                        ahead = lanes.open(nxt)
                    except BaseException:
                        lanes.release(job.lane, reuse=False)
                        raise
                shot, look = self._state(job, say, failures, look, keep=chain_next)
                if look is not None:
                    kept = (job, look)
                yield shot
        finally:
            for left in (ahead, kept[0] if kept is not None else None):
                if left is not None:  # the run stopped before its turn
                    lanes.release(left.lane, reuse=False)

    def _chains(self, variant: Variant, after: Variant) -> bool:
        """Whether `after` may be taken on the page `variant`'s state used: the same page,
        viewport and scheme, and the config does not say `chain_states = false`."""
        return self.visual.chain_states and dataclasses.replace(variant, state="") == \
            dataclasses.replace(after, state="")

    def _chained(self, kept: tuple[Pending, StartLook], variant: Variant) -> Pending | None:
        """`variant` on the kept page, reset, when its start look is the first state's; else
        None, the kept page closed (the state loads anew, as --explain says)."""
        _, lanes, _ = self._started()
        job, look = kept
        before = job.variant.state
        new = Pending(variant, job.lane, job.page, job.aborted, job.url, time.perf_counter(), {"open": 0.0},
                      explain={"page": f"the page of state {before}, reset: as that state found it"})
        try:
            reset(new, self._readiness)
            same = start_look(new, self._readiness) == look
        except BaseException as err:
            lanes.release(job.lane, reuse=False)
            if self._failure(variant, err) is None:
                raise
            return None
        if same:
            return new
        lanes.release(job.lane, reuse=False)
        return None

    def _state(self, job: Pending, say: Progress, failures: bool, look: StartLook | None,
               keep: bool) -> tuple[Capture | Failure, StartLook | None]:
        """A reader state's capture (states.py) on `job`, or its Failure; and the look its
        page started from when `keep` (the page is left open for the next state), else None.
        `look` None: `job` is a fresh page, loaded and settled here."""
        _, lanes, _ = self._started()
        state = next(s for s in self.visual.states if s.name == job.variant.state)
        try:
            if look is None:
                settle_fresh(job, self._readiness, say)
                job.explain.setdefault("page", "a fresh load")
                if keep:
                    look = start_look(job, self._readiness)
            assert self.server is not None  # started with the browser
            shot = capture_state(job, self._readiness, state, self.fingerprint, self.server, say)
        except BaseException as err:
            lanes.release(job.lane, reuse=False)
            failure = self._failure(job.variant, err)
            if failure is None or not failures:
                raise
            say(failure.message)
            return failure, None
        if not keep:
            lanes.release(job.lane, reuse=False)  # its steps changed the page
            return shot, None
        return shot, look

    def _hand_over(self, schedule: Schedule, done: tuple[int, Shooting] | None,
                   say: Progress, failures: bool = False) -> Iterator[Capture | Failure]:
        """Complete `done` = (place, its tiles) when there is one, then yield the captures whose turn it is."""
        if done is not None:
            place, shooting = done
            keep = schedule.keeps(place)
            try:
                capture = self._complete_and_close(shooting, say, keep=keep)
            except BaseException as err:
                failure = self._failure(shooting.ready.job.variant, err)
                if failure is None:
                    raise
                say(failure.message)
                schedule.finished(place, failure)  # nothing kept: the step switching it loads anew
            else:
                schedule.finished(place, capture, shooting.ready.job.lane if keep else None)
        yield from self._due(schedule, failures)

    @staticmethod
    def _due(schedule: Schedule, failures: bool) -> Iterator[Capture | Failure]:
        for shot in schedule.due():
            if isinstance(shot, Failure) and not failures:
                raise (shot.error or CaptureError(shot.message))
            yield shot

    def _failure(self, variant: Variant, err: BaseException) -> Failure | None:
        """`err` as `variant`'s own Failure, or None when it is not the page's alone: a
        config mistake, an interrupt, or a browser that no longer answers."""
        from playwright.sync_api import Error as PlaywrightError

        if isinstance(err, CaptureError):
            message = str(err)
        elif isinstance(err, PlaywrightError):
            message = (f"{label(variant)}: the page failed in the browser ({_first_line(err)}); "
                       "run `theme capture --explain` on it")
        else:
            return None
        if not self.answers():
            return None
        return Failure(variant, message, getattr(err, "kind", "capture"), dict(getattr(err, "images", {})),
                       refusal=getattr(err, "refusal", None), error=err)

    def _complete_and_close(self, shooting: Shooting, say: Progress, keep: bool = False) -> Capture:
        """Finish `shooting`; its lane is parked, or with `keep` left as it is for a switched step.

        A page taller than one tile is closed instead: its renderer keeps what the
        tiles cost (~600 MB at 130 000 px) even on about:blank, while the next
        page's tiles are taken; a new lane costs ~1 CPU-s (benchmarks/README.md)."""
        _, lanes, shooter = self._started()
        complete = False
        try:
            capture = shooter.complete(shooting, say, self.tile_hook)
            complete = True
            return capture
        finally:
            shooting.tiles.cancel()
            if not (keep and complete):
                reuse = complete and shooting.ready.height <= self.visual.tile_height
                lanes.release(shooting.ready.job.lane, reuse=reuse)

    def _switchable(self, variant: Variant) -> bool:
        """Whether `variant` may be taken from another scheme's page (schedule.plan): not when
        the config says `switch_schemes = false`, when it forces <html data-theme> before the
        page's scripts, nor when regions are nudged."""
        return self.visual.switch_schemes and variant.data_theme is None and not self._nudges.get(variant)

    # ------------------------------------------------------------ pages for other checks

    @contextlib.contextmanager
    def open(self, variant: Variant) -> Iterator[Page]:
        """A loaded, settled Playwright page of `variant` (same routing and stabilisation),
        for checks on the DOM or for `screenshot()`. Closed on exit."""
        _, lanes, _ = self._started()
        job = lanes.open(variant)
        try:
            where = label(variant)
            wait_loaded(job.page, job.url, where)
            self._readiness.settle(job.lane, variant, where, {})
            yield job.page
        finally:
            lanes.release(job.lane, reuse=False)  # the caller may have changed anything

    @contextlib.contextmanager
    def loaded(self, variant: Variant) -> Iterator[Pending]:
        """`variant`'s page at its load event, neither settled nor frozen, as a lanes.Pending
        (`.page`, `.aborted` growing as requests are blocked, `.lane.inflight`): for `theme
        init`, which looks at what a page asks for before any route exists, and `theme lint`,
        which reads what scripts defined (an unrouted KaTeX would time a settle out)."""
        _, lanes, _ = self._started()
        job = lanes.open(variant)
        try:
            wait_loaded(job.page, job.url, label(variant))
            yield job
        finally:
            lanes.release(job.lane, reuse=False)

    def elements_at(self, variant: Variant, boxes: list[tuple[int, int, int, int]]) -> list[str | None]:
        """For each box (x, y, w, h in page px), a selector of the smallest element holding it,
        on a freshly loaded and settled page of `variant` (for `theme capture --explain`)."""
        if not boxes:
            return []
        with self.open(variant) as page:
            found: list[str | None] = bounded.evaluate(page, scripts.ELEMENTS_AT, [list(b) for b in boxes])
            return found


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def remote_fingerprint(browser: Browser, endpoint: str, visual: VisualConfig) -> JsonObject:
    """What a remote browser renders with, measured in it: its version, its platform as it
    reports it, and a hash of a font-probe page's pixels (the server's fonts cannot be
    hashed from this machine's disk). Its launch flags are the server's own."""
    with browser.new_context(viewport={"width": 640, "height": 160}, device_scale_factor=1) as ctx:
        page = ctx.new_page()
        bounded.hold(page, ctx.new_cdp_session(page), seconds=bounded.ANSWER_S,
                     where=f"the browser at {remote.mask(endpoint)} (its font probe)")
        page.set_content(scripts.FONT_PROBE)
        platform_ = bounded.evaluate(page, "() => navigator.platform")
        probe = hashlib.sha256(screenshot(page).tobytes()).hexdigest()
    system, _, machine = platform_.partition(" ")
    return {
        "browser": {"name": browser.browser_type.name, "version": browser.version,
                    "executable": "remote", "found_by": remote.mask(endpoint)},
        "playwright": _playwright_version(),
        "platform": {"system": system, "machine": machine},
        "device_scale_factor": 1,
        "launch_flags": "set by the browser server",
        "system_fonts": {"font_probe": probe},
        "tile_height": visual.tile_height,
        "theme_version": __version__,
    }


def screenshot(target: Page | Locator) -> np.ndarray:
    """A Playwright Page or Locator → (H, W, 4) RGBA, with animations off and the caret hidden."""
    from playwright.sync_api import Locator

    page = target.page if isinstance(target, Locator) else target
    if not bounded.evaluate(page, f"() => !!window.{STABLE_FLAG}"):
        bounded.evaluate(page, scripts.ADOPT_CSS, scripts.STABLE_CSS)
        bounded.evaluate(page, scripts.STOP_ANIMATIONS)
        bounded.evaluate(page, f"() => {{ window.{STABLE_FLAG} = true; }}")
    png = target.screenshot(type="png", animations="disabled", caret="hide", scale="css")
    return decode_png(png, what="screenshot")
