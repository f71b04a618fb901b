"""The one place a verdict is made: an actual image against its expected image (`check`).

Missing → created or failed (added, against a base revision); equal → matched; different →
updated or failed with expected/actual/diff artefacts; corrupt → failed, the file kept.
Under CI=true nothing is written unless `allow_ci_update`: baselines made in CI check nothing.
"""

from __future__ import annotations

import contextlib
import enum
import glob
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np

from ..baselines.store import Store, describe_drift
from ..core.config import Tolerance
from ..core.errors import ImageError, LfsPointerError
from ..core.fsutil import atomic_open
from ..core.status import Status
from ..pixels import diff, images
from ..pixels.resident import release
from . import bands, phase
from .expected import ExpectedImages

if TYPE_CHECKING:
    from ..baselines.style_record import StyleRecord
    from ..capture.model import Frames
    from ..pixels.diff import DiffResult

Box = tuple[float, float, float, float]
# What a failed page check leaves for review instead of its full-size expected and diff images,
# from the pixels it holds: (its actual's artefact path, expected, actual, the comparison, the
# actual's pixel digest if known, a call that returns once the actual's artefact is written) ->
# written beside it (theme/check/bands.py, write_review).
Review = Callable[[Path, np.ndarray, np.ndarray, "DiffResult", "str | None", Callable[[], object]], None]


class Update(enum.Enum):
    """What `--update-snapshots` may write."""

    NONE = "none"  # write nothing (the default run)
    MISSING = "missing"  # create missing baselines only
    CHANGED = "changed"  # create missing and rewrite differing ones
    ALL = "all"  # rewrite every baseline, refreshing its environment record

    def creates(self) -> bool:
        return self is not Update.NONE

    def rewrites(self) -> bool:
        return self in (Update.CHANGED, Update.ALL)


@dataclass(frozen=True)
class Artifacts:
    """Where a failed check left its images for review."""

    expected: Path | None = None
    actual: Path | None = None
    diff: Path | None = None


@dataclass(frozen=True)
class CheckResult:
    key: str
    status: Status
    message: str
    diff: DiffResult | None = None  # None when no comparison happened
    drift: str | None = None
    artifacts: Artifacts = field(default_factory=Artifacts)
    realigned: bool = False  # matched only once re-rendered at the baseline's sub-pixel phase
    # A new page image's overview, made from its pixels while they are in memory (_overview):
    # {"image" (its absolute path, beside the artefacts), "height", "width", "scale"}, as reports carry it.
    overview: Mapping[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return not self.status.differs


@dataclass(frozen=True)
class WritePolicy:
    """What a check may write, and where: `baselines`, the store accepted images go to
    (None: nothing is ever written, and an image the expected side lacks is `added`, as in
    `theme compare`); `update`, what `--update-snapshots` asked for; under `ci` nothing is
    written unless `allow_ci_update` (baselines made in CI would check nothing)."""

    baselines: Store | None = None
    update: Update = Update.NONE
    ci: bool = False
    allow_ci_update: bool = False

    def may_write(self) -> bool:
        return self.baselines is not None and (not self.ci or self.allow_ci_update)

    def creates(self) -> bool:
        return self.baselines is not None and self.update.creates()

    def rewrites(self) -> bool:
        return self.baselines is not None and self.update.rewrites()


@dataclass(frozen=True)
class CheckContext:
    """Everything a check needs besides the image: the expected images, where failure
    artefacts go, the environment, and what may be written (WritePolicy)."""

    expected: ExpectedImages
    artifacts_dir: Path
    fingerprint: Mapping[str, Any]
    policy: WritePolicy = WritePolicy()

    @classmethod
    def against_baselines(cls, store: Store, artifacts_dir: Path, fingerprint: Mapping[str, Any], *,
                          update: Update = Update.NONE, ci: bool = False,
                          allow_ci_update: bool = False) -> "CheckContext":
        """A pytest run's context: the baselines are both what is expected and where updates go."""
        return cls(store, artifacts_dir, fingerprint, WritePolicy(store, update, ci, allow_ci_update))

    @classmethod
    def against_revision(cls, expected: ExpectedImages, artifacts_dir: Path,
                         fingerprint: Mapping[str, Any]) -> "CheckContext":
        """`theme compare`'s: a base revision's captures are expected, nothing is written."""
        return cls(expected, artifacts_dir, fingerprint)


def check(ctx: CheckContext, key: str, actual: np.ndarray, tolerance: Tolerance, *,
          box: Box | None = None, style: StyleRecord | None = None, frames: Frames = (),
          realigned: np.ndarray | None = None, pixels: str | None = None,
          review: Review | None = None) -> CheckResult:
    """Compare `actual` with the baseline of `key` and apply the update policy.

    box: the region's CSS box, recorded with the baseline whenever one is written;
    style: its style record (theme/baselines/style_record.py), recorded with it the same way;
    frames: its frames' corners (theme/check/phase.py), recorded with the box.
    realigned: the same region re-rendered at its baseline's sub-pixel phase
    (theme/check/phase.py); when `actual` differs but this matches, the region only
    moved by a fraction of a pixel and the check passes, saying so.
    pixels: images.pixels_sha256(actual), when the caller already has it.
    review: for a page, what a failure leaves instead of full-size expected and diff images.
    """
    clear_artifacts(ctx, key)
    if _same_pixels(ctx, key, actual, pixels):  # the common case, without decoding the baseline
        result, moved, expected = diff.identical((actual.shape[1], actual.shape[0]), tolerance), False, None
    else:
        try:
            expected = ctx.expected.read(key)
        except ImageError as err:
            return _corrupt(ctx, key, actual, err, box, style, frames, pixels)
        if expected is None:
            if ctx.policy.baselines is None:
                return _added(ctx, key, actual)
            return _missing(ctx, ctx.policy.baselines, key, actual, box, style, frames, pixels)
        # Indexed: one byte per pixel instead of four (430 MB less at 1280 x 120 000 rows),
        # and it writes straight out as an 8-bit palette PNG.
        result, moved = phase.compare(expected, actual, realigned, tolerance)
    note = (" at its baseline's sub-pixel position (only its place on the page moved, by a fraction "
            "of a pixel)") if moved else ""
    if result.matches:
        store = ctx.policy.baselines
        if ctx.policy.update is Update.ALL and store is not None and ctx.policy.may_write():
            changed = store.write(key, actual, ctx.fingerprint, box, style, frames, pixels)
            status = Status.UPDATED if changed else Status.MATCHED
            return CheckResult(key, status, f"{key}: baseline refreshed" if changed else f"{key}: matches{note}",
                               result, realigned=bool(note))
        return CheckResult(key, Status.MATCHED, f"{key}: matches{note}", result, realigned=bool(note))
    drift = _drift(ctx, key)
    if ctx.policy.rewrites() and ctx.policy.baselines is not None:
        if not ctx.policy.may_write():
            return _refused(ctx, key, actual, result, drift)
        # The old baseline and the diff go to the artefacts first, so the report
        # shows a reviewer what this update changed before it is committed.
        arts = _write_artifacts(ctx, key, actual, expected=expected, diff_image=result.diff)
        ctx.policy.baselines.write(key, actual, ctx.fingerprint, box, style, frames, pixels)
        return CheckResult(key, Status.UPDATED, f"{key}: baseline updated ({result.summary()})", result,
                           drift, arts)
    arts = _write_artifacts(ctx, key, actual, expected=expected, diff_image=result.diff,
                            review=(lambda path, e, a, w: review(path, e, a, result, pixels, w)) if review else None)
    return CheckResult(key, Status.FAILED, _failure_message(key, result, drift, arts), result, drift, arts)


def prepare(ctx: CheckContext, key: str, actual: np.ndarray, pixels: str,
            done: Callable[[], None] | None = None) -> bool:
    """Start encoding `actual` as the baseline of `key` (Store.prepare) when a check of it
    would write one: missing and created, or, on a run that rewrites, not known to have these
    pixels. The check to come then takes the PNG, not encoding it in turn. False: nothing to
    write foreseen (`done` is not called then)."""
    store, policy = ctx.policy.baselines, ctx.policy
    if store is None or not policy.creates() or not policy.may_write():
        return False
    if store.path(key).is_file() and not (policy.rewrites() and not store.has_pixels(key, lambda: pixels)):
        return False
    store.prepare(key, actual, pixels, done)
    return True


def _same_pixels(ctx: CheckContext, key: str, actual: np.ndarray, pixels: str | None) -> bool:
    """Whether the expected image of `key` is known to have `actual`'s very pixels: a
    source that records its images' pixel digests (Store.has_pixels) says so."""
    return ctx.expected.has_pixels(key, lambda: pixels or images.pixels_sha256(actual))


def removed(ctx: CheckContext, key: str) -> CheckResult:
    """An expected image nothing produced any more (`theme compare`: only the base has it)."""
    clear_artifacts(ctx, key)
    arts = _write_artifacts(ctx, key, None, expected=ctx.expected.read(key))
    return CheckResult(key, Status.REMOVED, f"{key}: only in the base revision (image gone)", artifacts=arts)


# ---------------------------------------------------------------- branches


def _added(ctx: CheckContext, key: str, actual: np.ndarray) -> CheckResult:
    arts = _write_artifacts(ctx, key, actual)
    return CheckResult(key, Status.ADDED, f"{key}: only in the head revision (new image)", artifacts=arts,
                       overview=_overview(ctx, key, actual))


def _missing(ctx: CheckContext, store: Store, key: str, actual: np.ndarray,
             box: Box | None, style: StyleRecord | None, frames: Frames, pixels: str | None) -> CheckResult:
    if ctx.policy.creates():
        if not ctx.policy.may_write():
            arts = _write_artifacts(ctx, key, actual)
            return CheckResult(
                key, Status.FAILED,
                f"{key}: no baseline, and CI=true refuses to create one "
                "(baselines made in CI would check nothing); run pytest --update-snapshots "
                "locally or in the workflow_dispatch job, and commit snapshots/",
                artifacts=arts,
            )
        store.write(key, actual, ctx.fingerprint, box, style, frames, pixels)
        overview = _overview(ctx, key, actual)
        release(actual)  # read whole to be encoded and reduced: not left resident beside the next page
        return CheckResult(key, Status.CREATED, f"{key}: baseline created", artifacts=_created(ctx, store, key),
                           overview=overview)
    arts = _write_artifacts(ctx, key, actual)
    return CheckResult(
        key, Status.FAILED,
        f"no baseline {store.path(key)}; actual image written to {arts.actual}; "
        "run pytest --update-snapshots to create it",
        artifacts=arts,
    )


def _corrupt(ctx: CheckContext, key: str, actual: np.ndarray, err: ImageError,
             box: Box | None, style: StyleRecord | None, frames: Frames, pixels: str | None) -> CheckResult:
    # An LFS pointer is a good baseline not yet fetched: replacing it would accept unseen.
    store = ctx.policy.baselines
    if ctx.policy.rewrites() and ctx.policy.may_write() and store is not None and not isinstance(err, LfsPointerError):
        store.write(key, actual, ctx.fingerprint, box, style, frames, pixels)
        return CheckResult(key, Status.UPDATED, f"{key}: unreadable baseline replaced ({err})")
    arts = _write_artifacts(ctx, key, actual)
    advice = "" if isinstance(err, LfsPointerError) else "; restore it from git or run pytest --update-snapshots"
    return CheckResult(
        key, Status.FAILED,
        f"{err}; the baseline was left as it is; actual image written to {arts.actual}{advice}",
        artifacts=arts,
    )


def _refused(ctx: CheckContext, key: str, actual: np.ndarray, result: DiffResult, drift: str | None) -> CheckResult:
    arts = _write_artifacts(ctx, key, actual, diff_image=result.diff)
    return CheckResult(
        key, Status.FAILED,
        f"{key}: {result.summary()}; CI=true refuses to update baselines "
        "(pass --allow-ci-update in the job meant to regenerate them)",
        result, drift, arts,
    )


def _drift(ctx: CheckContext, key: str) -> str | None:
    store = ctx.policy.baselines
    recorded = store.recorded_fingerprint(key) if store is not None else None
    return describe_drift(recorded, ctx.fingerprint) if recorded else None


def _failure_message(key: str, result: DiffResult, drift: str | None, arts: Artifacts) -> str:
    lines = [drift] if drift else []
    lines.append(f"{key}: {result.summary()}")
    if arts.expected:  # a page's is its bands, beside its actual (theme/check/bands.py)
        lines.append(f"  expected: {arts.expected}")
    lines.append(f"  actual:   {arts.actual}")
    if arts.diff:
        lines.append(f"  diff:     {arts.diff}")
    return "\n".join(lines)


# ---------------------------------------------------------------- artefacts


def artifact_paths(artifacts_dir: Path, key: str) -> Artifacts:
    """`<dir>/<key stem>.expected.png`, `.actual.png`, `.diff.png`: side by side for review."""
    return Artifacts(
        expected=artefact_path(artifacts_dir, key, "expected"),
        actual=artefact_path(artifacts_dir, key, "actual"),
        diff=artefact_path(artifacts_dir, key, "diff"),
    )


def artefact_path(artifacts_dir: Path, key: str, kind: str) -> Path:
    """Where a check leaves its `kind` ("expected", "actual", "diff") image of `key`."""
    stem = artifacts_dir / key[: -len(".png")]
    return stem.with_name(f"{stem.name}.{kind}.png")


def clear_artifacts(ctx: CheckContext, key: str) -> None:
    """A passing check must not leave last run's failure images to mislead a reviewer: every
    `<name>.*` file beside the key's (actual, expected, diff, overview, a page's bands, patch
    and review.json). Names are slugs without dots (capture/naming.py), so `<name>.` is this
    key's alone."""
    stem = ctx.artifacts_dir / key[: -len(".png")]
    if not stem.parent.is_dir():
        return
    for path in stem.parent.glob(f"{glob.escape(stem.name)}.*"):
        if path.suffix in (".png", ".json") and path.is_file():
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def _overview(ctx: CheckContext, key: str, actual: np.ndarray) -> Mapping[str, Any] | None:
    """A new page image's overview for the report, made now from the pixels in memory: the
    report, written at the end of the run, would otherwise decode the PNG just written (a
    1280 × 127 000 page: seconds; benchmarks/README.md, "Updates and failing runs").
    None for an image not named like a page's (the report then uses none)."""
    if key.rsplit("/", 1)[-1] != "page.png":
        return None
    return bands.page_overview(ctx.artifacts_dir, key, actual)


def _created(ctx: CheckContext, store: Store, key: str) -> Artifacts:
    """The report's copy of a baseline just created: its file's bytes, not encoded twice
    (encoding is most of what writing first baselines costs: benchmarks/update_bench.py)."""
    path = artefact_path(ctx.artifacts_dir, key, "actual")
    with atomic_open(path, durable=False) as f:  # an artefact, as images.write_png writes them
        f.write(store.path(key).read_bytes())
    return Artifacts(actual=path)


def _write_artifacts(
    ctx: CheckContext,
    key: str,
    actual: np.ndarray | None,
    *,
    expected: np.ndarray | None = None,
    diff_image: np.ndarray | diff.IndexedImage | None = None,
    review: Callable[[Path, np.ndarray, np.ndarray, Callable[[], object]], None] | None = None,
) -> Artifacts:
    paths = {kind: artefact_path(ctx.artifacts_dir, key, kind) for kind in ("expected", "actual", "diff")}
    # Artefacts are for review, not for git: fast to write beats a small file.
    if review is not None and actual is not None and expected is not None:
        # Bands, overview, patch: no full-size copies. The actual is encoded meanwhile: zlib, numpy
        # and Pillow work outside the GIL, so on two cores the review costs little more.
        with ThreadPoolExecutor(1) as pool:
            written = pool.submit(images.write_png, paths["actual"], actual, artefact=True)
            review(paths["actual"], expected, actual, written.result)
        expected = diff_image = None
    elif actual is not None:
        images.write_png(paths["actual"], actual, artefact=True)
    if actual is not None:
        release(actual)  # a file-backed page, read whole to be written: one page resident at a time
    if expected is not None:
        images.write_png(paths["expected"], expected, artefact=True)
    if isinstance(diff_image, diff.IndexedImage):
        images.write_png(paths["diff"], diff_image.indices, palette=diff_image.palette, artefact=True)
    elif diff_image is not None:
        images.write_png(paths["diff"], diff_image, artefact=True)
    return Artifacts(
        expected=paths["expected"] if expected is not None else None,
        actual=paths["actual"] if actual is not None else None,
        diff=paths["diff"] if diff_image is not None else None,
    )
