"""Render each page offline and note what `theme init` needs: its components, whether it
reacts to the colour scheme (one look, desktop and light), and, at every look, what it
asked for beyond 127.0.0.1 (served by a route, or blocked, and which element would have
drawn it), and local files that were missing."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from ..capture import Session, readiness, remote, scripts
from ..capture.lanes import Pending, scheme_read
from ..capture.model import Failure, JsonObject
from ..capture.naming import Variant, variants
from ..check import steady
from ..core.config import VisualConfig, parse
from ..core.errors import CaptureError

SURVEY_VIEWPORT = (1280, 800)  # the desktop viewport init proposes: the look a page's facts come from
DESKTOP = ("desktop", *SURVEY_VIEWPORT, "light")
# How long a done page is watched for what still changes: longer than the pauses of an
# animation on a loop (the CTC article's typing rests ~1.2 s between rounds).
WATCH_MS = 2500


@dataclass
class PageSurvey:
    """What one page showed: see theme/capture/js/survey.js."""

    page: str
    aborted: list[str]
    notes: list[JsonObject]  # survey.js's answer: {cls, selector, count} a note-box class
    components: dict[str, int]
    figure_in_d_figure: bool
    scheme: JsonObject  # survey.js's answer: {rules, unreadable, meta, sources}
    scheme_read: str | None  # how a script learned the scheme (scripts.SCHEME_PROBE), or None
    blocked: dict[str, JsonObject]  # URL -> the element that asked for it (survey.js)
    # Local paths that answered 4xx/5xx: (path, status, kind), the kind one of
    # resources.ESSENTIAL (the checks refuse a page without it) or what else asked for it.
    missing: list[tuple[str, int, str]]
    # Figures a script draws outside <figure> (survey.js): {key, selector, count}, by the class
    # or id that names them.
    drawn: list[JsonObject] = field(default_factory=list)
    maths: int = 0
    maths_pending: int = 0
    routed: list[str] = field(default_factory=list)  # URLs a route served
    # Selectors of what a script keeps changing after the page is done (readiness.moving):
    # no capture can hold them still, so they are proposed as masks.
    moving: list[str] = field(default_factory=list)
    # Viewport name -> scripts.OVERFLOW's answer, where the page is wider than the viewport.
    overflow: dict[str, JsonObject] = field(default_factory=dict)

    def joined(self, other: "PageSurvey") -> "PageSurvey":
        """These facts, with the requests, moving elements and overflow of `other` (another
        look at the same page) added."""
        return dataclasses.replace(
            self, aborted=sorted({*self.aborted, *other.aborted}), routed=sorted({*self.routed, *other.routed}),
            blocked={**other.blocked, **self.blocked}, missing=sorted({*self.missing, *other.missing}),
            moving=sorted({*self.moving, *other.moving}), overflow={**other.overflow, **self.overflow})


@dataclass
class Survey:
    pages: list[PageSurvey] = field(default_factory=list)

    @property
    def aborted(self) -> list[str]:
        return sorted({u for p in self.pages for u in p.aborted})

    @property
    def routed(self) -> list[str]:
        return sorted({u for p in self.pages for u in p.routed})

    def joined(self, other: "Survey") -> "Survey":
        """This survey's facts with the requests of `other`'s looks at the same pages."""
        theirs = {p.page: p for p in other.pages}
        return Survey([p.joined(theirs[p.page]) if p.page in theirs else p for p in self.pages])


def survey(root: Path, pages: list[str], route: dict[str, Path], *,
           looks: tuple[tuple[str, int, int, str], ...] = (DESKTOP,), timeout: int = 30) -> Survey:
    """Load every page offline with `route` at each look (viewport name, width, height,
    scheme): the first gives its facts, every one adds the requests it made."""
    visual = VisualConfig(root=root, pages=tuple(pages), viewports={name: (w, h) for name, w, h, _ in looks},
                          color_schemes=tuple(dict.fromkeys(s for *_, s in looks)), route=dict(route),
                          settle_timeout=timeout)
    out = Survey()
    with _session(visual) as session:
        for page in pages:
            seen: PageSurvey | None = None
            for look in looks:
                with session.loaded(Variant(page, *look)) as job:
                    found = _look(job, page, timeout, look[0], watch=seen is None)
                seen = found if seen is None else seen.joined(found)
            if seen is not None:  # None: no look
                out.pages.append(seen)
    return out


def _session(visual: VisualConfig) -> Session:
    """A Session for one of init's looks: on the first browser endpoint the environment names
    (remote.endpoints), else a Chromium here (kept across looks: launch.kept_browsers)."""
    endpoints = remote.endpoints(())
    return Session(visual, endpoint=endpoints[0] if endpoints else None)


def _look(job: Pending, page_name: str, timeout: int, viewport: str = DESKTOP[0], watch: bool = True) -> PageSurvey:
    """Wait until the page is done (maths aside: offline, its library may be blocked), read
    it through once when something observes scrolling (lazy requests), then read it: whether
    it is wider than the viewport and, with `watch`, what still changes once it is done."""
    page = job.page
    status = _wait_done(job, timeout)
    if status["observers"] or status["scrollers"]:
        page.evaluate(scripts.READ_THROUGH)
        status = _wait_done(job, timeout)
    moving = readiness.moving(page, (), WATCH_MS) if watch else []
    over: JsonObject = page.evaluate(scripts.OVERFLOW, {"limit": readiness.OVERFLOW_NAMED})
    overflow = {viewport: over} if over["widest"] or over["width"] > over["view"] else {}
    aborted = sorted(job.aborted)
    routed = sorted(job.lane.routed)
    facts: JsonObject = page.evaluate(scripts.SURVEY, {"urls": aborted})
    return PageSurvey(page=page_name, aborted=aborted, notes=facts["notes"], components=facts["components"],
                      figure_in_d_figure=facts["figureInDFigure"], scheme=facts["scheme"],
                      scheme_read=scheme_read(page), blocked=facts["blocked"], drawn=facts["drawn"],
                      missing=[(path, status, missing_kind(path, by)) for path, status, by in facts["missing"]],
                      maths=status["maths"], maths_pending=status["mathsPending"], routed=routed,
                      moving=moving, overflow=overflow)


def _wait_done(job: Pending, timeout: int) -> JsonObject:
    """The page done as init has it (readiness.settle in mode SURVEY: its requests answered,
    blocked ones too, for half a second; maths typeset unless a request was blocked); past
    `timeout` s it stops waiting: what is still pending is what init reports. Returns
    scripts.PROBE's answer."""
    return readiness.settle(job.page, job.lane, readiness.SURVEY, timeout_s=timeout).status


def twice(root: Path, pages: list[str], route: dict[str, Path], *, masks: list[str], allowed: list[str],
          timeout: int = 30) -> dict[str, list[steady.Part] | str]:
    """Each page rendered twice at the desktop look, two fresh loads as an update renders them
    (page time, seeded random numbers, `masks` painted over, `allowed` requests let fail):
    what still differs between the two (steady.unsteady, [] when nothing), or, as a string,
    why the page could not be rendered."""
    visual = VisualConfig(root=root, pages=tuple(pages), viewports={DESKTOP[0]: SURVEY_VIEWPORT},
                          color_schemes=(DESKTOP[3],), route=dict(route), mask=tuple(masks),
                          allow_blocked=tuple(allowed), settle_timeout=timeout)
    out: dict[str, list[steady.Part] | str] = {}
    with _session(visual) as session:
        for page in pages:
            variant = Variant(page, *DESKTOP)
            try:
                first, second = session.capture(variant), session.capture(variant)
            except CaptureError as err:
                out[page] = str(err).splitlines()[0]
                continue
            out[page] = steady.unsteady(first, second, visual,
                                        lambda shot, boxes: session.elements_at(shot.variant, boxes))
    return out


def failing_states(root: Path, pages: list[str], route: dict[str, Path], states: list[JsonObject], *,
                   viewports: dict[str, tuple[int, int]], masks: list[str], allowed: list[str],
                   timeout: int = 30) -> dict[tuple[str, str], str]:
    """{(state name, page): why} for each proposed reader state (`[[tool.theme.visual.states]]`
    tables) that fails on a page at one of `viewports` (light): its hover box past the mobile
    viewport, say. An update would fail on it; init proposes it only where it renders."""
    if not states:
        return {}
    visual = parse({"visual": {"pages": pages, "states": states}}, source=root / "pyproject.toml").visual
    assert visual is not None  # the table was given
    visual = dataclasses.replace(visual, root=root, viewports=dict(viewports), color_schemes=(DESKTOP[3],),
                                 route=dict(route), mask=tuple(masks), allow_blocked=tuple(allowed),
                                 settle_timeout=timeout)
    todo = [v for v in variants(visual) if v.state]
    out: dict[tuple[str, str], str] = {}
    with _session(visual) as session:
        for shot in session.capture_all(todo, failures=True):
            # the state's own failure (steps, capture, contrast), not the page's (a script blocked)
            if isinstance(shot, Failure) and shot.variant.state is not None and shot.kind == "state":
                v = shot.variant
                why = shot.message.splitlines()[0].split(": ", 1)[-1]
                out.setdefault((v.state, v.page), f"at {v.viewport} ({v.width}×{v.height}), {why}")
    return out


# What a missing file is, from its name and what asked for it (the Resource Timing entry's
# initiatorType: "script", "link", "css" for a stylesheet's url(), "fetch", "img"…).
_BY_SUFFIX = {".js": "script", ".mjs": "script", ".css": "stylesheet", ".woff2": "font", ".woff": "font",
              ".ttf": "font", ".otf": "font"}


def missing_kind(path: str, initiator: str) -> str:
    """A script, stylesheet or font (what the checks refuse a page without), else what asked."""
    if initiator == "script":
        return "script"
    kind = _BY_SUFFIX.get(Path(path.split("?", 1)[0]).suffix.lower())
    if kind and initiator in ("link", "css", "other", ""):  # a <link>, a stylesheet's url(), or unsaid
        return kind
    return initiator or "request"
