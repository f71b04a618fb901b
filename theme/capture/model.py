"""What a capture gives: the full-page image and its named regions (Capture, Region),
and the small vocabulary the capture modules share (progress, nudges, timings)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Protocol

import numpy as np

from .naming import Variant, safe_segment

if TYPE_CHECKING:
    from ..core.config import VisualConfig
    from .resources import Refusal

Progress = Callable[[str], None]
# The top-left corners (CSS px) of a region's frames, outermost first: the ancestors whose
# own sub-pixel phase shapes its pixels (js/frames_of.js, theme/check/phase.py).
Frames = tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Target:
    """Where a sub-pixel nudge puts a region back: its baseline's top-left corner (x, y),
    and its frames' corners when the baseline recorded them (None: the region alone).
    `rows`: the page rows [y0, y1) it covered before the nudge; when every target of a
    variant has them, its capture takes only the tiles around them (tiles.wanted_clips)."""

    x: float
    y: float
    frames: Frames | None = None
    rows: tuple[int, int] | None = None


Nudges = Mapping[str, Target]  # region path ("code/intro.png") -> where to put it back
Rows = tuple[tuple[int, int], ...]  # page rows [y0, y1) a capture holds, when not all of them


def wanted_rows(nudges: Nudges | None) -> Rows | None:
    """The rows a nudged capture must hold: its targets' `rows`, or None (the whole page)
    when there are no nudges or one target does not say where it is."""
    if not nudges or any(t.rows is None for t in nudges.values()):
        return None
    return tuple(sorted(t.rows for t in nudges.values() if t.rows is not None))


# A JSON object as theme writes it (fingerprint.json, the manifest's environments, report.json)
# or reads it back: values are whatever json.dumps takes.
JsonObject = dict[str, Any]
# A region's style record as computed_styles.js gives it: element (a selector relative to the
# region, "" for its own) -> property -> computed value; theme/baselines/style_record.py reads it.
PageStyles = dict[str, dict[str, str]]
# The key of the page's text-flow record among a capture's records (theme/capture/js/flow_record.js):
# its whole-page image's path, as a region's record is under its image's path.
FLOW = "page.png"
# Seconds per step of a capture, and counts and flags (tile calls, a switched scheme), for
# benchmarks and --explain.
Timings = dict[str, float]


@dataclass(frozen=True)
class Region:
    """A component on the page: where it is in the full image and what it is called."""

    key: str  # the config key, e.g. "note-box"
    name: str  # "<heading slug>[-k]", e.g. "memory-usage-2"
    box: tuple[int, int, int, int]  # x, y, w, h in page px, clipped to the image
    heading: str  # text of the nearest preceding h1–h4 ("" when none)
    selector: str  # a readable selector path, for messages and reports
    # The element's CSS box as measured (x, y, w, h; Chromium lays out in 1/64 px).
    # Its fractional part is the region's sub-pixel phase: see theme/check/phase.py.
    css_box: tuple[float, float, float, float] | None = None
    frames: Frames = ()  # its frames' corners as measured (Frames)

    @property
    def path(self) -> PurePosixPath:
        return PurePosixPath(safe_segment(self.key)) / f"{self.name}.png"


@dataclass(frozen=True)
class Loaded:
    """What a variant's page asked for while it was captured (capture/lanes.py), for the
    inputs digest (theme/check/inputs.py): what the server was asked for, by path under
    root with its query; what `route` answered, by URL; what went to the network (online)."""

    served: frozenset[str] = frozenset()
    routed: frozenset[str] = frozenset()
    passed: frozenset[str] = frozenset()


@dataclass
class Capture:
    """One variant's full-page image and the regions cropped from it."""

    variant: Variant
    image: np.ndarray  # (H, W, 4) uint8 RGBA
    regions: list[Region]
    aborted: list[str]  # URLs that were neither local nor routed, sorted
    fingerprint: JsonObject  # browser, platform, flags, tile height, web fonts, system fonts, theme version
    seconds: float
    full_page: bool = True  # whether images() yields page.png first
    timings: Timings = field(default_factory=dict)
    nudged: dict[str, tuple[float, float]] = field(default_factory=dict)  # region path -> (dx, dy) CSS px moved
    # region path -> its crop from a second capture at a baseline's sub-pixel phase (theme/check/phase.py)
    realigned: dict[str, np.ndarray] = field(default_factory=dict)
    # What settling waited for and how long, undefined tags, routed URLs, pinned
    # fixed/sticky elements, frozen images: `theme capture --explain` prints it.
    explain: JsonObject = field(default_factory=dict)
    # images.pixels_sha256 of `image`, when the pipeline hashed it on the way (run.spill):
    # a page check against a baseline with the same digest then decodes nothing.
    pixels: str | None = None
    # A second, independent render gave the same images (theme/check/steady.py), or its page
    # is pixel for pixel the baseline's: what an update writes of it has happened twice.
    reproduced: bool = False
    # Rendered from the very inputs its baselines were (theme/check/inputs.py: --rerender of a page
    # whose record holds): what differs from them is the page not holding still, not a change.
    same_inputs: bool = False
    # What the capture did that the run should say (tiles taken smaller to get a whole image).
    notes: list[str] = field(default_factory=list)
    # region path ("note-box/memory-usage.png") -> its style record, read on the frozen page
    # after the regions were measured (a region whose element was not found has none)
    styles: dict[str, PageStyles] = field(default_factory=dict)
    loaded: Loaded | None = None  # what the page asked for (None: not recorded)
    # Rows [y0, y1) the image holds when only the tiles around nudged regions were taken
    # (theme/check/phase.py); the other rows are blank. None: the whole page.
    rows: Rows | None = None

    def holds(self, box: tuple[int, int, int, int]) -> bool:
        """Whether every row of `box` (x, y, w, h) was taken: always, unless only some tiles were."""
        return self.rows is None or any(y0 <= box[1] and box[1] + box[3] <= y1 for y0, y1 in self.rows)

    def crop(self, region: Region) -> np.ndarray:
        x, y, w, h = region.box
        return self.image[y:y + h, x:x + w]

    def images(self) -> Iterator[tuple[PurePosixPath, np.ndarray]]:
        """('page.png', full image) when full_page, then every region, in config-key then document order."""
        if self.full_page:
            yield PurePosixPath("page.png"), self.image
        for region in self.regions:
            yield region.path, self.crop(region)


@dataclass
class Failure:
    """A variant that has no trustworthy capture, in the place its Capture would have had
    (capture_all with failures=True): the one-line reason, what kind of failure
    (RenderError.kind, or "capture" for any other error of that page), and images that
    show why, for the artefacts (a blank band of a page image that is not whole)."""

    variant: Variant
    message: str
    kind: str = "capture"
    images: dict[str, np.ndarray] = field(default_factory=dict)  # name -> (H, W, 4) RGBA
    # name -> its PNG in the artefacts folder (theme.review.runs.suite)
    saved: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # kind "broken": every resource that did not load (resources.Refusal): a run says a
    # page's list once (resources.PerPage rewrites `message` of its other variants)
    refusal: Refusal | None = None
    error: BaseException | None = field(default=None, repr=False, compare=False)  # what was raised


# A variant's error as its own Failure, or None when it is not the page's alone (a config
# mistake, an interrupt, a browser gone): what a run of variants asks of its Session.
Judge = Callable[[Variant, BaseException], Failure | None]


def label(variant: Variant) -> str:
    """How messages name a variant: `index.html (desktop-dark)`, `index.html (desktop-dark, state cite-hover)`."""
    state = f", state {variant.state}" if variant.state else ""
    return f"{variant.page} ({variant.viewport}-{variant.scheme}{state})"


def mark(timings: Timings, name: str, since: float) -> float:
    """Add the seconds since `since` to timings[name]; returns now, the next step's start."""
    now = time.perf_counter()
    timings[name] = timings.get(name, 0.0) + (now - since)
    return now


class Renderer(Protocol):
    """What renders variants for the check flow: a Session (one browser, launched here or
    reached at an endpoint) or a Pool (several browser servers). Used with `with`."""

    visual: VisualConfig
    fingerprint: JsonObject  # the environment every capture is made in
    notes: list[str]  # what happened to browser endpoints, for the run's output

    def __enter__(self) -> "Renderer": ...

    def __exit__(self, *exc: object) -> None: ...

    def capture(self, variant: Variant, progress: Progress | None = None,
                nudges: Nudges | None = None) -> Capture:
        """One variant; its failure raises."""

    def capture_all(self, todo: Iterable[Variant], progress: Progress | None = None,
                    nudges: Mapping[Variant, Nudges] | None = None, *,
                    failures: bool = False) -> Iterator[Capture | Failure]:
        """Every variant in `todo`'s order; with `failures`, a variant whose page failed is a Failure."""

    def elements_at(self, variant: Variant, boxes: list[tuple[int, int, int, int]]) -> list[str | None]:
        """For each box, a selector of the smallest element holding it (`theme capture --explain`)."""
