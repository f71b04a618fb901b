"""Where expected images come from (ExpectedImages): the committed baselines (theme.baselines.store.Store)
for pytest, or a base revision's captures (CapturedImages) for `theme compare`. The verdict
(theme.check.verdict) reads either the same way, by key."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Protocol

import numpy as np

from ..baselines.style_record import StyleRecord, from_page

if TYPE_CHECKING:
    from ..capture.model import Capture, Frames, Region


class ExpectedImages(Protocol):
    """Expected images by key (`<variant folder>/page.png`, `<variant folder>/<region path>`)."""

    def read(self, key: str) -> np.ndarray | None:
        """The image, or None when there is none (ImageError when it is unreadable)."""

    def keys(self) -> Iterable[str]:
        """Every key there is an image for."""

    def boxes(self, folder: str) -> dict[str, tuple[float, float, float, float]]:
        """Region path -> the CSS box (x, y, w, h) its image was captured at (theme/check/phase.py)."""

    def frames(self, folder: str) -> dict[str, Frames]:
        """Region path -> its frames' corners when its image was captured (theme/check/phase.py)."""

    def sizes(self, folder: str) -> dict[str, list[int]]:
        """"<key>/<name>" -> [w, h] of each region image of a variant (theme/check/attribution.py)."""

    def has_pixels(self, key: str, pixels: Callable[[], str]) -> bool:
        """Whether the image of `key` is known to have the pixels whose digest `pixels()` gives."""

    def style(self, key: str) -> StyleRecord | None:
        """The style record of `key`'s region (theme/baselines/style_record.py); None when none was
        recorded (a baseline made before records were, or a page image)."""


class CapturedImages:
    """A base revision's captures as an expected-image source (what `verdict.check` reads).

    Keys are `<variant folder>/page.png` and `<variant folder>/<region path>`,
    the same as baselines, so a head capture is checked against it exactly as
    against committed baselines."""

    def __init__(self, shots: Iterable[Capture]):
        self._shots = {shot.variant.folder.as_posix(): shot for shot in shots}

    def _find(self, key: str) -> tuple[Capture | None, str | None]:
        folder, _, rest = key.rpartition("/")
        for _ in range(2):  # page.png, or a region path "<region key>/<name>.png"
            shot = self._shots.get(folder)
            if shot is not None:
                return shot, rest
            folder, _, head = folder.rpartition("/")
            rest = f"{head}/{rest}"
        return None, None

    def read(self, key: str) -> np.ndarray | None:
        shot, rest = self._find(key)
        if shot is None:
            return None
        if rest == "page.png":
            return np.ascontiguousarray(shot.image)
        region = _region(shot, rest)
        return None if region is None else np.ascontiguousarray(shot.crop(region))

    def keys(self) -> list[str]:
        out = []
        for folder, shot in self._shots.items():
            out += [f"{folder}/{rel.as_posix()}" for rel, _ in shot.images()]
        return out

    def where(self, key: str) -> tuple[Capture | None, Region | None]:
        """(capture, region or None for the page) an image key comes from."""
        shot, rest = self._find(key)
        return shot, None if shot is None else _region(shot, rest)

    def boxes(self, folder: str) -> dict[str, tuple[float, float, float, float]]:
        shot = self._shots.get(folder)
        return {} if shot is None else {r.path.as_posix(): r.css_box for r in shot.regions if r.css_box is not None}

    def frames(self, folder: str) -> dict[str, Frames]:
        shot = self._shots.get(folder)
        return {} if shot is None else {r.path.as_posix(): r.frames for r in shot.regions}

    def sizes(self, folder: str) -> dict[str, list[int]]:
        shot = self._shots.get(folder)
        return {} if shot is None else {f"{r.key}/{r.name}": list(r.box[2:]) for r in shot.regions}

    def has_pixels(self, key: str, pixels: Callable[[], str]) -> bool:
        """A capture records no digest of its images: they are always compared."""
        return False

    def style(self, key: str) -> StyleRecord | None:
        shot, rest = self._find(key)
        raw = None if shot is None or rest is None else shot.styles.get(rest)
        return None if raw is None else from_page(raw)

    def folders(self) -> list[str]:
        return list(self._shots)

    def shot(self, folder: str) -> Capture | None:
        return self._shots.get(folder)


def _region(shot: Capture, path: str | None) -> Region | None:
    """The region of `shot` whose image path ("note-box/intro.png") is `path`."""
    return next((r for r in shot.regions if r.path.as_posix() == path), None)
