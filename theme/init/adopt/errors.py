"""The error `theme init --scss` raises (a leaf: every module of the package may import it)."""

from __future__ import annotations

from ...core.errors import ThemeError


class AdoptError(ThemeError):  # the stylesheet or the project cannot be adopted as asked
    pass
