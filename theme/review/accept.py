"""`theme accept`: take the actual images of a finished run (a downloaded CI report) as baselines.

No re-run, so the pixels a reviewer saw become the baselines. Refused, unless `force`, when the report's
environment (browser, fonts, flags) differs from the baselines': such a baseline would fail next run.
A report keeps only the changed bands of a page: its actual is rebuilt from the report's patch on the
baseline, or found in an artefacts folder.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ..baselines import style_record as styles
from ..baselines.store import Store, describe_drift
from ..check import patch
from ..check.entry import Entry
from ..check.verdict import artefact_path
from ..core.errors import StoreError
from ..core.fsutil import sha256_file
from ..core.status import Status
from ..pixels import images
from . import report

ACCEPTABLE = (Status.FAILED,)  # created/updated baselines were already written by that run


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


def candidates(rep: report.Report, only: Iterable[str] = ()) -> list[Entry]:
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


def actual_image(folder: Path, entry: Entry, artifacts: Sequence[Path], store: Store | None = None) -> Source:
    """Where the full-size actual image of `entry` comes from: the report (a region's), the
    report's patch on the baseline it was made against, else the first artefacts folder
    holding the very file the report was made from (its sha256). Cheap enough to find every
    source before anything is written; read() then gives the pixels."""
    if "actual" in entry.images:
        return Source(Path(folder) / entry.images["actual"])
    tried = []
    if entry.patch and store is not None:
        baseline = store.read(entry.key)
        if baseline is not None and images.pixels_sha256(baseline) == entry.patch["expected_sha256"]:
            return Source(Path(folder), entry.patch)
        tried.append(f"the report's patch ({store.path(entry.key)} is no longer the baseline it was made against)")
    for where in artifacts:
        path = artefact_path(Path(where), entry.key, "actual")
        if not path.is_file():
            tried.append(f"{path} (missing)")
        elif sha256_file(path) != entry.actual_sha256:
            tried.append(f"{path} (another run's)")
        else:
            return Source(path)
    raise StoreError(
        f"{entry.key}: the report keeps only the changed bands of a page, and its full-size actual image "
        f"is not at {', '.join(tried) or 'any artefacts folder'}; download that run's visual-artifacts "
        "artefact (or keep the .theme-artifacts folder of the run that wrote the report) and pass "
        "--artifacts DIR")


@dataclass(frozen=True)
class Source:
    """A PNG file, or a report folder and the patch in it to apply on the baseline."""

    path: Path
    patch: Mapping[str, Any] | None = None

    def read(self, key: str, store: Store) -> np.ndarray:
        if self.patch is None:
            return images.read_png(self.path)
        pixels = patch.apply(dict(self.patch), store.read(key), self.path)
        if pixels is None:
            raise StoreError(f"{key}: the report's patch does not rebuild the actual image it was made "
                             "from; pass --artifacts DIR with that run's visual-artifacts artefact")
        return pixels


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
    todo = [(entry, actual_image(folder, entry, artifacts, store)) for entry in candidates(rep, only)]
    with store.batch():  # one manifest write for all of them, also when one fails part way
        for entry, source in todo:
            # the box too: a later run can then re-render this region at its phase (theme/check/phase.py)
            # and its style record, so the next failure here is explained against what was accepted
            style = _style_of(folder, entry)
            store.write(entry.key, source.read(entry.key, store), rep.environment, box=entry.box, style=style,
                        frames=entry.frames)
            done.append(Accepted(entry.key, source.path))
    return done


def _style_of(folder: Path, entry: Entry) -> styles.StyleRecord | None:
    """The style record the report carries for `entry` (None: it has none)."""
    if entry.style is None:
        return None
    try:
        return styles.from_json(dict(entry.style))
    except ValueError as err:
        raise StoreError(f"{folder / 'report.json'}: {entry.key}: {err}; write the report again "
                         "with the run that made it") from None
