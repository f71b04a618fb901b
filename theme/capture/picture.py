"""One picture of a Playwright Page or Locator, outside a Session's tiled capture: the page or
element a user hands to `assert_snapshot`, and a remote browser's font probe (launch.py).
The screenshot-only CSS goes in first, once a page (readiness.STABLE_FLAG marks it)."""

from __future__ import annotations

import platform
from typing import TYPE_CHECKING

import numpy as np

from .. import __version__
from . import bounded, scripts
from .readiness import STABLE_FLAG
from .tiles import decode_png

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

    from .model import JsonObject

    # What assert_snapshot takes: an RGBA array, or a page or element Playwright can screenshot.
    Snapshotable = np.ndarray | Page | Locator


def screenshot(target: Page | Locator) -> np.ndarray:
    """A Playwright Page or Locator → (H, W, 4) RGBA, with animations off and the caret hidden."""
    from playwright.sync_api import Locator

    page = target.page if isinstance(target, Locator) else target
    if not bounded.evaluate(page, f"() => !!window.{STABLE_FLAG}"):
        bounded.evaluate(page, scripts.ADOPT_CSS, scripts.STABLE_CSS)
        bounded.evaluate(page, scripts.STOP_ANIMATIONS)
        bounded.evaluate(page, f"() => {{ window.{STABLE_FLAG} = true; }}")
    png = target.screenshot(type="png", animations="disabled", caret="hide", scale="css")
    return decode_png(png, what="screenshot")


def image_of(target: Snapshotable) -> tuple[np.ndarray, JsonObject]:
    """An RGBA array and the environment it was made in (the fingerprint a baseline records),
    from what `assert_snapshot` was given: an array, a Page or a Locator."""
    from playwright.sync_api import Locator

    if isinstance(target, np.ndarray):
        if target.ndim != 3 or target.shape[2] != 4 or target.dtype != np.uint8:
            raise TypeError(f"assert_snapshot: expected an (H, W, 4) uint8 RGBA array, got "
                            f"{target.dtype} {target.shape}")
        return target, _plain_fingerprint()
    page = target.page if isinstance(target, Locator) else target
    browser = page.context.browser
    fingerprint = _plain_fingerprint()
    if browser is not None:
        fingerprint["browser"] = {"name": browser.browser_type.name, "version": browser.version}
    return screenshot(target), fingerprint


def _plain_fingerprint() -> JsonObject:
    """An in-memory image has no browser; record only what made it."""
    return {"platform": {"system": platform.system(), "machine": platform.machine()},
            "theme_version": __version__}
