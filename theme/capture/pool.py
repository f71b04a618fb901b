"""Several browser servers rendering one run: a lane (endpoint × `lanes`) is a thread with its
own Session connected to its endpoint, taking the next run of pages from one queue.

An endpoint that refuses or dies has its variants taken by the others, and `notes` says so;
when none is left the run stops naming them. Same interface as Session for its callers."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, TypeVar, cast

from ..core.config import VisualConfig
from ..core.errors import CaptureError
from . import remote
from .model import Capture, Failure, JsonObject, Nudges, Progress, Renderer
from .naming import Variant

if TYPE_CHECKING:
    from .session import Session

POLL_S = 0.5  # how often a waiting caller checks that some lane is still alive
T = TypeVar("T")
# A job for a lane: ("capture", variants, their nudges) or ("call", a function of its Session, None);
# None tells the lane to stop.
Job = tuple[str, "list[Variant] | Callable[[Session], object]", "Mapping[Variant, Nudges] | None"]
# What a lane reports, (kind, lane, payload): "started" (its fingerprint), "refused" (the error),
# "capture" (a Capture or Failure), "say" (progress), "error" (raised by the caller), "died"
# ((variants left, their nudges, the error)), "result" (what a "call" job returned).
Event = tuple[str, "_Lane", object]


class _Lane(threading.Thread):
    """One connection to one endpoint, in its own thread (Playwright's sync API is per thread)."""

    def __init__(self, pool: "Pool", endpoint: str):
        super().__init__(name=f"theme-lane-{remote.mask(endpoint)}", daemon=True)
        self.pool, self.endpoint = pool, endpoint
        self.jobs: queue.Queue[Job | None] = pool._jobs

    def run(self) -> None:
        from .session import Session

        events = self.pool._events
        try:
            session = Session(self.pool.visual, source=self.pool.source, endpoint=self.endpoint).__enter__()
        except Exception as err:  # noqa: BLE001 - any failure to start means: not this endpoint
            events.put(("refused", self, err))
            return
        events.put(("started", self, session.fingerprint))
        try:
            while (job := self.jobs.get()) is not None:
                if not self._do(session, *job):
                    return
        finally:
            try:
                session.__exit__(None, None, None)
            except Exception:  # noqa: BLE001 - a dead connection cannot be closed politely
                pass

    def _do(self, session: Session, kind: str, work: list[Variant] | Callable[[Session], object],
            nudges: Mapping[Variant, Nudges] | None) -> bool:
        """Run one job; False when the endpoint went away (the job's rest is handed back)."""
        events = self.pool._events
        if not isinstance(work, list):  # a "call"
            try:
                events.put(("result", self, work(session)))
            except Exception as err:  # noqa: BLE001 - handed to the caller, which raises it
                events.put(("error", self, err))
            return True
        done: set[Variant] = set()

        def say(msg: str) -> None:
            events.put(("say", self, msg))

        try:
            for capture in session.capture_all(work, say, nudges, failures=True):
                done.add(capture.variant)
                events.put(("capture", self, capture))
        except Exception as err:  # noqa: BLE001 - sorted out just below
            if session.answers():
                events.put(("error", self, err))
                return True
            events.put(("died", self, ([v for v in work if v not in done], nudges, err)))
            return False
        return True


class Pool:
    """Variants spread over browser endpoints, `visual.browser.lanes` pages each at once."""

    def __init__(self, visual: VisualConfig, endpoints: Iterable[str], *, source: Path | None = None):
        self.visual, self.source = visual, source
        self.endpoints = tuple(endpoints)
        self.fingerprint: JsonObject = {}
        self.notes: list[str] = []  # what happened to endpoints, for the run's output
        self._jobs: queue.Queue[Job | None] = queue.Queue()
        self._events: queue.Queue[Event] = queue.Queue()
        self._lanes: list[_Lane] = []
        self._say: Progress = lambda _msg: None

    def __enter__(self) -> "Pool":
        self._lanes = [_Lane(self, e) for e in self.endpoints for _ in range(self.visual.browser.lanes)]
        for lane in self._lanes:
            lane.start()
        waiting = len(self._lanes)
        while waiting:
            kind, lane, payload = self._events.get()
            if kind == "started":
                self.fingerprint = self.fingerprint or cast(JsonObject, payload)
            elif kind == "refused":
                self._note(f"{remote.mask(lane.endpoint)}: {remote.scrub(str(payload), self.endpoints)}; "
                           "its variants go to the other endpoints")
            waiting -= kind in ("started", "refused")
        if not self._alive():
            self.close()
            raise CaptureError(self._all_down("no browser endpoint answered"))
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for _ in self._lanes:
            self._jobs.put(None)
        for lane in self._lanes:
            lane.join(timeout=60)

    def _alive(self) -> bool:
        return any(lane.is_alive() for lane in self._lanes)

    def _all_down(self, what: str) -> str:
        names = ", ".join(dict.fromkeys(remote.mask(e) for e in self.endpoints))
        return (f"{what}: {names}; start `theme browser serve` there or fix "
                f"{remote.ENV} / [tool.theme.visual.browser] endpoints")

    def _note(self, text: str) -> None:
        self.notes.append(text)
        self._say(text)

    # ------------------------------------------------------------ work

    def capture(self, variant: Variant, progress: Progress | None = None, nudges: Nudges | None = None) -> Capture:
        shot = next(self.capture_all([variant], progress, {variant: nudges} if nudges else None))
        if isinstance(shot, Failure):  # not without failures=True: capture_all raises instead
            raise shot.error or CaptureError(shot.message)
        return shot

    def capture_all(self, todo: Iterable[Variant], progress: Progress | None = None,
                    nudges: Mapping[Variant, Nudges] | None = None, *,
                    failures: bool = False) -> Iterator[Capture | Failure]:
        """Captures in `todo`'s order. A page's variants stay together (its dark variant may
        be its light page with the scheme switched), and each lane gets one run of pages:
        within a lane, capture_all loads the next page while the current one is tiled, which
        one job per page would lose (one endpoint: 17 s against 12.5 s on the specimen)."""
        todo = list(todo)
        self._say = progress or (lambda _msg: None)
        for job in _batches(_by_view(todo), sum(lane.is_alive() for lane in self._lanes)):
            self._jobs.put(("capture", job, {v: nudges[v] for v in job if nudges and v in nudges} or None))
        arrived: dict[Variant, Capture | Failure] = {}
        try:
            for variant in todo:
                while variant not in arrived:
                    self._next_event(arrived)
                shot = arrived.pop(variant)
                if isinstance(shot, Failure) and not failures:  # as Session.capture_all does
                    raise shot.error or CaptureError(shot.message)
                yield shot
        finally:
            self._drain()

    def _next_event(self, arrived: dict[Variant, Capture | Failure]) -> object:
        try:
            kind, lane, payload = self._events.get(timeout=POLL_S)
        except queue.Empty:
            if not self._alive():
                raise CaptureError(self._all_down("every browser endpoint is down")) from None
            return None
        if kind == "capture" and isinstance(payload, (Capture, Failure)):
            arrived[payload.variant] = payload
        elif kind == "say":
            self._say(str(payload))
        elif kind == "error" and isinstance(payload, BaseException):
            raise payload
        elif kind == "died":
            left, nudges, err = cast("tuple[list[Variant], Mapping[Variant, Nudges] | None, BaseException]", payload)
            said = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            self._note(f"{remote.mask(lane.endpoint)} went away ({remote.scrub(said, self.endpoints)}); "
                       f"{len(left)} of its variants go to the other endpoints")
            if left:
                self._jobs.put(("capture", left, nudges))
        elif kind == "result":
            return payload
        return None

    def _drain(self) -> None:
        """Forget jobs nobody will wait for (after an error or an early stop)."""
        try:
            while True:
                job = self._jobs.get_nowait()
                if job is None:
                    self._jobs.put(None)
                    return
        except queue.Empty:
            return

    def _call(self, work: Callable[[Session], T]) -> T:
        self._jobs.put(("call", work, None))
        while True:
            result = self._next_event({})
            if result is not None:
                return cast(T, result)  # what `work` returned, through the events queue

    def elements_at(self, variant: Variant, boxes: list[tuple[int, int, int, int]]) -> list[str | None]:
        return self._call(lambda session: session.elements_at(variant, boxes))


def _batches(groups: list[list[Variant]], lanes: int) -> list[list[Variant]]:
    """Consecutive groups joined into at most `lanes` jobs of about equal size."""
    size = max(1, -(-len(groups) // max(1, lanes)))
    return [[v for group in groups[i:i + size] for v in group] for i in range(0, len(groups), size)]


def _by_view(todo: list[Variant]) -> list[list[Variant]]:
    """The variants of one page at one viewport, together, in order of first appearance."""
    groups: dict[tuple[str, str], list[Variant]] = {}
    for v in todo:
        groups.setdefault((v.page, v.viewport), []).append(v)
    return list(groups.values())


def open_session(visual: VisualConfig, *, browser: str | None = None, source: Path | None = None) -> Renderer:
    """A Session on a local browser, or a Pool over the endpoints of
    THEME_BROWSER_ENDPOINTS / `[tool.theme.visual.browser]` when there are any (an
    explicit `browser` executable always means a local launch). Use it with `with`."""
    from .session import Session

    endpoints = () if browser else remote.endpoints(visual.browser.endpoints)
    return Pool(visual, endpoints, source=source) if endpoints else Session(visual, browser=browser, source=source)


__all__ = ["Pool", "open_session"]
