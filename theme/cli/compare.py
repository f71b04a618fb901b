"""`theme compare --base REF [--head REF]`: the visual difference between two git revisions.

Exit 0 when every image matches, 1 when any differs, appeared or disappeared,
2 on bad input (unknown ref, broken config or build on either side).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable

import click

from . import LoadConfig, main, project_options

if TYPE_CHECKING:
    from ..check.entry import Entry


@main.command()
@click.option("--base", "base", required=True, metavar="REF",
              help="The revision to compare against (branch, tag or commit), e.g. origin/main.")
@click.option("--head", "head", default=None, metavar="REF",
              help="The revision under review. Default: the working tree as it is, "
                   "uncommitted and untracked files included.")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the report (default: [tool.theme.visual] report, i.e. visual-report).")
@project_options
def compare(base: str, head: str | None, out: Path | None, load_config: LoadConfig) -> None:
    """Build and capture both revisions in temporary worktrees and report every difference."""
    from ..core.status import Status
    from ..review.report import append_step_summary
    from ..review.runs.revision_compare import compare_revisions

    cfg = load_config()
    progress = lambda msg: click.echo(f"… {msg}", err=True)  # noqa: E731
    outcome = compare_revisions(cfg, base, head, out=out, progress=progress)
    append_step_summary(outcome.report)  # in GitHub Actions, the summary lands on the run's page
    for entry in outcome.report.entries:
        if entry.status is not Status.MATCHED:
            click.echo(f"{entry.status:8}  {entry.key}")
    for line in _groups(outcome.report.entries):
        click.echo(line)
    counts = outcome.report.counts()
    click.echo(f"theme: {outcome.base.ref} → {outcome.head.ref}: "
               + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
               + f"; report: {outcome.index}")
    if outcome.differs:
        raise SystemExit(1)


def _groups(entries: Iterable[Entry]) -> list[str]:
    """The failed images grouped by cause (theme/check/causes.py), at most 25 lines; the
    lines above list every image, so the listing's pytest footer is left out."""
    from ..check.causes import terminal_lines
    from ..check.entry import cause_groups

    return terminal_lines(cause_groups(entries))[:-1]
