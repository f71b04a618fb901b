"""theme: SCSS design tokens built into an article's style.css, and pixel-exact visual checks.

The public API is what `__all__` lists; everything else may change.
"""

from .core.errors import (
    BrowserNotFound,
    BuildError,
    CaptureError,
    ConfigError,
    ImageError,
    LintError,
    StoreError,
    ThemeError,
    UnstableRender,
)

__version__ = "0.1.0"

__all__ = [
    "BrowserNotFound",
    "BuildError",
    "CaptureError",
    "ConfigError",
    "ImageError",
    "LintError",
    "StoreError",
    "ThemeError",
    "UnstableRender",
    "__version__",
]
