"""Lanes: browser contexts, each with one page, handed from variant to variant (a new
renderer costs about half a load: benchmarks/README.md). A variant is opened on an idle
lane's page, or switched to its colour scheme on the page of the variant before it;
every request is routed and tracked; between variants a lane forgets what was stored."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from ..core.config import VisualConfig
from ..core.errors import Unresponsive
from . import bounded, pagetime, resources, scripts
from .model import JsonObject, Loaded, Timings, label
from .naming import Variant
from .server import LocalServer, resolve

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, CDPSession, Page, Request, Response, Route


@dataclass
class Lane:
    """A browser context with one page, and what the current variant did on it.

    Between variants it forgets (Lanes.release): the old document's session and
    local storage, the other storage of our origin and of every routed one,
    cookies; then it waits on about:blank, so the next variant's viewport change
    does not re-lay out the old page. A lane that saw an error is closed, not reused.
    """

    context: BrowserContext
    page: Page
    cdp: CDPSession
    aborted: set[str]  # the current variant's blocked URLs: the route handler adds to whatever set is here
    # Page time and seeded random numbers (pagetime.py): every page's lanes but real_time pages'.
    paged: bool = True
    # The current variant's requests that got nothing usable (blocked, a route without the
    # file, an HTTP error, a network error), by URL: resources.broken judges them.
    missed: dict[str, resources.Missed] = field(default_factory=dict)
    script: str | None = None  # id of the current variant's data_theme() init script (scripts.py)
    routed: set[str] = field(default_factory=set)  # the current variant's URLs served from a route
    inflight: set[Request] = field(default_factory=set)  # requests to our origin or a route not yet answered
    # What the current variant's page asked for, for the inputs digest (theme/check/inputs.py):
    # paths (with query) our server was asked for, and URLs let through to the network (online).
    served: set[str] = field(default_factory=set)
    passed: set[str] = field(default_factory=set)
    net_last: float = 0.0  # time.monotonic() of the last such request's start or end

    def loaded(self) -> Loaded:
        """What the page asked for so far (a switched variant's includes its first scheme's)."""
        return Loaded(frozenset(self.served), frozenset(self.routed), frozenset(self.passed))


@dataclass
class Pending:
    """A variant whose page is loading."""

    variant: Variant
    lane: Lane
    page: Page
    aborted: set[str]
    url: str
    opened: float
    timings: Timings
    switched: bool = False  # the page was already loaded, in another scheme (Lanes.switch)
    explain: JsonObject = field(default_factory=dict)  # what settling waited for and did (Capture.explain)


def routed_file(route: Mapping[str, Path | str], url: str) -> tuple[bool, Path | None]:
    """(matched a `route` prefix?, the local file or None). The longest prefix wins.

    A route to a folder serves every URL under its prefix; a route to a file serves that
    one address, with any query or fragment (`https://distill.pub/template.v2.js?v=2`),
    and no longer URL that merely starts the same (`…/template.v2.js.map`)."""
    for prefix in sorted(route, key=len, reverse=True):
        if url.startswith(prefix):
            rest = unquote(urlsplit(url[len(prefix):]).path)
            target = Path(route[prefix])
            if target.is_file():
                if rest:
                    continue
                return True, target
            return True, resolve(target, "/" + rest.lstrip("/"))
    return False, None


def scheme_read(page: Page) -> str | None:
    """How a script of the page, in any frame, learned the colour scheme (scripts.SCHEME_PROBE)."""
    for frame in page.frames:  # the main frame first
        how = bounded.evaluate_in(page, frame, scripts.SCHEME_READ, "reading the colour scheme")
        if how:
            return str(how)
    return None


class Lanes:
    """The lanes of one browser: idle ones parked on about:blank, new ones made on demand."""

    def __init__(self, browser: Browser, server: LocalServer, visual: VisualConfig):
        self._browser = browser
        self._server = server
        self._visual = visual
        self._idle: list[Lane] = []

    def open(self, variant: Variant) -> Pending:
        """A page for `variant` (an idle lane's, else a new one), navigation started but not awaited."""
        started = time.perf_counter()
        lane = self._idle_lane(paged := self.paged(variant)) or self._new(variant, paged)
        try:
            page = lane.page
            page.set_viewport_size({"width": variant.width, "height": variant.height})  # also screen.width/height
            page.emulate_media(color_scheme=variant.media_scheme, reduced_motion="reduce")
            lane.aborted, lane.routed, lane.inflight, lane.missed = set(), set(), set(), {}
            lane.served, lane.passed = set(), set()
            if variant.data_theme is not None:
                source = scripts.data_theme(variant.data_theme)
                lane.script = lane.cdp.send("Page.addScriptToEvaluateOnNewDocument", {"source": source})["identifier"]
            url = self._server.url(variant.page)
            # Navigation started from inside the page returns at once (page.goto would block).
            bounded.hold(page, lane.cdp, seconds=bounded.answer_s(self._visual), where=label(variant))
            bounded.evaluate(page, "(url) => { window.location.href = url; }", url)
        except BaseException:
            self.release(lane, reuse=False)
            raise
        return Pending(variant, lane, page, lane.aborted, url, started,
                       {"open": time.perf_counter() - started})

    def paged(self, variant: Variant) -> bool:
        """Whether `variant`'s page runs on page time with seeded random numbers (not real_time)."""
        return variant.page not in self._visual.real_time

    def _idle_lane(self, paged: bool) -> Lane | None:
        """An idle lane of the same kind: a context's page clock cannot be taken out again."""
        for i, lane in enumerate(self._idle):
            if lane.paged == paged:
                return self._idle.pop(i)
        return None

    def take(self, variant: Variant, lane: Lane | None) -> Pending:
        """`variant` on `lane`'s page by switching the scheme, or on a fresh page when
        there is no lane or its page's scripts have since learned the scheme."""
        if lane is not None:
            try:
                how = scheme_read(lane.page)
            except BaseException:
                self.release(lane, reuse=False)
                raise
            if how is None:
                return self.switch(lane, variant)  # releases the lane itself if it fails
            self.release(lane, reuse=True)
        return self.open(variant)

    def switch(self, lane: Lane, variant: Variant) -> Pending:
        """The lane's page, as taken for its last variant, now in `variant`'s colour scheme.

        The same as a fresh load in that scheme when the page's own scripts never
        learned the scheme (scripts.SCHEME_PROBE), because then only its CSS, and
        what the browser picks by media query (<picture> sources), depend on it;
        and a load is saved (benchmarks/README.md)."""
        started = time.perf_counter()
        try:
            bounded.evaluate(lane.page, scripts.UNMASK)  # masks are placed anew where this scheme lays things out
            lane.page.emulate_media(color_scheme=variant.media_scheme, reduced_motion="reduce")
            bounded.hold(lane.page, lane.cdp, seconds=bounded.answer_s(self._visual), where=label(variant))
        except BaseException:
            self.release(lane, reuse=False)
            raise
        return Pending(variant, lane, lane.page, lane.aborted, self._server.url(variant.page), started,
                       {"open": time.perf_counter() - started}, switched=True)

    def release(self, lane: Lane, *, reuse: bool) -> None:
        """Park `lane` for the next variant, or close it (after an error, or when parking fails)."""
        from playwright.sync_api import Error as PlaywrightError

        if reuse:
            try:
                self._forget(lane)
                self._idle.append(lane)
                return
            except (PlaywrightError, Unresponsive):
                pass  # a page that cannot be parked is not trusted with another variant
        with contextlib.suppress(PlaywrightError):
            lane.context.close()

    def close(self) -> None:
        """Close every idle lane (the session is ending)."""
        lanes, self._idle = self._idle, []
        for lane in lanes:
            self.release(lane, reuse=False)

    def _forget(self, lane: Lane) -> None:
        """Clear what the last variant could have left on `lane`, then park it on about:blank."""
        if lane.script is not None:
            lane.cdp.send("Page.removeScriptToEvaluateOnNewDocument", {"identifier": lane.script})
            lane.script = None
        for frame in lane.page.frames:  # each frame's own storage: a routed origin's frame
            # has a partition that clearDataForOrigin misses
            bounded.evaluate_in(lane.page, frame, scripts.FORGET, "clearing the storage")
        for origin in self._origins():
            lane.cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        lane.context.clear_cookies()
        lane.page.goto("about:blank")

    def _origins(self) -> list[str]:
        """Every origin a page can have stored something under: our server's, and each routed prefix's."""
        routed = {f"{u.scheme}://{u.netloc}" for u in map(urlsplit, self._visual.route) if u.scheme and u.netloc}
        return [self._server.origin, *sorted(routed - {self._server.origin})]

    def _new(self, variant: Variant, paged: bool) -> Lane:
        """A new context (UTC, en-US, no service workers) and page, routed and tracked; when
        `paged`, with seeded random numbers and the page clock (pagetime.py)."""
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
            seeded = scripts.seeded(self._visual.seed) if paged else ""
            context.add_init_script(scripts.KEEP_REAL_TIME + seeded + scripts.EAGER + scripts.SCHEME_PROBE
                                    + scripts.WATCH)
            if paged:
                pagetime.install(context)  # after KEEP_REAL_TIME: theme's scripts keep the real timers
            page = context.new_page()
            lane = Lane(context, page, context.new_cdp_session(page), set(), paged)
            self._track_requests(lane)
            lane.cdp.send("Page.enable")  # else this session's addScriptToEvaluateOnNewDocument never runs
            # Only requests that do NOT go to our server are intercepted: the pattern
            # is matched inside the browser driver, so local files (most requests)
            # never take the round trip through this Python process.
            page.route(re.compile(rf"^(?!{re.escape(self._server.origin)}/)"), self._handler(lane))
        except BaseException:
            context.close()
            raise
        return lane

    def _handler(self, lane: Lane) -> Callable[[Route], None]:
        """The route handler: our server passes, `route` prefixes are served from local
        folders, anything else is aborted and listed (or, online, let through)."""
        origin = self._server.origin + "/"
        route_map = self._visual.route
        offline = self._visual.offline

        def handle(route: Route) -> None:
            url = route.request.url
            if url.startswith(origin):
                route.continue_()
                return
            matched, local = routed_file(route_map, url)
            if local is not None:
                lane.routed.add(url)
                route.fulfill(path=str(local), headers={"Access-Control-Allow-Origin": "*"})
            elif matched or offline:
                lane.aborted.add(url)
                why = resources.NOT_IN_ROUTE if matched else resources.BLOCKED
                lane.missed.setdefault(url, resources.Missed(url, route.request.resource_type, why))
                route.abort("blockedbyclient")
            else:
                lane.passed.add(url)
                route.continue_()

        return handle

    def _track_requests(self, lane: Lane) -> None:
        """Count the lane's requests to our server and to routes while they are in flight
        (network quiet, Readiness). Third-party requests are aborted, or when online
        never waited for: a beacon that hangs must not hold the capture."""
        origin = self._server.origin
        ours = (origin + "/", *self._visual.route)

        def started(request: Request) -> None:
            if request.url.startswith(origin + "/"):
                lane.served.add(request.url[len(origin):])
            if request.url.startswith(ours):
                lane.inflight.add(request)
                lane.net_last = time.monotonic()

        def ended(request: Request) -> None:
            if request in lane.inflight:
                lane.inflight.discard(request)
                lane.net_last = time.monotonic()

        def failed(request: Request) -> None:
            ended(request)
            if request.url not in lane.missed and request.url not in lane.aborted:
                why = request.failure or "failed"
                lane.missed[request.url] = resources.Missed(request.url, request.resource_type, why)

        def answered(response: Response) -> None:
            # A fetch() is answered when its response is: its body is the page's to read, or
            # not (`fetch(url).catch(…)` on a missing file), and unread it never "finishes".
            if response.request.resource_type == "fetch":
                ended(response.request)
            # Only what a render depends on is kept: an HTTP error on an image is the
            # page's own business (and shows in the image); on a script it is a broken page.
            if response.status >= 400 and response.request.resource_type in resources.ESSENTIAL:
                url = response.url
                lane.missed.setdefault(url, resources.Missed(url, response.request.resource_type,
                                                             f"HTTP {response.status}"))

        lane.page.on("request", started)
        lane.page.on("requestfinished", ended)
        lane.page.on("requestfailed", failed)
        lane.page.on("response", answered)
