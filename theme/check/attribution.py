"""Name what changed: turn red pixels into "note-box in “Memory usage” grew 14 px".

Pure: a whole-page diff's changed areas, the capture's regions and their baselines' recorded sizes in,
sentences out. Growth is read from the baseline's recorded size, so it is exact even when the page moved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Mapping, Protocol, Sequence

if TYPE_CHECKING:
    from ..pixels.diff import DiffResult

Box = tuple[int, int, int, int]  # x, y, w, h in page pixels


class RegionLike(Protocol):
    """What attribution reads of a region (theme.capture.model.Region has it)."""

    @property
    def key(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def box(self) -> Box: ...

    @property
    def heading(self) -> str: ...

    @property
    def selector(self) -> str: ...


def overlaps(a: Box, b: Box) -> bool:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah


def label(region: RegionLike) -> str:
    where = f" in “{region.heading}”" if region.heading else ""
    return f"{region.key}{where}"


def resized(region: RegionLike, baseline_size: Sequence[int] | None) -> str | None:
    """"note-box in “Memory” grew 14 px" when the region's height (or width) changed."""
    if not baseline_size:
        return None
    (old_w, old_h), (_, _, new_w, new_h) = baseline_size, region.box
    parts = []
    if new_h != old_h:
        parts.append(f"{'grew' if new_h > old_h else 'shrank'} {abs(new_h - old_h)} px")
    if new_w != old_w:
        parts.append(f"{'widened' if new_w > old_w else 'narrowed'} {abs(new_w - old_w)} px")
    return f"{label(region)} {' and '.join(parts)}" if parts else None


def attribute(
    changed: Iterable[Box],
    regions: Iterable[RegionLike],
    baseline_sizes: Mapping[str, Sequence[int]] | None = None,
    *,
    limit: int = 12,
    passing: frozenset[str] = frozenset(),
) -> list[str]:
    """One sentence per region under a changed area (resized ones first), then unclaimed areas.

    `baseline_sizes` maps a region's `key/name` to the [w, h] of its baseline. Regions in
    `passing` (`key/name`) passed their own checks (at their sub-pixel phase, say): they
    claim their areas but get no sentence, so a page card never contradicts them.
    """
    changed = list(changed)
    regions = list(regions)
    sizes = baseline_sizes or {}
    hit = [r for r in regions if any(overlaps(r.box, c) for c in changed) and f"{r.key}/{r.name}" not in passing]
    out = []
    for region in hit:
        sentence = resized(region, sizes.get(f"{region.key}/{region.name}"))
        out.append(sentence or f"{label(region)} changed ({region.selector})")
    out.sort(key=lambda s: (" changed (" in s, s))  # growth and shrinkage read first
    claimed = [c for c in changed if any(overlaps(r.box, c) for r in regions)]
    for x, y, w, h in (c for c in changed if c not in claimed):
        out.append(f"change outside any region at x={x} y={y} ({w}×{h} px)")
    if len(out) > limit:
        out = out[:limit] + [f"… and {len(out) - limit} more"]
    return out


def of_check(diff: DiffResult | None, region: RegionLike | None, regions: Iterable[RegionLike],
             baseline_sizes: Mapping[str, Sequence[int]], passing: frozenset[str] = frozenset()) -> list[str]:
    """Where a failed check's difference is: a region's own growth, or for a whole page
    the regions under its changed areas. `diff` is the check's DiffResult (None: no diff)."""
    if diff is None or diff.matches:
        return []
    if region is not None:
        sentence = resized(region, baseline_sizes.get(f"{region.key}/{region.name}"))
        return [sentence] if sentence else []
    return attribute(diff.boxes, regions, baseline_sizes, passing=passing)
