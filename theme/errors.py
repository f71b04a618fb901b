"""Every error a user can cause, as one tree.

    ThemeError                 anything the CLI turns into one line and exit code 2
    ├── ConfigError            pyproject.toml [tool.theme] is wrong (unknown key, bad value)
    ├── BuildError             SCSS does not compile, or compiled to something broken
    ├── ImageError             a PNG is missing, unreadable or corrupt
    ├── CaptureError           the browser could not render what was asked
    │   ├── BrowserNotFound    no Chromium anywhere we looked
    │   └── UnstableRender     two consecutive captures never agreed
    ├── StoreError             the snapshots folder or its manifest is unusable
    └── LintError              a file given to `theme lint` cannot be read

The message of each is complete on its own: what went wrong, where
(`file:line:col` when there is a file), and what to do about it. Callers print
`str(err)` and nothing else, so never rely on a traceback to carry context.
"""

from __future__ import annotations


class ThemeError(Exception):
    """Base class. `exit_code` is what the CLI returns for it."""

    exit_code = 2


class ConfigError(ThemeError):
    pass


class BuildError(ThemeError):
    pass


class ImageError(ThemeError):
    pass


class CaptureError(ThemeError):
    pass


class BrowserNotFound(CaptureError):
    pass


class UnstableRender(CaptureError):
    pass


class StoreError(ThemeError):
    pass


class LintError(ThemeError):
    pass
