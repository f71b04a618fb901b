"""The one set of outcomes a checked image can have, used by checks, reports, the CLI and pytest."""

from __future__ import annotations

import enum
from collections.abc import Iterable


class Status(enum.StrEnum):
    """A StrEnum: it is its value, so report.json, summaries and comparisons with text agree."""

    MATCHED = "matched"  # the image equals its expected image (within tolerance)
    FAILED = "failed"  # it differs, or the expected image is missing or unreadable
    CREATED = "created"  # no baseline existed; this run wrote one
    UPDATED = "updated"  # the baseline differed (or was refreshed); this run rewrote it
    ADDED = "added"  # `theme compare`: only the head revision has this image
    REMOVED = "removed"  # `theme compare`: only the base revision has it
    UNUSED = "unused"  # a baseline no check of a complete run used
    PRUNED = "pruned"  # an unused baseline this run deleted

    @property
    def differs(self) -> bool:
        """Whether it makes a run fail (exit 1) unless the user accepted it."""
        return self in DIFFERS


DIFFERS = frozenset({Status.FAILED, Status.ADDED, Status.REMOVED, Status.UNUSED})
# What a reviewer must look at, in display order; then the rest.
REVIEW = (Status.FAILED, Status.ADDED, Status.REMOVED, Status.CREATED, Status.UPDATED)
ORDER = (*REVIEW, Status.UNUSED, Status.PRUNED, Status.MATCHED)



def unused_baselines(baselines: Iterable[str], pages: Iterable[str], checked: Iterable[str],
           unchecked: Iterable[str] = ()) -> list[str]:
    """The one rule for UNUSED, for a run (theme.review.runs.suite) and for merged shards
    (theme.review.report): a baseline under a page the config owns that no check used. A variant whose render failed
    (`unchecked`: its folder, e.g. "index/desktop-dark") was not checked, so its baselines are not
    unused: they wait for a render that works."""
    owned, used, failed = set(pages), set(checked), tuple(f"{f}/" for f in unchecked)
    return sorted(k for k in baselines
                  if k.split("/", 1)[0] in owned and k not in used and not k.startswith(failed))


__all__ = ["DIFFERS", "ORDER", "REVIEW", "Status", "unused_baselines"]
