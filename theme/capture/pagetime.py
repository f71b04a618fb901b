"""Page time: a page's clock that only the capture moves, so what its scripts draw is the same
on every run.

A lane's context starts Playwright's clock paused at START (`Lanes`): the page's `Date`,
`performance.now`, timers and `requestAnimationFrame` all read it, and nothing the page
scheduled runs until advance() moves it. advance() alternates: it lets the page's requests
to 127.0.0.1 and to routes finish, then moves page time one step (or straight to the end of
the step holding the next timer) while a timer is due within the budget (`page_time`); then
page time stays paused. So a loop is captured at a fixed phase, and an animation that ends
within the budget at its end.

Steps are STEP_MS for the first FINE_MS of a wait, when a page's fetches start, then
LONG_STEP_MS: each step costs a round trip and a frame (~5–25 ms), and a figure that moves
for ever would take 30 of them at every wait (the CTC article's typed title: a check of its
two page variants 10.9 s → 8.3 s, the same pixels). The sizes depend on page time alone, so
every run steps alike. theme's own scripts keep the browser's real timers
(js/keep_real_time.js). Pages listed in `real_time` get lanes without the clock or the
seeded random numbers (js/seeded.js) and are checked in real time.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Collection, Protocol

from ..core.errors import CaptureError
from . import bounded, scripts
from .model import JsonObject

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, CDPSession, Frame, Page, Request

# 2026-01-01T00:00:00Z: what `new Date()` says on every captured page, on every run.
START_S = 1_767_225_600
# Page time moved per step (or straight to the step holding the next timer): a request a step
# starts is answered before the next step; one question to the page a step. FINE_MS into a
# wait, steps grow to LONG_STEP_MS: a request started then is answered within 4 s of page time.
STEP_MS = 1000
FINE_MS = 4000
LONG_STEP_MS = 4000
POLL_S = 0.02
PENDING_NAMED = 3  # timers an error names


def install(context: BrowserContext) -> None:
    """Playwright's clock on every document of `context`, paused at START_S. Only pause_at is
    called: an install() logged before it lets real time pass between the two calls into
    every later document's performance.now()."""
    context.clock.pause_at(START_S)


class Lane(Protocol):
    """What page time reads of a lane (lanes.Lane is one): its page, the page's DevTools
    session, and its requests to 127.0.0.1 or a route not yet answered."""

    @property
    def page(self) -> Page: ...

    @property
    def cdp(self) -> CDPSession: ...

    @property
    def inflight(self) -> Collection[Request]: ...


@dataclass
class Moved:
    """What advance() did: page time moved, in steps, and the timers left pending after."""

    ms: int = 0
    steps: int = 0
    pending: list[JsonObject] = field(default_factory=list)  # the main frame's timers, soonest first
    count: int = 0

    def then(self, more: Moved) -> Moved:
        """This move followed by `more`: what is pending is what `more` left."""
        return Moved(self.ms + more.ms, self.steps + more.steps, more.pending, more.count)

    def explain(self) -> dict[str, object]:
        return {"ms": self.ms, "steps": self.steps, "pending": self.count}

    def describe(self) -> str:
        """The pending timers in words, for an error: `a setTimeout due in 90.0 s of page time`."""
        if not self.count:
            return "no timer pending"
        named = ", ".join(f"a {_api(str(t['kind']))} due in {float(str(t['due'])) / 1000:.1f} s"
                          for t in self.pending[:PENDING_NAMED])
        more = f" and {self.count - PENDING_NAMED} more" if self.count > PENDING_NAMED else ""
        return f"{self.count} timer(s) pending after {self.ms / 1000:g} s of page time ({named}{more})"


def _api(kind: str) -> str:
    return {"Timeout": "setTimeout", "Interval": "setInterval", "AnimationFrame": "requestAnimationFrame",
            "IdleCallback": "requestIdleCallback"}.get(kind, kind)


def advance(lane: Lane, budget_ms: int, timeout_s: float, where: str, already_ms: int = 0) -> Moved:
    """Move `lane`'s page time while a timer is due within `budget_ms`; see the module docstring.
    `already_ms`: page time this wait moved before (its steps are then long sooner)."""
    moved = Moved()
    while True:
        _network_done(lane, timeout_s, where)
        step = STEP_MS if already_ms + moved.ms < FINE_MS else LONG_STEP_MS
        state = _clock(lane, lane.page.main_frame, step, max(0, budget_ms - moved.ms), where)
        if state is None:  # no page clock: a real_time page's lane
            return moved
        moved.pending, moved.count = list(state["timers"]), int(state["count"])
        if not state["ran"]:
            return moved
        ran = int(state["ran"])
        for frame in lane.page.frames[1:]:  # embedded frames keep time with their page
            _clock(lane, frame, ran, -1, where)
        moved.ms += ran
        moved.steps += 1


def _clock(lane: Lane, frame: Frame, step: int, within: int, where: str) -> JsonObject | None:
    """One move of `frame`'s page clock (scripts.PAGE_CLOCK)."""
    arg = {"step": step, "within": within}
    if frame == lane.page.main_frame:
        state: JsonObject | None = bounded.ask(lane.cdp, scripts.PAGE_CLOCK, arg, seconds=bounded.ANSWER_S,
                                               where=where)
        return state
    state = bounded.evaluate_in(lane.page, frame, f"({scripts.PAGE_CLOCK})({json.dumps(arg)})",
                                "moving the page clock")
    return state


def _network_done(lane: Lane, timeout_s: float, where: str) -> None:
    """Wait until no request to 127.0.0.1 or a route is in flight: what a step fetched is
    answered before page time moves on, so the page sees it at the same page time each run."""
    limit = time.monotonic() + timeout_s
    while lane.inflight:
        if time.monotonic() > limit:
            urls = sorted(r.url for r in lane.inflight)
            raise CaptureError(f"{where}: {len(urls)} request(s) still in flight after {timeout_s} s "
                               f"while page time was paused ({urls[0]})")
        lane.page.wait_for_timeout(POLL_S * 1000)
