"""Questions to a page, and screenshots, that wait a bounded time.

Playwright's page.evaluate has no timeout, and its CDPSession.send none unless given one:
on a page whose script never gives the browser back (a loop that never ends, started by
a timer, an observer or one of our own changes), a call waited for ever and the run sat
silent until CI killed it. Every question the capture asks a page goes through here: a
DevTools call with a timeout, and a call not answered in time is that variant's failure
(Unresponsive), naming the page and what was waited for, while the run goes on.

A page is known here by the DevTools session and the name (`where`) its lane gave it when
the variant was opened (Lanes.open: `hold`); a page nobody held, such as one a caller
opened itself, gets a session of its own on first use.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import weakref
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator

from ..core.config import VisualConfig
from ..core.errors import CaptureError, Unresponsive

if TYPE_CHECKING:
    from playwright.sync_api import CDPSession, Frame, Page

# How long the page or its browser may take over one question (a look, a screenshot)
# before the variant fails as unresponsive, when settle_timeout is shorter: far past any
# one task of a real page (the long article's longest, its typesetting, takes ~5 s here).
ANSWER_S = 30.0
TILE_ANSWER_S = 120.0  # one tile: up to tile_height rows laid out, painted and encoded
BUSY = ("a script of it keeps the browser busy (a loop that never ends?) or it draws no frame; fix the script, "
        "or raise settle_timeout in [tool.theme.visual] if the page is only that slow")


def answer_s(visual: VisualConfig) -> float:
    """How long one question to a page of `visual` may wait for its answer."""
    return max(visual.settle_timeout, ANSWER_S)


@dataclass
class Held:
    """How questions to one page are asked: its DevTools session, how long each may wait,
    and the name a failure gives it (its variant's label)."""

    cdp: CDPSession
    seconds: float
    where: str


_held: weakref.WeakKeyDictionary[Page, Held] = weakref.WeakKeyDictionary()


def hold(page: Page, cdp: CDPSession, *, seconds: float, where: str) -> None:
    """From now on, questions to `page` go through `cdp`, wait `seconds` and name `where`."""
    _held[page] = Held(cdp, seconds, where)


def held(page: Page) -> Held:
    """How questions to `page` are asked (see hold); a page nobody held gets its own session."""
    found = _held.get(page)
    if found is None:
        found = Held(page.context.new_cdp_session(page), ANSWER_S, page.url)
        _held[page] = found
    return found


def evaluate(page: Page, script: str, arg: object = None) -> Any:
    """page.evaluate(script, arg), bounded: `script` is a function's source (as all of
    theme's page scripts are), called with `arg` (plain JSON) in the page's own world."""
    h = held(page)
    return ask(h.cdp, script, arg, seconds=h.seconds, where=h.where)


def ask(cdp: CDPSession, script: str, arg: object, *, seconds: float, where: str) -> Any:
    """`script` (a function's source) called with `arg` in the page's own world, as
    page.evaluate does, waited for `seconds` at most; a promise it returns is awaited.
    Raises Unresponsive when no answer comes, CaptureError when the script throws."""
    # ")" on a line of its own: a function whose last line is a // comment must not swallow it
    params = {"expression": f"({script}\n)({json.dumps(arg)})", "awaitPromise": True, "returnByValue": True}
    reply = send(cdp, "Runtime.evaluate", params, seconds=seconds,
                 unanswered=f"{where}: the page did not answer for {seconds:g} s: {BUSY}")
    if "exceptionDetails" in reply:
        details = reply["exceptionDetails"]
        text = details.get("exception", {}).get("description") or details.get("text", "an exception")
        raise CaptureError(f"{where}: theme's script failed in the page ({text.splitlines()[0]})")
    return reply["result"].get("value")


def screenshot(cdp: CDPSession, params: dict[str, Any], seconds: float, what: str) -> str:
    """Page.captureScreenshot's base64 PNG, waited for `seconds` at most: a renderer that
    never produces the frame (seen once: a reader state's run sat for minutes, the
    renderer idle) fails the variant, naming what was asked, instead of holding the run."""
    reply = send(cdp, "Page.captureScreenshot", params, seconds=seconds,
                 unanswered=f"{what}: the browser did not return it within {seconds:g} s; run again, and if it "
                            "repeats, raise settle_timeout in [tool.theme.visual] or report the page")
    data: str = reply["data"]
    return data


def send(cdp: CDPSession, method: str, params: dict[str, Any], *, seconds: float, unanswered: str) -> dict[str, Any]:
    """A DevTools call waited for `seconds` at most; past that, Unresponsive(`unanswered`)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        reply: dict[str, Any] = cdp.send(method, params, timeout=seconds * 1000)
    except PlaywrightTimeout:
        raise Unresponsive(unanswered) from None
    return reply


def evaluate_in(page: Page, frame: Frame, script: str, what: str) -> Any:
    """evaluate() in any frame of `page`: the main frame through DevTools, an embedded one
    through Playwright, watched (its context is not the page session's to name)."""
    if frame == page.main_frame:
        return evaluate(page, script)
    with watched(page, f"{what} of the frame {frame.url}", frame):
        return frame.evaluate(script)


@contextlib.contextmanager
def watched(page: Page, what: str, frame: Frame | None = None) -> Iterator[None]:
    """Bound a Playwright call that takes no timeout and cannot go through ask(): a key
    pressed wherever focus is, a read through element handles, a question to an embedded
    frame. When the block has not ended after the page's seconds, the script running in
    the page (or in `frame`'s renderer, when it has its own) is stopped with
    Runtime.terminateExecution, the call comes back, and the variant fails as
    Unresponsive, naming `what`. The timer runs on the asyncio loop under Playwright's
    sync API (background_sender); without Playwright's internals the call is unbounded."""
    from playwright.sync_api import Error as PlaywrightError

    h = held(page)
    own = None
    if frame is not None and frame != page.main_frame:
        with contextlib.suppress(PlaywrightError):  # a frame in the page's own renderer has none
            own = page.context.new_cdp_session(frame)
    try:
        with _watching(own or h.cdp, h.seconds, f"{h.where}: the page did not answer for {h.seconds:g} s "
                                                f"({what}): {BUSY}"):
            yield
    finally:
        if own is not None:
            with contextlib.suppress(PlaywrightError):  # the frame may be gone with its session
                own.detach()


# Playwright's own asynchronous CDPSession.send, under its sync API: (method, params, timeout).
AsyncSend = Callable[[str, dict[str, Any], float | None], Awaitable[dict[str, Any]]]


def background_sender(cdp: CDPSession) -> tuple[asyncio.AbstractEventLoop, AsyncSend] | None:
    """(event loop, async send) of a sync-API CDPSession, or None.

    Playwright's sync API blocks on every call, but underneath it drives one asyncio
    loop: a coroutine or timer scheduled on it runs whenever the sync caller waits on
    any Playwright call (the tiles' sender, watched()'s timer). These are Playwright
    internals (`_impl_obj`, `_loop`); callers keep a path for when they are missing.
    """
    impl, loop = getattr(cdp, "_impl_obj", None), getattr(cdp, "_loop", None)
    if impl is None or loop is None or not hasattr(cdp, "_sync") or not hasattr(impl, "send"):
        return None
    return loop, impl.send


@contextlib.contextmanager
def _watching(target: CDPSession, seconds: float, unanswered: str) -> Iterator[None]:
    """watched()'s timer on `target`, the session whose renderer runs the script."""
    sender = background_sender(target)
    if sender is None:
        yield
        return
    loop, send = sender
    fired: list[bool] = []
    timer: list[asyncio.TimerHandle] = []

    async def stop() -> None:
        with contextlib.suppress(Exception):  # the page may be gone by now; the call fails anyway
            await send("Runtime.terminateExecution", {}, ANSWER_S * 1000)

    def expire() -> None:  # again each second: each key of a text typed may start the loop anew
        fired.append(True)
        loop.create_task(stop())
        timer[:] = [loop.call_later(1.0, expire)]

    timer.append(loop.call_later(seconds, expire))
    try:
        yield
    except Exception:
        if fired:  # what stopping its script made of the call
            raise Unresponsive(unanswered) from None
        raise
    finally:
        timer[0].cancel()
    if fired:
        raise Unresponsive(unanswered)


def late(err: Exception, unanswered: str) -> Exception:
    """`err` as the variant's Unresponsive failure when it is Playwright's timeout, else itself
    (for a call sent by other means than send(): the tiles' own asynchronous sender)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    return Unresponsive(unanswered) if isinstance(err, PlaywrightTimeout) else err
