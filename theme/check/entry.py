"""One checked image as a report shows it (Entry): the one place a verdict becomes
what the terminal, the report, `theme accept` and `theme review` read."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from ..baselines.style_record import (
    StyleChange,
    StyleRecord,
    changes,
    flow_changes,
    flow_counts,
    has_text,
    to_json,
    translucent,
)
from ..core.status import Status
from .causes import UNSTEADY, Box, Failed, Group, explain, group, inherited, unrecorded_flow

if TYPE_CHECKING:
    from ..capture.model import Region
    from ..capture.naming import Variant
    from .verdict import CheckResult

ARTEFACT_KINDS = ("expected", "actual", "diff")


@dataclass(frozen=True)
class Entry:
    """One checked image, as a report shows it."""

    key: str  # snapshots-relative path, e.g. index/desktop-dark/note-box/memory-usage.png
    status: Status  # given as its text (report.json), it is made the member
    message: str = ""
    page: str = ""
    viewport: str = ""
    scheme: str = ""
    region_key: str = ""  # "" for the whole page
    region_name: str = ""
    heading: str = ""  # nearest heading of the region, for attribution
    selector: str = ""
    diff: Mapping[str, Any] | None = None  # DiffResult.to_json()
    drift: str | None = None
    images: Mapping[str, str] = field(default_factory=dict)  # kind -> absolute path of the artefact
    attribution: tuple[str, ...] = ()  # "note-box in “Memory” grew 14 px", from theme.check.attribution
    realigned: bool = False  # matched once re-rendered at its baseline's sub-pixel phase (theme/check/phase.py)
    box: tuple[float, float, float, float] | None = None  # a region's CSS box (x, y, w, h) as captured
    frames: tuple[tuple[float, float], ...] = ()  # its frames' corners as captured (theme/check/phase.py)
    # A page image in a written report: its changed bands ({"rows", "expected_rows", "images"}),
    # a scaled-down overview ({"image", "height", "width", "scale"}), and the sha256 of the
    # full-size actual PNG left in the artefacts folder, which `theme accept` verifies.
    bands: tuple[Mapping[str, Any], ...] = ()
    overview: Mapping[str, Any] | None = None
    actual_sha256: str = ""
    patch: Mapping[str, Any] | None = None  # the actual as a patch on the baseline (theme/check/patch.py)
    # A differing region whose style was recorded on both sides (theme/baselines/style_record.py): what
    # changed, as (selector, property, before, after), and the one line that says it
    # ("note-box in “…”: `.note-box-content` font-size 12px → 13px; height 84 → 91 px").
    style_changes: tuple[tuple[str, str, str | None, str | None], ...] = ()
    why: str = ""  # "" when either side has no record: then `attribution` is today's words
    texts: bool = True  # both records hold text (False: a baseline recorded before records did)
    through: str = ""  # its translucent background now, which shows the page behind it (style_record.translucent)
    expected_box: tuple[float, float, float, float] | None = None  # the CSS box its expected image had
    style: Mapping[str, Mapping[str, str]] | None = None  # its record now (styles.to_json), for `theme accept`
    unchanged: bool = False  # matched without rendering: its inputs did not change (theme/check/inputs.py)
    unsteady: bool = False  # failed, rendered from its baselines' own inputs (causes.Cause.UNSTEADY)
    # A page whose baseline has no text-flow record (made before theme kept one): its change is
    # told by rows, not rules, until `--update-snapshots=all` records it (causes.unrecorded_flow).
    flow_unrecorded: bool = False
    # A failed page's changed rows, merged ([y0, y1) in page px): which regions' groups the page
    # shows (causes._pushers); a page joins no group whose elements lie outside them.
    changed_rows: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))  # frozen: set once, here

    @property
    def is_page(self) -> bool:
        """A whole-page image: cropped into bands in a report, not copied whole."""
        return not self.region_key and self.key.endswith("/page.png")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Entry":
        known = {f for f in cls.__dataclass_fields__}
        fields = {k: v for k, v in data.items() if k in known}
        if "bands" in fields:
            fields["bands"] = tuple(fields["bands"])
        for name in ("box", "expected_box"):
            if fields.get(name) is not None:  # a JSON list
                fields[name] = tuple(fields[name])
        if "frames" in fields:
            fields["frames"] = tuple(tuple(f) for f in fields["frames"])
        if "style_changes" in fields:
            fields["style_changes"] = tuple(tuple(c) for c in fields["style_changes"])
        if "changed_rows" in fields:
            fields["changed_rows"] = tuple((int(a), int(b)) for a, b in fields["changed_rows"])
        return cls(**fields)

    def changes(self) -> tuple[StyleChange, ...]:
        return tuple(StyleChange(*c) for c in self.style_changes)

    def failed(self) -> Failed:
        """What grouping by cause reads of it (theme/check/causes.py)."""
        return Failed(self.key, self.region_key, self.heading, self.changes(), self.expected_box, self.box,
                      recorded=bool(self.why), texts=self.texts, through=self.through, unsteady=self.unsteady,
                      rows=self.changed_rows, selector=self.selector)

    @classmethod
    def from_check(cls, result: CheckResult, variant: Variant | None = None, region: Region | None = None,
                   attribution: Iterable[str] = (), styled: Styled | None = None,
                   same_inputs: bool = False) -> "Entry":
        """The one place a check's result (theme.check.verdict.CheckResult) becomes a report entry.

        The message is what the user reads in the terminal too: the check's own
        message, then one `in:` line per element the difference was found in. A
        differing region with `styled` (its records and boxes) says why in CSS terms instead;
        an image of a render from its baselines' own inputs (`same_inputs`) says that it does
        not hold still, whatever its records show."""
        arts = result.artifacts
        attribution = tuple(attribution)
        extra: dict[str, Any] = {}
        if styled is not None and result.status in (Status.FAILED, Status.UPDATED):
            extra = styled.fields(result.key, region)
            if extra.get("why"):
                attribution = (extra["why"],)
        unsteady = same_inputs and result.status is Status.FAILED
        if unsteady:
            label = f"{region.key} in “{region.heading}”" if region is not None and region.heading else (
                region.key if region is not None else "whole page")
            extra["why"] = f"{label}: {UNSTEADY}"
            # A region says this alone; a page keeps where it differs, after it.
            attribution = (extra["why"],) if region is not None else (extra["why"], *attribution)
        fields: dict[str, Any] = {**extra,
            "key": result.key, "status": result.status,
            "message": result.message + "".join(f"\n  {'why' if extra.get('why') else 'in'}: {line}"
                                                for line in attribution),
            "diff": result.diff.to_json() if result.diff is not None else None,
            "drift": result.drift, "attribution": attribution, "realigned": bool(result.realigned),
            "unsteady": unsteady,
            "images": {kind: str(path) for kind in ARTEFACT_KINDS if (path := getattr(arts, kind)) is not None},
        }
        if region is None and result.overview is not None:  # a new page's, made from its pixels in memory
            fields["overview"] = dict(result.overview)
        if region is None and result.diff is not None and not result.diff.matches:
            fields["changed_rows"] = merged_rows(result.diff.boxes)
        if variant is not None:
            fields.update(page=variant.page_name, viewport=variant.viewport, scheme=variant.scheme)
        if region is not None:
            fields.update(region_key=region.key, region_name=region.name, heading=region.heading,
                          selector=region.selector)
            if region.css_box is not None:  # `theme accept` records it with the baseline (theme/check/phase.py)
                fields["box"] = tuple(float(v) for v in region.css_box)
                fields["frames"] = region.frames
        return cls(**fields)


def merged_rows(boxes: Iterable[Sequence[int]]) -> tuple[tuple[int, int], ...]:
    """The rows the boxes (x, y, w, h) cover, as few [y0, y1) ranges as they make."""
    out: list[list[int]] = []
    for y0, y1 in sorted((int(b[1]), int(b[1]) + int(b[3])) for b in boxes):
        if out and y0 <= out[-1][1]:
            out[-1][1] = max(out[-1][1], y1)
        else:
            out.append([y0, y1])
    return tuple((a, b) for a, b in out)


def cause_groups(entries: Iterable[Entry]) -> list[Group]:
    """The failed images that were compared, grouped by cause (theme/check/causes.py): what
    the terminal, summary.md and report.json show first. An image with nothing to compare
    against (no baseline, a render that failed) is a failure of another kind, left out."""
    return group(e.failed() for e in entries if e.status is Status.FAILED and e.diff is not None)


def unrecorded_flow_line(entries: Iterable[Entry]) -> str:
    """The run's one line on failed pages whose baselines predate text-flow records, or ""
    (causes.unrecorded_flow words it): the terminal and summary.md both say it."""
    return unrecorded_flow(sum(1 for e in entries if e.flow_unrecorded and e.status is Status.FAILED))


def told_in_groups(entries: Sequence[Entry], groups: Sequence[Group]) -> list[Entry]:
    """`entries` with each failed region's `why` as its group tells it: a focused link whose
    line-height changed as its paragraph's did says ", inherited from `d-article > p`" (an
    entry's own `why` was written before the run's other failures were known)."""
    items = {i.id: (i, g) for g in groups for i in g.items}
    out = []
    for e in entries:
        found = items.get(e.key) if e.why and e.region_key else None
        out.append(replace(e, why=explain(found[0], groups)) if found and inherited(*found) else e)
    return out


def group_json(g: Group) -> dict[str, Any]:
    """A group as report.json carries it (for the report page)."""
    return {"number": g.number, "cause": g.cause.value, "summary": g.summary, "count": g.count,
            "ids": list(g.ids), "pushed_by": list(g.pushed_by), "signature": [list(s) for s in g.signature]}



@dataclass(frozen=True)
class Styled:
    """A region's style records and CSS boxes on both sides of a check, as read before it
    (an update rewrites the expected side): what Entry.from_check explains a difference with."""

    before: StyleRecord | None  # the expected image's record; None for a baseline made before records
    after: StyleRecord | None  # the capture's
    before_box: Box | None = None
    after_box: Box | None = None

    def fields(self, key: str, region: Region | None) -> dict[str, Any]:
        """Entry fields: its record now always (for `theme accept`); its changes and the line
        that says them when both records are known. A page (region None) has its text flow's
        records, by kinds of element, and its whole size as its box."""
        out: dict[str, Any] = {"expected_box": self.before_box}
        if self.after is not None:
            out["style"] = to_json(self.after)
        if self.before is None or self.after is None:
            if region is None and self.before is None and self.after is not None:
                out["flow_unrecorded"] = True
            return out
        inherited: dict[str, list[str]] = {}
        if region is None:
            flow, inherited = flow_changes(self.before, self.after)
            found = tuple(flow)
        else:
            found = tuple(changes(self.before, self.after))
        texts, through = has_text(self.before) and has_text(self.after), translucent(self.after)
        item = Failed(key, region.key if region else "", region.heading if region else "", found,
                      self.before_box, self.after_box, texts=texts, through=through)
        out["style_changes"] = tuple((c.selector, c.prop, c.before, c.after) for c in found)
        out["texts"], out["through"] = texts, through
        out["why"] = explain(item, group([item]))
        if region is None:
            if not found:  # no flow change: the page shows its regions' groups, as it said before records
                return {k: v for k, v in out.items() if k not in ("why", "style_changes")}
            out["why"] += flow_counts(self.after, found) + "".join(
                f"; inherited from `{source}` by {', '.join(f'`{k}`' for k in kinds[:3])}"
                + (f" and {len(kinds) - 3} more" if len(kinds) > 3 else "")
                for source, kinds in sorted(inherited.items()))
        return out
