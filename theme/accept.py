"""`theme accept`: take the actual images of a finished run (a downloaded CI report) as baselines.

No re-run, so the pixels a reviewer saw become the baselines. Refused, unless `force`, when the report's
environment (browser, fonts, flags) differs from the baselines': such a baseline would fail next run.
A report keeps only the changed bands of a page; its full-size actual is found in an artefacts folder.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from . import images, report
from .compare import artifact_paths
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
        if e.status in ACCEPTABLE and ("actual" in e.images or e.actual_sha256)
        and (not patterns or any(fnmatch.fnmatchcase(e.key, p) for p in patterns))
    ]


def environment_conflict(store: Store, rep: report.Report) -> str | None:
    """Why the report's environment does not fit the existing baselines, or None."""
    for env in store.read_manifest()["environments"].values():
        drift = describe_drift(env, rep.environment)
        if drift:
            return drift
    return None


def actual_image(folder: Path, entry: report.Entry, artifacts: Sequence[Path]) -> Path:
    """The full-size actual image of `entry`: in the report (a region's), else in the first
    artefacts folder holding the very file the report was made from (its sha256)."""
    if "actual" in entry.images:
        return Path(folder) / entry.images["actual"]
    tried = []
    for where in artifacts:
        path = artifact_paths(Path(where), entry.key).actual
        if not path.is_file():
            tried.append(f"{path} (missing)")
        elif _sha256(path) != entry.actual_sha256:
            tried.append(f"{path} (another run's)")
        else:
            return path
    raise StoreError(
        f"{entry.key}: the report keeps only the changed bands of a page, and its full-size actual image "
        f"is not at {', '.join(tried) or 'any artefacts folder'}; download that run's visual-artifacts "
        "artefact (or keep the .theme-artifacts folder of the run that wrote the report) and pass "
        "--artifacts DIR")


def _sha256(path: Path) -> str:
    from .report_images import sha256_file

    return sha256_file(path)


def accept(folder: Path, store: Store, *, only: Iterable[str] = (), force: bool = False,
           artifacts: Sequence[Path] = ()) -> list[Accepted]:
    """Write the actual image of every failed entry (matching `only`) as its baseline.
    Every source is found before anything is written: a missing one changes nothing."""
    folder = Path(folder)
    rep = load_report(folder)
    conflict = environment_conflict(store, rep)
    if conflict and not force:
        raise StoreError(f"{folder / 'report.json'}: refusing to accept: {conflict} "
                         "Re-run in the baselines' environment, or pass --force")
    done = []
    todo = [(entry, actual_image(folder, entry, artifacts)) for entry in candidates(rep, only)]
    for entry, source in todo:
        # the box too: a later run can then re-render this region at its phase (theme/phase.py)
        store.write(entry.key, images.read_png(source), rep.environment,
                    box=tuple(entry.box) if entry.box is not None else None)
        done.append(Accepted(entry.key, source))
    return done
