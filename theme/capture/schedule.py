"""The order capture_all takes variants in (plan), and its bookkeeping (Schedule):
which page is loading ahead, which page a switched step takes, whose tiles are
being taken, and which captures wait for their turn. No browser here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterator

from .naming import Variant

if TYPE_CHECKING:
    from .lanes import Lane, Pending
    from .model import Capture, Failure
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
    twice: once the light one's capture is complete, its page can emulate dark and
    be taken again (see Lanes.switch for when that is the same as a fresh load).
    So each run of one view in several schemes is taken in a row, each variant
    after the first switching the page of the one just before it. The next fresh
    page loads and settles meanwhile (Schedule.load_ahead), so a switch costs
    only the gap between two pages' tiles. Pages are never interleaved: a tall
    page's renderer keeps what its tiles cost (~600 MB at 130 000 px,
    benchmarks/README.md), and holding one page for its dark step while another
    was tiled put two such renderers in memory at once.

    Of one page's runs, the widest view goes last: its tiles' capture surfaces
    are the largest (1280 × 32 768 px of RGBA in the GPU and browser processes
    for a moment), and by then no next page is loading beside them. Widest
    first was ~1.5 s faster on the long page (a wide page settles sooner) but
    peaked ~300 MB higher, over 2 GiB (benchmarks/README.md).
    """
    pages = list(dict.fromkeys(v.page for v in todo))  # pages in the caller's order
    runs = sorted(_runs(todo, switchable), key=lambda run: (pages.index(todo[run[0]].page), todo[run[0]].width))
    steps: list[Step] = []
    for run in runs:
        for k, i in enumerate(run):
            steps.append(Step(i, follows=len(steps) - 1 if k else None))
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

    The next fresh page is loaded while the current step settles and is tiled
    (load_ahead). A switched step takes the page of the step just before it
    (plan), once that step's capture is complete (switches_shooting, keeps,
    finished), unless that page's scripts read the scheme: then it is loaded
    anew, ahead. One step's tiles are taken at a time (shoot). Captures are
    handed out in the caller's order (due)."""

    def __init__(self, todo: list[Variant], switchable: Callable[[Variant], bool]):
        self.todo = todo
        self.steps = plan(todo, switchable)
        self._follower = {step.follows: place for place, step in enumerate(self.steps) if step.follows is not None}
        self._opened: dict[int, Pending] = {}  # place -> a fresh page, loading
        self._fresh: set[int] = set()  # places that were given a fresh page (opened, taken or not)
        self._kept: dict[int, Lane] = {}  # place of a switched step -> the page it is to take
        self._read: dict[int, str | None] = {}  # place -> how its page learned the scheme (None: it did not)
        # todo index -> capture (or failure), held until the ones before it are out
        self._finished: dict[int, Capture | Failure] = {}
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
        """Start, with `open_page`, the page of the next step after this one that needs
        a fresh one: a fresh step, or one that would switch a page whose scripts read
        the scheme. Steps that switch a page are looked past, but only once it is known
        whether that page read the scheme (note_read): one page loads ahead at a time."""
        for ahead in range(place + 1, len(self.steps)):
            if ahead in self._fresh:
                return
            follows = self.steps[ahead].follows
            if follows is not None and follows not in self._read:
                return  # called again once the page it switches is settled
            if follows is None or self._read[follows]:
                self._opened[ahead] = open_page(self.todo[self.steps[ahead].index])
                self._fresh.add(ahead)
                return

    def followed(self, place: int) -> bool:
        """Whether a later step may switch this step's page (ask its scripts, note_read)."""
        return place in self._follower

    def note_read(self, place: int, how: str | None) -> None:
        """How this step's page learned the scheme (lanes.scheme_read), None if it did not."""
        self._read[place] = how

    def switches_shooting(self, place: int) -> bool:
        """Whether this step is to switch the page whose tiles are being taken (it waits
        for that capture to be complete); not when a page was loaded anew for it."""
        follows = self.steps[place].follows
        return (follows is not None and place not in self._fresh
                and self._shooting is not None and self._shooting[0] == follows)

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
        after = self._follower.get(place)
        return after is not None and after not in self._fresh

    def finished(self, place: int, capture: Capture | Failure, kept: Lane | None = None) -> None:
        """This step's capture is complete; `kept`: its page, for the step switching it (keeps)."""
        self._finished[self.steps[place].index] = capture
        if kept is not None:
            self._kept[self._follower[place]] = kept

    def due(self) -> Iterator[Capture | Failure]:
        """The finished captures whose turn it is, in the caller's order."""
        while self._turn in self._finished:
            yield self._finished.pop(self._turn)
            self._turn += 1

    def abandon(self) -> list[Lane]:
        """The pages no step will take any more (loaded ahead, or kept); forgets them."""
        lanes = [job.lane for job in self._opened.values()] + list(self._kept.values())
        self._opened, self._kept = {}, {}
        return lanes
