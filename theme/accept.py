"""`theme accept`: take the actual images of a finished run (a downloaded CI report) as baselines.

No re-run, so the pixels a reviewer saw become the baselines. Refused, unless `force`, when the report's
environment (browser, fonts, flags) differs from the baselines': such a baseline would fail next run.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from . import images, report
from .errors import StoreError
from .store import Store, describe_drift

ACCEPTABLE = ("failed",)  # created/updated baselines were already written by that run


@dataclass(frozen=True)
class Accepted:
    key: str
    source: Path


def load_report(folder: Path) -> report.Report:
    path = Path(folder) / "report.json"
    try:
        return report.from_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StoreError(f"{path}: no report.json here; pass the folder a visual run wrote "
                         "(e.g. an unzipped visual-report artefact)") from None
    except (ValueError, KeyError) as err:
        raise StoreError(f"{path}: not a theme report ({err})") from None


def candidates(rep: report.Report, only: Iterable[str] = ()) -> list[report.Entry]:
    """Failed entries with an actual image, filtered by key globs (all when none given)."""
    patterns = list(only)
    return [
        e for e in rep.entries
        if e.status in ACCEPTABLE and "actual" in e.images
        and (not patterns or any(fnmatch.fnmatchcase(e.key, p) for p in patterns))
    ]


def environment_conflict(store: Store, rep: report.Report) -> str | None:
    """Why the report's environment does not fit the existing baselines, or None."""
    for env in store.read_manifest()["environments"].values():
        drift = describe_drift(env, rep.environment)
        if drift:
            return drift
    return None


def accept(folder: Path, store: Store, *, only: Iterable[str] = (), force: bool = False) -> list[Accepted]:
    folder = Path(folder)
    rep = load_report(folder)
    conflict = environment_conflict(store, rep)
    if conflict and not force:
        raise StoreError(f"{folder / 'report.json'}: refusing to accept: {conflict} "
                         "Re-run in the baselines' environment, or pass --force")
    done = []
    for entry in candidates(rep, only):
        source = folder / entry.images["actual"]
        # the box too: a later run can then re-render this region at its phase (theme/phase.py)
        store.write(entry.key, images.read_png(source), rep.environment,
                    box=tuple(entry.box) if entry.box is not None else None)
        done.append(Accepted(entry.key, source))
    return done
