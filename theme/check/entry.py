"""One checked image as a report shows it (Entry): the one place a verdict becomes
what the terminal, the report, `theme accept` and `theme review` read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from ..status import Status

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
    # A page image in a written report: its changed bands ({"rows", "expected_rows", "images"}),
    # a scaled-down overview ({"image", "height", "width", "scale"}), and the sha256 of the
    # full-size actual PNG left in the artefacts folder, which `theme accept` verifies.
    bands: tuple[Mapping[str, Any], ...] = ()
    overview: Mapping[str, Any] | None = None
    actual_sha256: str = ""
    patch: Mapping[str, Any] | None = None  # the actual as a patch on the baseline (theme/review/patch.py)

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
        if fields.get("box") is not None:  # a JSON list
            fields["box"] = tuple(fields["box"])
        return cls(**fields)

    @classmethod
    def from_check(cls, result: CheckResult, variant: Variant | None = None, region: Region | None = None,
                   attribution: Iterable[str] = ()) -> "Entry":
        """The one place a check's result (theme.check.verdict.CheckResult) becomes a report entry.

        The message is what the user reads in the terminal too: the check's own
        message, then one `in:` line per element the difference was found in."""
        arts = result.artifacts
        attribution = tuple(attribution)
        fields: dict[str, Any] = {
            "key": result.key, "status": result.status,
            "message": result.message + "".join(f"\n  in: {line}" for line in attribution),
            "diff": result.diff.to_json() if result.diff is not None else None,
            "drift": result.drift, "attribution": attribution, "realigned": bool(result.realigned),
            "images": {kind: str(path) for kind in ARTEFACT_KINDS if (path := getattr(arts, kind)) is not None},
        }
        if variant is not None:
            fields.update(page=variant.page_name, viewport=variant.viewport, scheme=variant.scheme)
        if region is not None:
            fields.update(region_key=region.key, region_name=region.name, heading=region.heading,
                          selector=region.selector)
            if region.css_box is not None:  # `theme accept` records it with the baseline (theme/check/phase.py)
                fields["box"] = tuple(float(v) for v in region.css_box)
        return cls(**fields)
