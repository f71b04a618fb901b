"""Renders shared by the worker processes of one pytest-xdist session.

Every xdist worker must collect the same items, and a variant's items come from its render,
so each worker used to render every variant: `pytest -n 4` rendered the article four times.
Now the first worker to claim a variant (a file made with O_EXCL) renders it and publishes it:
a pickle beside its spilled pixels. The others read it, the pixels memory-mapped, so each
variant is rendered once and the renders are spread over the workers' browsers.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ...core.errors import ThemeError
from ...core.fsutil import atomic_write_bytes

if TYPE_CHECKING:
    from ...capture.model import Capture, Failure
    from ...capture.naming import Variant

POLL = 0.05  # seconds between looks for a render another worker is taking
# What a published render is: the capture (its page image left out: it is on disk, at the
# path given) or a failure, or the one-line error that ended the claimer's captures.
Published = tuple["Capture | Failure | None", str | None, str | None]


class SharedRenders:
    """One session's folder of renders, made by the xdist controller and given to each worker."""

    def __init__(self, folder: Path):
        self.folder = folder

    def _name(self, variant: Variant) -> str:
        return variant.folder.as_posix().replace("/", "~")

    def spill_folder(self, variant: Variant) -> Path:
        """Where the claimer spills the variant's page image (its own folder: spilled files are
        named by the variant's id, which two pages share)."""
        return self.folder / self._name(variant)

    def claim(self, variant: Variant) -> bool:
        """True when this process is the one to render `variant` (no other claimed it first)."""
        try:
            fd = os.open(self.folder / f"{self._name(variant)}.claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w") as out:
            out.write(str(os.getpid()))
        return True

    def publish(self, variant: Variant, shot: Capture | Failure) -> None:
        """Give the other workers `shot`; its page image by the path it was spilled to."""
        from ...capture.model import Failure

        path = None
        if isinstance(shot, Failure):
            shot = dataclasses.replace(shot, error=None)  # a browser's exception need not pickle
        else:
            path = getattr(shot.image, "filename", None)  # memory-mapped from its spilled .npy
            if path is not None:
                shot = dataclasses.replace(shot, image=np.empty((0, 0, 4), np.uint8))
        self._write(variant, (shot, None if path is None else str(path), None))

    def publish_error(self, variant: Variant, message: str) -> None:
        """The claimer's captures ended at `variant` (theme.core.errors.ThemeError): every worker says so there."""
        self._write(variant, (None, None, message))

    def _write(self, variant: Variant, published: Published) -> None:
        atomic_write_bytes(self.folder / f"{self._name(variant)}.pickle", pickle.dumps(published))

    def take(self, variant: Variant) -> Capture | Failure:
        """The render of `variant`, waiting while its claimer takes it; ThemeError when the
        claimer's captures ended there, or the claimer is gone without publishing it."""
        result = self.folder / f"{self._name(variant)}.pickle"
        claim = self.folder / f"{self._name(variant)}.claim"
        last_look = time.monotonic()
        while not result.exists():
            time.sleep(POLL)
            if time.monotonic() - last_look > 1.0:  # the claimer may have died mid-render
                last_look = time.monotonic()
                if not result.exists() and not _alive(claim):
                    raise ThemeError(f"{variant.folder}: the pytest-xdist worker rendering it stopped; "
                                     "run again, or with -n 0 to see why")
        published: Published = pickle.loads(result.read_bytes())
        shot, path, error = published
        if error is not None or shot is None:
            raise ThemeError(error or f"{variant.folder}: no render was published")
        if path is not None:
            shot = dataclasses.replace(shot, image=np.load(path, mmap_mode="r"))
        return shot


def _alive(claim: Path) -> bool:
    """Whether the process that wrote `claim` still runs (a claim still being written counts)."""
    try:
        pid = int(claim.read_text() or "0")
    except (OSError, ValueError):
        return True
    if pid == 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
