"""One pipeline for every caller (pytest, `theme capture`, `theme compare`): capture every
variant with the session's overlap, park tall pixels on disk, re-render regions that only
moved by a sub-pixel fraction against the expected images, then check each image once."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Literal, Mapping, overload

import numpy as np

from ..baselines import style_record as styles
from ..capture.model import FLOW, Capture, Failure, Region, Renderer
from ..capture.naming import Variant
from ..core.config import VisualConfig
from ..core.errors import ImageError, ThemeError
from ..pixels import images
from ..pixels.resident import release
from . import attribution, bands, phase, steady, verdict
from .entry import Entry, Styled
from .expected import ExpectedImages

if TYPE_CHECKING:
    from ..pixels.diff import DiffResult

Progress = Callable[[str], None]
MASK_AT = "[tool.theme.visual]"


@overload
def capture(session: Renderer, todo: Iterable[Variant], *, spill_to: Path | None = None,
            expected: ExpectedImages | None = None, progress: Progress | None = None,
            failures: Literal[False] = False, captured: Callable[[Capture], None] | None = None,
            reproduce: Callable[[Capture], bool] | None = None, mask_at: str = MASK_AT) -> Iterator[Capture]: ...


@overload
def capture(session: Renderer, todo: Iterable[Variant], *, spill_to: Path | None = None,
            expected: ExpectedImages | None = None, progress: Progress | None = None,
            failures: bool, captured: Callable[[Capture], None] | None = None,
            reproduce: Callable[[Capture], bool] | None = None,
            mask_at: str = MASK_AT) -> Iterator[Capture | Failure]: ...


def capture(session: Renderer, todo: Iterable[Variant], *, spill_to: Path | None = None,
            expected: ExpectedImages | None = None, progress: Progress | None = None,
            failures: bool = False, captured: Callable[[Capture], None] | None = None,
            reproduce: Callable[[Capture], bool] | None = None,
            mask_at: str = MASK_AT) -> Iterator[Capture | Failure]:
    """Yield a theme.capture.Capture per variant, in order.

    spill_to: a folder; each page image is saved there as .npy and the capture
    carries it memory-mapped (a 1280 × 130 000 page is 670 MB of RGBA).
    expected: where expected images come from (a baseline Store, or a base
    revision's CapturedImages). With it, every capture is taken first, then the
    variants whose regions only moved by a sub-pixel fraction are captured once
    more at the expected images' phase (theme/check/phase.py), in `Capture.realigned`.
    A capture that fails ends the run after the ones before it were yielded; with
    `failures`, a variant whose own page failed is yielded as a theme.capture.Failure
    in its place instead, and the others go on.
    captured: called with each capture as soon as its page image is taken (and spilled),
    before the next variant's: what only needs the page image (encoding it, comparing it)
    can start beside the next render rather than after the last (theme/review/runs/suite.py).
    reproduce: with `expected`, whether a capture would write a baseline (an update); each such
    variant is rendered a second time and becomes a Failure unless both renders agree
    (theme/check/steady.py; `mask_at` is where its message points for `mask`).
    """
    todo = list(todo)
    if expected is None:  # nothing to wait for: stream, so the caller overlaps its writing
        for shot in session.capture_all(todo, progress, failures=failures):
            yield _handed(_spilled(shot, spill_to, todo), captured)
        return
    done: list[Capture | Failure] = []
    failure: ThemeError | None = None
    try:
        for shot in session.capture_all(todo, progress, failures=failures):
            done.append(_handed(_spilled(shot, spill_to, todo), captured))
    except ThemeError as err:
        failure = err
    if failure is None and reproduce is not None:
        done = _reproduced(session, done, reproduce, spill_to, progress, mask_at)
    if failure is None:
        shots = [shot for shot in done if not isinstance(shot, Failure)]
        realigned = phase.realign_all(session, shots, expected, session.visual.tolerance_for, progress)
        for shot in shots:
            shot.realigned = realigned.get(shot.variant, {})
    yield from done
    if failure is not None:
        raise failure


def _reproduced(session: Renderer, done: list[Capture | Failure], wanted: Callable[[Capture], bool],
                spill_to: Path | None, progress: Progress | None, mask_at: str) -> list[Capture | Failure]:
    """`done` with each capture that `wanted` a second render judged against it (steady.py);
    the others are reproduced by the baseline their page already equals."""
    firsts: dict[PurePosixPath, Capture] = {}
    for shot in done:
        if isinstance(shot, Failure):
            continue
        if wanted(shot):
            firsts[shot.variant.folder] = shot
        else:
            shot.reproduced = True
    if not firsts:
        return done
    again = [shot.variant for shot in firsts.values()]
    folder = spill_to / "second" if spill_to is not None else None
    seconds = (_spilled(s, folder, again) for s in session.capture_all(again, progress, failures=True))
    judged = steady.second_renders(seconds, firsts, session.visual, mask_at,
                                   lambda shot, boxes: session.elements_at(shot.variant, boxes))
    return [shot if isinstance(shot, Failure) else judged.get(shot.variant.folder, shot) for shot in done]


def _handed(shot: Capture | Failure, captured: Callable[[Capture], None] | None) -> Capture | Failure:
    if captured is not None and not isinstance(shot, Failure):
        captured(shot)
    return shot


def _spilled(shot: Capture | Failure, folder: Path | None, todo: list[Variant]) -> Capture | Failure:
    if folder is None or isinstance(shot, Failure):
        return shot
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{todo.index(shot.variant)}-{shot.variant.id}.npy"
    pixels = spill(path, shot.image)
    return dataclasses.replace(shot, image=np.load(path, mmap_mode="r"), pixels=pixels)


def spill(path: Path, image: np.ndarray) -> str:
    """np.save, a band of rows at a time, each band dropped from resident memory once
    written (a tall page's pixels are file-backed: theme.pixels.resident.release).
    Returns images.pixels_sha256 of the image, hashed on the way while the browser
    takes the next variant's tiles, so its check need not read it again."""
    band = max(1, (64 * 2**20) // max(1, image.strides[0]))
    digest = images.pixels_hasher(image.shape)
    with open(path, "wb") as out:
        np.lib.format.write_array_header_1_0(out, np.lib.format.header_data_from_array_1_0(image))
        for y in range(0, image.shape[0], band):
            rows = np.ascontiguousarray(image[y:y + band])
            out.write(rows.data)
            digest.update(rows.data)
            release(image, y, y + band)
    return digest.hexdigest()


class Duplicates:
    """Notices a scheme that changes nothing: a variant whose page image is pixel-identical
    to another scheme's at the same page and viewport (an article with no dark mode would
    otherwise get a second, identical set of baselines without a word)."""

    BAND = 256  # rows compared at a time: light and dark differ in the first band, if at all

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str], list[Capture]] = {}

    def see(self, shot: Capture) -> str | None:
        v = shot.variant
        if v.state:  # a state's viewport may look alike in two schemes (a focus ring on white)
            return None
        twins = self._seen.setdefault((v.page, v.viewport), [])
        same = next((o for o in twins if _same_pixels(o.image, shot.image, self.BAND)), None)
        twins.append(shot)
        if same is None:
            return None
        return (f"{v.page_name}[{v.id}] is pixel-identical to {v.page_name}[{same.variant.id}]: the page does "
                f"not change in the {v.scheme} scheme, so its baselines repeat the other's; if the article has "
                f"no such scheme, drop \"{v.scheme}\" from color_schemes in [tool.theme.visual]")


def _same_pixels(a: np.ndarray, b: np.ndarray, band: int) -> bool:
    if a.shape != b.shape:
        return False
    for y in range(0, a.shape[0], band):
        same = np.array_equal(a[y:y + band], b[y:y + band])
        release(a, y, y + band)
        release(b, y, y + band)
        if not same:
            return False
    return True


# ---------------------------------------------------------------- checking


@dataclass(frozen=True)
class Checked:
    """One image's verdict and the report entry made from it."""

    result: verdict.CheckResult
    entry: Entry


def page_verdict(ctx: verdict.CheckContext, visual: VisualConfig, shot: Capture) -> verdict.CheckResult:
    """The verdict on `shot`'s page image: its compare, artefacts and any write. It needs only the
    page image, so it can be made as soon as the page is taken (check_image's `page`)."""
    raw = shot.styles.get(FLOW)
    return verdict.check(ctx, f"{shot.variant.folder.as_posix()}/page.png", np.ascontiguousarray(shot.image),
                         visual.tolerance_for(None), pixels=shot.pixels, review=_page_review,
                         style=styles.from_page(raw) if raw is not None else None)


def check_image(ctx: verdict.CheckContext, visual: VisualConfig, shot: Capture, region: Region | None, *,
                sizes: Mapping[str, list[int]] | None = None, page: verdict.CheckResult | None = None) -> Checked:
    """Check the page image of `shot` (region None) or one of its regions against
    `ctx`'s expected images; the entry names where a difference is (theme.check.attribution),
    sizes read from the expected side before an update rewrites them. `page`: the page's
    verdict when page_verdict() made it already."""
    folder = shot.variant.folder.as_posix()
    if sizes is None:
        sizes = ctx.expected.sizes(folder)
    styled = None
    if region is None:
        before = ctx.expected.style(f"{folder}/page.png")  # read before the verdict may rewrite it
        result = page or page_verdict(ctx, visual, shot)
        styled = _page_styled(before, shot, result)
    else:
        path = region.path.as_posix()
        key = f"{folder}/{path}"
        styled = _styled(ctx, shot, region, key)
        result = verdict.check(ctx, key, np.ascontiguousarray(shot.crop(region)), visual.tolerance_for(region.key),
                               box=region.css_box, style=styled.after, realigned=shot.realigned.get(path),
                               frames=region.frames)
    passing = _passing(ctx, visual, shot, result.diff) if region is None else frozenset()
    if region is None:  # read once, whole: hand its file-backed rows back (four tall pages ≈ 2 GB)
        release(shot.image)
    where = attribution.of_check(result.diff, region, shot.regions, sizes, passing)
    return Checked(result, Entry.from_check(result, shot.variant, region, where, styled, same_inputs=shot.same_inputs))


def _page_review(actual_path: Path, expected: np.ndarray, actual: np.ndarray, result: DiffResult,
                 pixels: str | None, written: Callable[[], object]) -> None:
    """A failed page's bands, overview and patch, from the pixels and the comparison its check
    holds: no full-size expected or diff image is written, nor decoded, aligned or hashed again
    for the report (theme/check/bands.py)."""
    bands.write_review(actual_path, expected, actual, result, pixels, written)


def _styled(ctx: verdict.CheckContext, shot: Capture, region: Region, key: str) -> Styled:
    """The region's records and boxes on both sides, read before its check may rewrite them."""
    path = region.path.as_posix()
    raw = shot.styles.get(path)
    before_box = ctx.expected.boxes(shot.variant.folder.as_posix()).get(path)
    return Styled(ctx.expected.style(key), styles.from_page(raw) if raw is not None else None,
                  before_box, region.css_box)


def _page_styled(before: styles.StyleRecord | None, shot: Capture, result: verdict.CheckResult) -> Styled:
    """The page's flow records (theme/capture/js/flow_record.js) on both sides, and its size as
    a box (device scale 1: image px are CSS px)."""
    raw = shot.styles.get(FLOW)
    sizes = (result.diff.expected_size, result.diff.actual_size) if result.diff is not None else None
    boxes = ((0.0, 0.0, float(sizes[0][0]), float(sizes[0][1])), (0.0, 0.0, float(sizes[1][0]), float(sizes[1][1]))
             ) if sizes else (None, None)
    return Styled(before, styles.from_page(raw) if raw is not None else None, *boxes)


def _passing(ctx: verdict.CheckContext, visual: VisualConfig, shot: Capture,
             diff: DiffResult | None) -> frozenset[str]:
    """`key/name` of the regions under a page's changed areas whose own checks pass (as is,
    or at their expected image's sub-pixel phase): a verdict without side effects, the same
    comparison their items make."""
    if diff is None or diff.matches:
        return frozenset()
    folder, out = shot.variant.folder.as_posix(), set()
    for r in shot.regions:
        if not any(attribution.overlaps(r.box, box) for box in diff.boxes):
            continue
        try:
            expected = ctx.expected.read(f"{folder}/{r.path.as_posix()}")
        except ImageError:
            continue
        if expected is None:
            continue
        crop = np.ascontiguousarray(shot.crop(r))
        result, _ = phase.compare(expected, crop, shot.realigned.get(r.path.as_posix()),
                                  visual.tolerance_for(r.key), diff_image=False)
        if result.matches:
            out.add(f"{r.key}/{r.name}")
    return frozenset(out)


def checks_of(shot: Capture, visual: VisualConfig) -> list[Region | None]:
    """The images a capture is checked as: None for the page (when full_page), then its regions."""
    return ([None] if visual.full_page and shot.full_page else []) + list(shot.regions)


__all__ = ["Checked", "Duplicates", "capture", "check_image", "checks_of", "page_verdict", "spill"]
