"""The pages' own variants, overlapped (Session.capture_all).

The machine has two cores, so while variant N's tiles are being taken (the browser's work)
the next fresh page is loaded, settled, checked for stability and measured. N+1's tiles start
once N's capture calls are answered, and N is finished (layout re-checked, wholeness guarded,
regions named) and yielded while N+1's tiles are taken. One page is tiled at a time: two at
once took as long as one after the other, and held two renderers' tile bitmaps
(benchmarks/README.md). A dark variant takes its light one's page right after it
(schedule.plan, Lanes.switch): that page is completed first, then switched, a gap of ~0.3 s.
Which variant when is schedule.py's; a page's three hands are lanes.py (a page),
readiness.py (ready for its tiles) and shoot.py (its tiles taken and checked).
"""

from __future__ import annotations

from typing import Callable, Generator, Iterator, Mapping

import numpy as np

from ..core.config import VisualConfig
from ..core.errors import CaptureError
from .lanes import Lanes, Pending, scheme_read
from .model import Capture, Failure, Judge, Nudges, Progress
from .naming import Variant
from .readiness import Readiness
from .schedule import Schedule
from .shoot import Shooter, Shooting

TileHook = Callable[[int, np.ndarray], None]


class Overlap:
    """One capture_all's pages: `run` yields each Capture (or Failure) in order."""

    def __init__(self, visual: VisualConfig, lanes: Lanes, readiness: Readiness, shooter: Shooter,
                 judge: Judge, nudges: Mapping[Variant, Nudges], tile_hook: TileHook | None):
        self.visual = visual
        self.lanes = lanes
        self.readiness = readiness
        self.shooter = shooter
        self.judge = judge
        self.nudges = nudges
        self.tile_hook = tile_hook

    def run(self, todo: list[Variant], say: Progress, failures: bool,
            then: Variant | None) -> Generator[Capture | Failure, None, Pending | None]:
        """The overlapped schedule of `todo`. Returns the page of `then` (the first reader
        state), opened while the last page's tiles were taken, as a next page is."""
        lanes = self.lanes
        schedule = Schedule(todo, self._switchable)
        ahead: Pending | None = None
        try:
            for place, variant in schedule:
                if schedule.switches_shooting(place):  # its page must be complete first
                    yield from self._hand_over(schedule, schedule.stop(), say)
                job = schedule.opened(place) or lanes.take(variant, schedule.kept(place))
                schedule.load_ahead(place, lanes.open)
                try:
                    ready = self.readiness.prepare(job, self.nudges.get(variant), say)
                    if schedule.followed(place):
                        schedule.note_read(place, scheme_read(job.page))
                        schedule.load_ahead(place, lanes.open)  # now known: switch it, or load anew
                except BaseException as err:
                    lanes.release(job.lane, reuse=False)
                    failure = self.judge(variant, err)
                    if failure is None:
                        # the variant before this one is good: hand it over first
                        yield from self._hand_over(schedule, schedule.stop(), say, failures)
                        raise
                    say(failure.message)
                    if schedule.followed(place):  # its page is not there to switch: load anew
                        schedule.note_read(place, "its render failed")
                        schedule.load_ahead(place, lanes.open)
                    schedule.finished(place, failure)
                    yield from _due(schedule, failures)
                    continue
                if schedule.shooting is not None:
                    schedule.shooting.tiles.wait_calls()  # one page's capture calls at a time
                done = schedule.shoot(place, self.shooter.start(ready, say, self.tile_hook))
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

    def _hand_over(self, schedule: Schedule, done: tuple[int, Shooting] | None,
                   say: Progress, failures: bool = False) -> Iterator[Capture | Failure]:
        """Complete `done` = (place, its tiles) when there is one, then yield the captures whose turn it is."""
        if done is not None:
            place, shooting = done
            keep = schedule.keeps(place)
            try:
                capture = self._complete_and_close(shooting, say, keep=keep)
            except BaseException as err:
                failure = self.judge(shooting.ready.job.variant, err)
                if failure is None:
                    raise
                say(failure.message)
                schedule.finished(place, failure)  # nothing kept: the step switching it loads anew
            else:
                schedule.finished(place, capture, shooting.ready.job.lane if keep else None)
        yield from _due(schedule, failures)

    def _complete_and_close(self, shooting: Shooting, say: Progress, keep: bool = False) -> Capture:
        """Finish `shooting`; its lane is parked, or with `keep` left as it is for a switched step.

        A page taller than one tile is closed instead: its renderer keeps what the
        tiles cost (~600 MB at 130 000 px) even on about:blank, while the next
        page's tiles are taken; a new lane costs ~1 CPU-s (benchmarks/README.md)."""
        complete = False
        try:
            capture = self.shooter.complete(shooting, say, self.tile_hook)
            complete = True
            return capture
        finally:
            shooting.tiles.cancel()
            if not (keep and complete):
                reuse = complete and shooting.ready.height <= self.visual.tile_height
                self.lanes.release(shooting.ready.job.lane, reuse=reuse)

    def _switchable(self, variant: Variant) -> bool:
        """Whether `variant` may be taken from another scheme's page (schedule.plan): not when
        the config says `switch_schemes = false`, when it forces <html data-theme> before the
        page's scripts, nor when regions are nudged."""
        return self.visual.switch_schemes and variant.data_theme is None and not self.nudges.get(variant)


def _due(schedule: Schedule, failures: bool) -> Iterator[Capture | Failure]:
    """The captures whose turn it is; a Failure among them is raised unless `failures`."""
    for shot in schedule.due():
        if isinstance(shot, Failure) and not failures:
            raise (shot.error or CaptureError(shot.message))
        yield shot
