"""When a loaded page is ready for its tiles (Readiness.prepare): settled (what it
does after load is done, the reader's view frozen), nudged and masked, two
agreeing looks in a row, and its size measured.

"Done" is decided by one routine, settle(), for the capture, `theme init`
(theme/init/survey.py) and `theme lint` (theme/init/lint/render.py), in named modes whose
differences are data (Mode: CAPTURE, SURVEY, LINT). After its load event a page keeps
working: it fetches, defines custom elements, typesets, decodes. settle() asks the page
(scripts.PROBE, every POLL_MS) and its lane (the requests) until:
  1. the hard conditions hold, each waited for up to the mode's timeout, then named:
     no request to our server or a route in flight; the load event; web fonts loaded;
     every image complete; maths typeset (every <d-math> holds KaTeX output or a KaTeX
     error, and <html data-typeset>, where a page has it, is "done"); and, in a mode with
     `network_quiet`, no request, not even a blocked one, for `quiet_s`;
  2. then the quiet: `quiet_s` with no request, no DOM change, no custom element defined
     and no short timer pending (the watch.js init script). A page that never stops
     changing (a clock, an animation on a loop) is left `restless_s` after the hard
     conditions: the stability check (wait_stable), or init's watch, names what moves.
Custom tags nothing defines are listed, never waited for."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable
from urllib.parse import urlsplit

from ..core.config import VisualConfig
from ..core.errors import CaptureError, RenderError, UnstableRender
from . import bounded, pagetime, resources, scripts
from .bounded import ask, evaluate, screenshot
from .config_checks import check_selectors, config_position
from .lanes import Lane, Pending
from .model import JsonObject, Nudges, Progress, Rows, label, mark, wanted_rows
from .naming import Variant
from .regions import nudge
from .tiles import TileTimes
from .unmoved import check_unmoved

if TYPE_CHECKING:
    from playwright.sync_api import CDPSession, Page

MASK_COLOR = "#ff00ff"  # loud on purpose: a masked box is never mistaken for content
STABLE_FLAG = "__themeStable"  # set on a page once its screenshot-only CSS is in (screenshot())
STABLE_CHECKS = 20  # rounds of (layout hash, viewport shot) before UnstableRender
NAV_TIMEOUT_MS = 60_000
OVERFLOW_NAMED = 3  # widest overflowing elements a failure names
MOVING_NAMED = 3  # elements that keep changing a failure names
MOVING_WAIT_MS = 700  # how long apart the two looks at a restless page are
POLL_MS = 40  # how often settle() asks the page
REACT_S = 2.0  # page time after a reader-state step or a reset (Readiness._budget_ms)
# One look of wait_stable: the layout hash (layout_hash.js: [hash, elements, width, height])
# and the first screen's hash (None: the layout only).
Look = tuple[list[int], str | None]


@dataclass(frozen=True)
class Mode:
    """How one caller decides that a page is done (settle(); the module docstring)."""

    name: str
    quiet_s: float  # how long nothing new must happen
    # Whether a quiet network (a blocked request counting as traffic) is a hard
    # condition. Otherwise only requests in flight are, and the network's quiet is
    # part of the soft quiet.
    network_quiet: bool
    blocked_maths: bool  # maths is waited for even once a request was blocked
    restless_s: float  # how long past the hard conditions a page that keeps changing is waited for
    timeout_s: float | None = None  # the hard conditions' limit; None: the caller's (settle_timeout)


# The capture: a blocked request is refused at once unless allow_blocked names it
# (Readiness.check_resources), so one that is allowed is no sign of work; maths must be
# typeset, or the page is not the page; 250 ms of quiet is enough, as the stability
# checks after it (wait_stable) catch whatever still moves.
CAPTURE = Mode("capture", quiet_s=0.25, network_quiet=False, blocked_maths=True, restless_s=3.0)
# `theme init` reads what a page asks for before any route exists: a blocked request
# is the page still working (a lazy fetch), and maths whose library was blocked never
# typesets, so it is not waited for; past the timeout init reports what was pending.
SURVEY = Mode("survey", quiet_s=0.5, network_quiet=True, blocked_maths=False, restless_s=3.0)
# `theme lint` reads the stylesheets and classes a page's scripts added, which come with
# what they fetch (Distill's bibliography, after the load event): the network's quiet, as
# Playwright's networkidle measures it (500 ms), up to 5 s. What a page keeps changing
# after that (an animation) adds no stylesheet, so it is not waited for.
LINT = Mode("lint", quiet_s=0.5, network_quiet=True, blocked_maths=False, restless_s=0.0, timeout_s=5.0)


@dataclass
class Settled:
    """What settle() saw last: `status` is scripts.PROBE's answer."""

    status: JsonObject
    seconds: float
    quiet: bool  # the quiet was reached (not left after restless_s)
    pending: list[str] = field(default_factory=list)  # hard conditions still unmet, in words: timed out
    moved: pagetime.Moved = field(default_factory=pagetime.Moved)  # page time the wait moved (pagetime.py)

    @property
    def timed_out(self) -> bool:
        return bool(self.pending)


def settle(page: Page, lane: Lane, mode: Mode, *, timeout_s: float | None = None, data_theme: str | None = None,
           on_probe: Callable[[JsonObject], None] | None = None, where: str = "the page",
           page_time_ms: int = VisualConfig.page_time * 1000) -> Settled:
    """Wait until `page` (on `lane`) is done as `mode` has it; past the timeout
    (the mode's, else `timeout_s`), return what is still pending. `data_theme` is held on
    <html> while waiting; `on_probe(status)` runs after each look (the capture refuses a
    broken render there). A page that does not answer a look within the timeout raises
    Unresponsive (`where` names it).

    On a lane with page time (pagetime.py), its clock is first moved while a timer is due
    within `page_time_ms`, then the page is waited for; and again, with what is left of the
    budget, for as long as what answered during the wait scheduled more."""
    limit = mode.timeout_s if mode.timeout_s is not None else timeout_s
    if limit is None:
        raise ValueError(f"settle mode {mode.name!r} has no timeout: give timeout_s")
    moved = pagetime.Moved()
    done: Settled | None = None
    while True:
        more = (pagetime.advance(lane, page_time_ms - moved.ms, limit, where, moved.ms) if lane.paged
                else pagetime.Moved())
        moved = moved.then(more)
        if done is not None and not more.steps:
            break
        done = _settle(page, lane, mode, limit, data_theme, on_probe, where)
        if done.timed_out:
            break
    done.moved = moved
    return done


def _settle(page: Page, lane: Lane, mode: Mode, limit: float, data_theme: str | None,
            on_probe: Callable[[JsonObject], None] | None, where: str) -> Settled:
    """settle()'s wait, with page time where it is."""
    t0 = time.monotonic()
    blocked, blocked_at = len(lane.aborted), t0
    hard_done: float | None = None
    while True:
        status: JsonObject = ask(lane.cdp, scripts.PROBE, {"dataTheme": data_theme},
                                 seconds=max(limit, bounded.ANSWER_S), where=where)
        if on_probe is not None:
            on_probe(status)
        now = time.monotonic()
        if len(lane.aborted) != blocked:
            blocked, blocked_at = len(lane.aborted), now
        last = max(lane.net_last, blocked_at) if mode.network_quiet else lane.net_last
        net_quiet = 0.0 if lane.inflight else now - last
        still = waiting_for(lane, status, mode, net_quiet)
        quiet = 0.0 if status["timers"] else min(net_quiet, status["quietMs"] / 1000)
        if not still:
            hard_done = hard_done or now
            if quiet >= mode.quiet_s or now - hard_done >= mode.restless_s:
                return Settled(status, now - t0, quiet >= mode.quiet_s)
        elif now > t0 + limit:
            return Settled(status, now - t0, False, still)
        page.wait_for_timeout(POLL_MS)


def waiting_for(lane: Lane, status: JsonObject, mode: Mode, net_quiet: float) -> list[str]:
    """The hard conditions not met yet, in words for an error."""
    out: list[str] = []
    if lane.inflight:
        urls = sorted(r.url for r in lane.inflight)
        out.append(f"{len(urls)} request(s) ({urls[0]}{', …' if len(urls) > 1 else ''})")
    elif mode.network_quiet and net_quiet < mode.quiet_s:
        out.append(f"{mode.quiet_s} s without a request (the last {net_quiet:.2f} s ago)")
    if status["readyState"] != "complete":
        out.append(f"the load event (document is {status['readyState']!r})")
    if mode.blocked_maths or not lane.aborted:
        if status["mathsPending"]:
            out.append(f"{status['mathsPending']} of {status['maths']} d-math elements to be typeset")
        if status["typeset"] not in (None, "done"):
            out.append(f"<html data-typeset> to be 'done' (it is {status['typeset']!r})")
    if status["images"]:
        out.append(f"{len(status['images'])} image(s) ({status['images'][0]})")
    if status["fonts"] != "loaded":
        out.append("web fonts to load")
    return out


class Shots:
    """Viewport screenshots for the stability check, timed (the benchmark counts them)."""

    def __init__(self, cdp: CDPSession, timeout_s: float, where: str) -> None:
        self.cdp = cdp
        self.timeout_s = timeout_s  # a screenshot the browser never returns fails, named (screenshot())
        self.where = where
        self.calls = 0
        self.seconds = 0.0

    def viewport_hash(self, clip: tuple[int, int] | None = None) -> str:
        """sha256 of a PNG of the viewport, or of its top-left `clip` = (width, height) px:
        the same pixels give the same bytes either way (one encoder, same options)."""
        t0 = time.perf_counter()
        params: JsonObject = {"format": "png", "optimizeForSpeed": True}
        if clip is not None:
            params["clip"] = {"x": 0, "y": 0, "width": clip[0], "height": clip[1], "scale": 1}
        data = screenshot(self.cdp, params, self.timeout_s, f"{self.where}: a look at the first screen")
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        return hashlib.sha256(data.encode()).hexdigest()


@dataclass
class Ready:
    """A variant that is loaded, settled, stable and measured: ready for its tiles."""

    job: Pending
    where: str
    cdp: CDPSession
    shots: Shots
    tile_times: TileTimes
    # The stable look (layout hash, first-screen hash) the tiles were started from; before
    # measure(), ([], None), which no layout hash equals.
    before: Look = field(default_factory=lambda: ([], None))
    width: int = 0
    height: int = 0
    tiles_started: float = 0.0
    nudged: dict[str, tuple[float, float]] = field(default_factory=dict)  # region path -> (dx, dy) applied
    only: Rows | None = None  # the rows its tiles must hold, when not the whole page (model.wanted_rows)


def wait_loaded(page: Page, url: str, where: str) -> None:
    """Wait for the navigation to `url` to reach its load event."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        page.wait_for_url(url, wait_until="load", timeout=NAV_TIMEOUT_MS)
    except PlaywrightError as err:
        raise CaptureError(f"{where}: the page did not load ({str(err).splitlines()[0]})") from None


def moving(page: Page, masks: tuple[str, ...] | list[str], wait_ms: int | None = None) -> list[str]:
    """Selectors of what changes on the page over `wait_ms` (scripts.MOVING), to name or mask."""
    found: list[str] = evaluate(page, scripts.MOVING, {"masks": list(masks), "wait": wait_ms or MOVING_WAIT_MS,
                                                      "limit": MOVING_NAMED})
    return found


def keeps_changing(page: Page, masks: tuple[str, ...] | list[str], mask_at: str) -> str:
    """The end of an UnstableRender message: what changes, and the key that helps."""
    found = moving(page, masks)
    named = f"what changes: {', '.join(found)}; " if found else ""
    quoted = ", ".join(f'"{s}"' for s in found) or '"…"'
    return (f"{named}a script that animates it forever cannot be held still, so mask it "
            f"(mask = [{quoted}] in {mask_at}) or stop the animation")


def wait_stable(page: Page, shots: Shots, where: str, masks: tuple[str, ...] = (), mask_at: str = "[tool.theme.visual]",
                pixels: bool = True) -> Look:
    """Return once two consecutive looks at the page agree.

    Taking a tall page twice and comparing would cost seconds (benchmarks/README.md);
    instead one look is a pair:
      - a hash of every element's box and the document size (LAYOUT_HASH), taken
        after two animation frames: catches anything that moves or resizes
        anywhere on the page, in a few ms;
      - a hash of a viewport screenshot (the first screen): catches paint-only
        changes (colours, a canvas, a blink) the layout misses.
    Both must be equal twice in a row (`pixels=False`: the layout only, for the
    look before the masks are painted). After the tiles, the layout hash is
    taken once more, so a change *during* the capture is caught too. Changes
    inside masked elements (`masks`) do not count; what keeps changing is named.
    """
    previous: Look | None = None
    for _ in range(STABLE_CHECKS):
        # through ask(): two animation frames, which a renderer that draws none never gives
        layout: list[int] = ask(shots.cdp, scripts.LAYOUT_HASH_NEXT_FRAME, list(masks),
                                seconds=shots.timeout_s, where=where)
        look: Look = (layout, shots.viewport_hash() if pixels else None)
        if look == previous:
            return look
        previous = look
    raise UnstableRender(
        f"{where}: the page kept changing over {STABLE_CHECKS} checks (layout or the first screen "
        f"differs each time); {keeps_changing(page, masks, mask_at)}"
    )


def paint_masks(page: Page, shots: Shots, where: str, masks: tuple[str, ...], mask_at: str) -> None:
    """Paint `masks` over their elements. They are placed where their elements are, so only
    once those stopped moving; by the layout alone, as a masked element may be on screen and
    still changing."""
    wait_stable(page, shots, where, masks, mask_at, pixels=False)
    evaluate(page, scripts.MASK, {"selectors": list(masks), "color": MASK_COLOR})


class Readiness:
    """Waits a variant's page into the state its tiles are taken in.

    `source`: the config file, so errors about its keys point at `file:line:col`;
    `style_css`: the user's screenshot-only CSS (`style`), or None."""

    def __init__(self, visual: VisualConfig, source: Path | None, style_css: str | None):
        self.visual = visual
        self.source = source
        self.style_css = style_css

    @property
    def answer_s(self) -> float:
        """How long one question to the page may wait for its answer (bounded.py)."""
        return bounded.answer_s(self.visual)

    @property
    def mask_at(self) -> str:
        return config_position(self.source, "mask")

    def prepare(self, job: Pending, nudges: Nudges | None, say: Progress) -> Ready:
        """Load, settle, nudge, mask, wait until stable and take the page size: everything before the tiles."""
        variant, page, timings = job.variant, job.page, job.timings
        at = label(variant)
        say(f"{at}: {'switching scheme' if job.switched else 'loading'}")
        t = time.perf_counter()
        if job.switched:
            # media queries re-evaluated: <picture> sources swapped
            ask(job.lane.cdp, scripts.NEXT_FRAME, None, seconds=self.answer_s, where=at)
        else:
            wait_loaded(page, job.url, at)
        t = mark(timings, "load", t)
        check_selectors(self.source, self.settle(job.lane, variant, at, job.explain, again=job.switched))
        t = mark(timings, "settle", t)
        cdp = job.lane.cdp
        ready = Ready(job, at, cdp, Shots(cdp, self.answer_s, at), TileTimes())
        if nudges:
            # Before the masks: a mask is placed where its element is, so it must
            # see the element where it will be captured.
            ready.nudged = nudge(page, self.visual.regions, nudges)
            ready.only = wanted_rows(nudges)
        if self.visual.mask:
            paint_masks(page, ready.shots, at, self.visual.mask, self.mask_at)
        self.measure(ready)
        mark(timings, "stable", t)
        return ready

    def measure(self, ready: Ready) -> None:
        """Wait for two agreeing looks, then take the page size the tiles will cover;
        a page wider than its viewport, or past the size budget, fails here, before its tiles."""
        ready.before = wait_stable(ready.job.page, ready.shots, ready.where, self.visual.mask, self.mask_at)
        geometry = evaluate(ready.job.page, scripts.GEOMETRY)
        ready.width, ready.height = int(geometry["width"]), int(geometry["height"])
        self._check_overflow(ready)
        self._check_size(ready)

    def _check_overflow(self, ready: Ready) -> None:
        """A page wider than its viewport gives its readers a horizontal scrollbar, and is
        what an article whose runtime or stylesheet did not load looks like: fail, naming
        the widest elements that reach past the edge, unless `allow_overflow` lists the page."""
        variant = ready.job.variant
        if ready.width <= variant.width or variant.page in self.visual.allow_overflow:
            return
        over = evaluate(ready.job.page, scripts.OVERFLOW, {"limit": OVERFLOW_NAMED})
        if over["width"] <= over["view"]:
            return
        widest = "; ".join(f"{o['selector']} reaches x={o['right']} ({o['width']} px wide)" for o in over["widest"])
        raise RenderError(
            f"{ready.where}: the page is {over['width']} px wide in a {over['view']} px viewport, so readers "
            f"get a horizontal scrollbar; widest: {widest or 'no single element (margins or transforms)'}; "
            f"fix the layout, or add {variant.page!r} to allow_overflow in "
            f"{config_position(self.source, 'allow_overflow')} to accept it", kind="overflow")

    def _check_size(self, ready: Ready) -> None:
        """Say, before any tile is taken, that a page image would not fit the budget."""
        pixels = ready.width * ready.height
        if pixels <= self.visual.max_page_pixels:
            return
        raise RenderError(
            f"{ready.where}: the page image would be {ready.width} × {ready.height} px "
            f"({pixels / 1e6:.0f} M px, {pixels * 4 / 2**30:.1f} GiB of RGBA to stitch and check), over "
            f"max_page_pixels = {self.visual.max_page_pixels} "
            f"({config_position(self.source, 'max_page_pixels')}); raise max_page_pixels if the page is meant "
            "to be this big, or split it into pages", kind="too-large")

    def check_resources(self, lane: Lane, variant: Variant, where: str) -> None:
        """Fail at once when a script, stylesheet or web font the page asked for did not load
        and allow_blocked does not name it (resources.py): waiting on would only time out
        on maths its missing library never typesets, and the render is not the page. The
        refusal names every one that did not load by now: after the load event, all that the
        page's own <script> and <link> elements ask for, and the fonts its first layout used."""
        page = lane.page
        origin = "{0.scheme}://{0.netloc}".format(urlsplit(page.url))
        bad = resources.broken(lane.missed, self.visual.allow_blocked, origin)
        if not bad:
            return
        askers = evaluate(page, scripts.WHO_ASKED, [m.url for m in bad])
        hints = resources.Hints.of(self.source.parent if self.source is not None else None, self.visual.root,
                                   dict(self.visual.route), config_position(self.source, "route"),
                                   config_position(self.source, "allow_blocked"))
        refused = resources.refusal(bad, askers, where=where, page=variant.page, origin=origin, hints=hints)
        raise RenderError(refused.message(), kind="broken", refusal=refused)

    def settle(self, lane: Lane, variant: Variant, where: str, explain: JsonObject,
               again: bool = False) -> JsonObject | None:
        """Wait until the page has done what it does after load (wait_quiet), give it the
        reader's view (scrolled through once when something observes scrolling, back at
        the top, then frozen: FREEZE_VIEW), then screenshot-only CSS. Returns the first
        configured selector that does not parse (see check_selectors), or None. `again`:
        the page was settled and frozen before (in another scheme); its sheets are in place."""
        page = lane.page
        self.wait_quiet(lane, variant, where, explain, "load")
        if again:
            evaluate(page, scripts.STOP_ANIMATIONS)
            return None
        status = explain["load"]["status"]
        if status["observers"] or status["scrollers"]:
            t = time.perf_counter()
            steps = ask(lane.cdp, scripts.READ_THROUGH, None, seconds=self.answer_s, where=where)
            explain["read_through"] = {"screens": steps, "seconds": round(time.perf_counter() - t, 3)}
            self.wait_quiet(lane, variant, where, explain, "read_through_settle")
        explain["frozen"] = ask(lane.cdp, scripts.FREEZE_VIEW, None, seconds=self.answer_s, where=where)
        sheets = [scripts.STABLE_CSS] + ([self.style_css] if self.style_css is not None else [])
        items = [[k, s] for k, s in self.visual.regions.items()] + [["mask", s] for s in self.visual.mask]
        bad: JsonObject | None = evaluate(page, scripts.FREEZE,
                                               {"sheets": sheets, "flag": STABLE_FLAG, "selectors": items})
        explain["pinned_width"] = evaluate(page, scripts.PIN_WIDTH)  # after the sheets: they may change it
        explain["unmoved"] = check_unmoved(page, where)  # none of the above moved an element
        return bad

    def wait_quiet(self, lane: Lane, variant: Variant, where: str, explain: JsonObject, what: str) -> None:
        """Return once the page is done (settle(), mode CAPTURE: the hard conditions up to
        settle_timeout, then a CaptureError names what was still pending), every image decoded.
        A blocked request allow_blocked does not name fails the render at once (check_resources)."""
        page = lane.page
        t0 = time.monotonic()

        def refuse_broken(_status: JsonObject) -> None:
            if lane.missed:
                self.check_resources(lane, variant, where)

        done = settle(page, lane, CAPTURE, timeout_s=self.visual.settle_timeout, data_theme=variant.data_theme,
                      on_probe=refuse_broken, where=where, page_time_ms=self._budget_ms(what))
        if done.timed_out:
            stalled = (f"; under page time, {done.moved.describe()}: raise page_time in "
                       f"{config_position(self.source, 'page_time')}, or list {variant.page!r} in real_time"
                       if done.moved.count else "")
            raise CaptureError(
                f"{where}: still waiting after {self.visual.settle_timeout} s for {'; '.join(done.pending)}"
                f"{stalled}; {self._advice(lane, done.status)}")
        if lane.paged:
            explain[f"{what}_page_time"] = done.moved.explain()
        ask(lane.cdp, scripts.DECODE_IMAGES, None, seconds=self.answer_s, where=where)
        explain[what] = {"seconds": round(time.monotonic() - t0, 3), "status": done.status, "quiet": done.quiet}

    def _budget_ms(self, what: str) -> int:
        """The page time a wait may move: `page_time` after the load and after the read-through
        (what a reader's arrival and scrolling start, run to its end); after a reader-state step
        or a reset, a short REACT_S (a hover box's delay, a transition), so a figure that moves for
        ever is not run for the whole budget again at every step."""
        whole = self.visual.page_time * 1000
        return whole if what in ("load", "read_through_settle") else min(whole, int(REACT_S * 1000))

    def _advice(self, lane: Lane, status: JsonObject) -> str:
        """The config key that helps with what was pending."""
        if status["mathsPending"] and lane.aborted:
            return (f"the page's maths library may be among the {len(lane.aborted)} aborted request(s) "
                    f"(first {sorted(lane.aborted)[0]}): serve it from a local copy with `route` in "
                    f"{config_position(self.source, 'route')}")
        return f"raise settle_timeout in {config_position(self.source, 'settle_timeout')} if the page is only slow"
