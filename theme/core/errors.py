"""Every error a user can cause, as one tree under ThemeError (the CLI prints one line, exit code 2).

Each message is complete on its own: what went wrong, where (`file:line:col` when there is a file) and what
to do. Callers print `str(err)` and nothing else, so never rely on a traceback to carry context.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


class ThemeError(Exception):
    """Base class. `exit_code` is what the CLI returns for it."""

    exit_code = 2


class ConfigError(ThemeError):  # pyproject.toml [tool.theme] is wrong (unknown key, bad value)
    pass


class BuildError(ThemeError):  # SCSS does not compile, or compiled to something broken
    pass


class ImageError(ThemeError):  # a PNG is missing, unreadable or corrupt
    pass


class LfsPointerError(ImageError):  # a Git LFS pointer file stands where its PNG should be
    pass


class CaptureError(ThemeError):  # the browser could not render what was asked
    pass


class RenderError(CaptureError):
    """One variant's render cannot be trusted: a script, stylesheet or font it depends on did
    not load, the page is wider than its viewport or past the size budget, its image is not
    whole. That variant fails (its items, never a baseline); the other variants go on.
    `images`: name -> RGBA array that shows why (a blank band), for the artefacts."""

    def __init__(self, message: str, *, kind: str = "render", images: Mapping[str, np.ndarray] | None = None,
                 refusal: object = None):
        super().__init__(message)
        self.kind = kind
        self.images = dict(images or {})
        self.refusal = refusal  # kind "broken": theme.capture.resources.Refusal, what did not load


class BrowserNotFound(CaptureError):  # no Chromium anywhere we looked
    pass


class UnstableRender(CaptureError):  # two consecutive captures never agreed
    pass


class Unresponsive(RenderError):
    """The page or its browser gave no answer within the time allowed (an endless script,
    a frame never produced): that variant fails, naming what was waited for."""

    def __init__(self, message: str):
        super().__init__(message, kind="unresponsive")


class StoreError(ThemeError):  # the snapshots folder or its manifest is unusable
    pass


class LintError(ThemeError):  # a file given to `theme lint` cannot be read
    pass
