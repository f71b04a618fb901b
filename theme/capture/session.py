"""The capture session: one local server and one browser, many variants.

    with Session(visual) as s:
        for v in variants(visual):
            cap = s.capture(v)        # Capture: full-page RGBA image + named regions

The Session starts and stops what a capture needs (the server, the browser: launch.py) and
hands each variant on: the pages' own variants to overlap.py, reader states after them to
chain.py, and pages for other checks (open, loaded) to the lanes and readiness directly.
"""

from __future__ import annotations

import contextlib
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping

import numpy as np

from ..core.config import VisualConfig
from ..core.errors import CaptureError
from . import bounded, scripts
from .browser import BrowserInfo
from .chain import Chain
from .config_checks import check_config
from .driver import shared_playwright
from .lanes import Lanes, Pending
from .launch import connect, first_line, launch, owns
from .model import Capture, Failure, JsonObject, Nudges, Progress, label
from .naming import Variant
from .overlap import Overlap
from .readiness import Readiness, wait_loaded
from .server import LocalServer
from .shoot import Shooter

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

__all__ = ["Session"]


class Session:
    """Starts the 127.0.0.1 server and ONE browser once; `capture()` any number of variants.

    Each variant goes through three hands: a lane gives it a page (lanes.py), the
    page is waited into its final state (readiness.py), its tiles are taken and
    checked (shoot.py); capture_all overlaps neighbouring variants (overlap.py) and
    takes reader states after them (chain.py)."""

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
        pw = self._stack.enter_context(shared_playwright())
        if self.endpoint:
            browser, self.fingerprint = connect(pw, self.endpoint, self.visual)
        else:
            browser, self.browser_info, self.fingerprint = launch(pw, self.visual, self._browser_arg)
        self._browser = browser
        if owns(browser):  # a connected browser is never kept
            self._stack.callback(browser.close)
        self._lanes = Lanes(browser, self.server, self.visual)
        self._stack.callback(self._lanes.close)
        self._shooter = Shooter(self.visual, self._readiness, self.server, self.fingerprint)

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

        While one page's tiles are taken the next page is loaded, settled and
        measured (overlap.py).

        A variant whose page fails (a RenderError, a settle that times out, a
        renderer that crashes) while the browser still answers is that variant's
        failure alone: with `failures` it is yielded in its place as a Failure and
        the others go on; without, the captures before it are yielded, then its
        error is raised.

        Reader states (a Variant with `state`, states.py) come after the pages'
        own variants, chained on one page where they can be (chain.py).
        """
        _, lanes, shooter = self._started()
        assert self.server is not None  # started with the browser
        say = progress or (lambda _msg: None)
        todo = list(todo)
        states = [v for v in todo if v.state]  # after the pages (naming.variants)
        pages = Overlap(self.visual, lanes, self._readiness, shooter, self._failure, dict(nudges or {}),
                        self.tile_hook)
        first = yield from pages.run([v for v in todo if not v.state], say, failures,
                                     then=states[0] if states else None)
        chain = Chain(self.visual, lanes, self._readiness, self.server, self.fingerprint, self._failure)
        yield from chain.run(states, say, failures, first)

    def _failure(self, variant: Variant, err: BaseException) -> Failure | None:
        """`err` as `variant`'s own Failure, or None when it is not the page's alone: a
        config mistake, an interrupt, or a browser that no longer answers."""
        from playwright.sync_api import Error as PlaywrightError

        if isinstance(err, CaptureError):
            message = str(err)
        elif isinstance(err, PlaywrightError):
            message = (f"{label(variant)}: the page failed in the browser ({first_line(err)}); "
                       "run `theme capture --explain` on it")
        else:
            return None
        if not self.answers():
            return None
        return Failure(variant, message, getattr(err, "kind", "capture"), dict(getattr(err, "images", {})),
                       refusal=getattr(err, "refusal", None), error=err)

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
