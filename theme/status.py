"""The one set of outcomes a checked image can have, used by checks, reports, the CLI and pytest."""

from __future__ import annotations

import enum


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

__all__ = ["DIFFERS", "ORDER", "REVIEW", "Status"]
