"""Reader states in turn (Session.capture_all, after the pages' own variants).

A variant's first state is taken on a fresh page; each next state of the same page, viewport
and scheme on that page, reset (states.reset), when it is again as the first state found it
(states.start_look: the document, the layout and the first screen); else, and after a
failure, on a fresh page. A fresh page loads while the state before it does its steps, so
that its load, the browser's work, runs beside that state's waits (a state is mostly waiting
for quiet: benchmarks/README.md). `chain_states = false`: every state on a fresh page. What a
state does on its page is states.py's.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Iterator

from ..core.config import VisualConfig
from .lanes import Lanes, Pending
from .model import Capture, Failure, JsonObject, Judge, Progress
from .naming import Variant
from .readiness import Readiness
from .server import LocalServer
from .states import StartLook, capture_state, reset, settle_fresh, start_look


class Chain:
    """One capture_all's reader states: `run` yields each Capture (or Failure) in order."""

    def __init__(self, visual: VisualConfig, lanes: Lanes, readiness: Readiness, server: LocalServer,
                 fingerprint: JsonObject, judge: Judge):
        self.visual = visual
        self.lanes = lanes
        self.readiness = readiness
        self.server = server
        self.fingerprint = fingerprint
        self.judge = judge

    def run(self, todo: list[Variant], say: Progress, failures: bool,
            ahead: Pending | None) -> Iterator[Capture | Failure]:
        """The states of `todo` in order; `ahead`, the first one's page when it was opened
        while the pages' own variants were taken."""
        lanes = self.lanes
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
        job, look = kept
        before = job.variant.state
        new = Pending(variant, job.lane, job.page, job.aborted, job.url, time.perf_counter(), {"open": 0.0},
                      explain={"page": f"the page of state {before}, reset: as that state found it"})
        try:
            reset(new, self.readiness)
            same = start_look(new, self.readiness) == look
        except BaseException as err:
            self.lanes.release(job.lane, reuse=False)
            if self.judge(variant, err) is None:
                raise
            return None
        if same:
            return new
        self.lanes.release(job.lane, reuse=False)
        return None

    def _state(self, job: Pending, say: Progress, failures: bool, look: StartLook | None,
               keep: bool) -> tuple[Capture | Failure, StartLook | None]:
        """A reader state's capture (states.py) on `job`, or its Failure; and the look its
        page started from when `keep` (the page is left open for the next state), else None.
        `look` None: `job` is a fresh page, loaded and settled here."""
        state = next(s for s in self.visual.states if s.name == job.variant.state)
        try:
            if look is None:
                settle_fresh(job, self.readiness, say)
                job.explain.setdefault("page", "a fresh load")
                if keep:
                    look = start_look(job, self.readiness)
            shot = capture_state(job, self.readiness, state, self.fingerprint, self.server, say)
        except BaseException as err:
            self.lanes.release(job.lane, reuse=False)
            failure = self.judge(job.variant, err)
            if failure is None or not failures:
                raise
            say(failure.message)
            return failure, None
        if not keep:
            self.lanes.release(job.lane, reuse=False)  # its steps changed the page
            return shot, None
        return shot, look
