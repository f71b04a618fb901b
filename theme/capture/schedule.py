"""The order capture_all takes variants in (plan), and its bookkeeping (Schedule):
which page is loading ahead, which page a switched step takes, whose tiles are
being taken, and which captures wait for their turn. No browser here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterator

from .naming import Variant

if TYPE_CHECKING:
    from .lanes import Lane, Pending
    from .model import Capture
    from .shoot import Shooting


@dataclass(frozen=True)
class Step:
    """One variant in the order capture_all takes them."""

    index: int  # its place in the caller's list (captures are yielded in that order)
    follows: int | None = None  # the step (place in the plan) whose page it may take, switching the scheme


def same_view(a: Variant, b: Variant) -> bool:
    """Whether `a` and `b` are one page at one viewport (they may differ in scheme)."""
    return (a.page, a.viewport, a.width, a.height) == (b.page, b.viewport, b.width, b.height)


def plan(todo: list[Variant], switchable: Callable[[Variant], bool]) -> list[Step]:
    """The order to take `todo` in, and which variants may switch a page's scheme.

    A light and a dark variant of one page at one viewport need not load the page
    twice: once the light one's tiles are taken, its page can emulate dark and be
    taken again (see Lanes.switch for when that is the same as a fresh load).
    But a switched variant waits for the one before it, where two fresh ones
    load, settle and tile side by side on the two cores. So runs of one page
    and viewport are paired and interleaved: light A, light B, dark A, dark B,
    where dark A switches A's page while light B is being tiled; the switched
    step is always two places after the one it follows, the pipeline's depth.
    A is the wider view, whose tiles take longest (benchmarks/README.md), so it
    starts first. A run without a partner is taken fresh, variant by variant.
    """
    runs = _runs(todo, switchable)
    steps: list[Step] = []
    r = 0
    while r < len(runs):
        a = runs[r]
        b = runs[r + 1] if r + 1 < len(runs) else []
        if len(a) < 2 or len(b) < 2:
            steps += [Step(i) for i in a]
            r += 1
            continue
        if todo[b[0]].width > todo[a[0]].width:
            a, b = b, a  # the wider first: its rows have more pixels, and its chain ends last
        order = [run[k] for k in range(max(len(a), len(b))) for run in (a, b) if k < len(run)]
        place = {i: len(steps) + n for n, i in enumerate(order)}
        for i in order:
            run = a if i in a else b
            k = run.index(i)
            prev = place[run[k - 1]] if k else None
            steps.append(Step(i, prev if prev == len(steps) - 2 else None))
        r += 2
    return steps


def _runs(todo: list[Variant], switchable: Callable[[Variant], bool]) -> list[list[int]]:
    """`todo`'s indexes in runs of neighbours that are one view in different schemes,
    each of which may be switched to; every other variant is a run of its own."""
    runs: list[list[int]] = []
    for i, v in enumerate(todo):
        last = runs[-1] if runs else None
        if (last and switchable(v) and switchable(todo[last[-1]])
                and same_view(todo[last[-1]], v)
                and v.media_scheme not in {todo[j].media_scheme for j in last}):
            last.append(i)
        else:
            runs.append([i])
    return runs


class Schedule:
    """capture_all's state along its plan, step by step ("place": a step's place in the plan).

    Step N+1's page is loaded while step N settles (load_ahead), unless N+1 is to
    switch the scheme of step N-1's page and that page's scripts never read the
    scheme; then, once N-1's capture is complete, its page is kept for N+1
    (keeps, finished) instead of being parked. One step's tiles are taken at a time
    (shoot). Captures are handed out in the caller's order (due)."""

    def __init__(self, todo: list[Variant], switchable: Callable[[Variant], bool]):
        self.todo = todo
        self.steps = plan(todo, switchable)
        self._followed = {step.follows for step in self.steps if step.follows is not None}
        self._opened: dict[int, Pending] = {}  # place -> a fresh page, loading
        self._kept: dict[int, Lane] = {}  # place of a switched step -> the page it is to take
        self._read: dict[int, str | None] = {}  # place -> how its page learned the scheme (None: it did not)
        self._finished: dict[int, Capture] = {}  # todo index -> capture, held until the ones before it are out
        self._turn = 0  # the todo index handed out next
        self._shooting: tuple[int, Shooting] | None = None  # (place, its tiles being taken)

    def __iter__(self) -> Iterator[tuple[int, Variant]]:
        """(place, variant) of every step, in the plan's order."""
        for place, step in enumerate(self.steps):
            yield place, self.todo[step.index]

    def opened(self, place: int) -> Pending | None:
        """The page loaded ahead for this step, if one was (taken off the schedule)."""
        return self._opened.pop(place, None)

    def kept(self, place: int) -> Lane | None:
        """The page kept for this switched step, if one was (taken off the schedule)."""
        return self._kept.pop(place, None)

    def load_ahead(self, place: int, open_page: Callable[[Variant], Pending]) -> None:
        """Start the next step's page with `open_page` now, while this one settles: when it
        is fresh, or would switch a page whose scripts read the scheme (it is loaded anew)."""
        ahead = place + 1
        if ahead < len(self.steps) and (self.steps[ahead].follows is None
                                        or self._read.get(self.steps[ahead].follows)):
            self._opened[ahead] = open_page(self.todo[self.steps[ahead].index])

    def followed(self, place: int) -> bool:
        """Whether a later step may switch this step's page (ask its scripts, note_read)."""
        return place in self._followed

    def note_read(self, place: int, how: str | None) -> None:
        """How this step's page learned the scheme (lanes.scheme_read), None if it did not."""
        self._read[place] = how

    @property
    def shooting(self) -> Shooting | None:
        """The step whose tiles are being taken, if any."""
        return self._shooting[1] if self._shooting is not None else None

    def shoot(self, place: int, shooting: Shooting) -> tuple[int, Shooting] | None:
        """This step's tiles are now the ones being taken; returns the (place, Shooting)
        that were, to be completed."""
        done, self._shooting = self._shooting, (place, shooting)
        return done

    def stop(self) -> tuple[int, Shooting] | None:
        """No tiles are being taken any more; returns the (place, Shooting) that were."""
        done, self._shooting = self._shooting, None
        return done

    def keeps(self, place: int) -> bool:
        """Whether this step's page is kept, once complete, for the step switching it."""
        after = place + 2
        return after < len(self.steps) and self.steps[after].follows == place and after not in self._opened

    def finished(self, place: int, capture: Capture, kept: Lane | None = None) -> None:
        """This step's capture is complete; `kept`: its page, for the step two places on (keeps)."""
        self._finished[self.steps[place].index] = capture
        if kept is not None:
            self._kept[place + 2] = kept

    def due(self) -> Iterator[Capture]:
        """The finished captures whose turn it is, in the caller's order."""
        while self._turn in self._finished:
            yield self._finished.pop(self._turn)
            self._turn += 1

    def abandon(self) -> list[Lane]:
        """The pages no step will take any more (loaded ahead, or kept); forgets them."""
        lanes = [job.lane for job in self._opened.values()] + list(self._kept.values())
        self._opened, self._kept = {}, {}
        return lanes
