"""One picture of a Playwright Page or Locator, outside a Session's tiled capture: the page or
element a user hands to `assert_snapshot`, and a remote browser's font probe (launch.py).
The screenshot-only CSS goes in first, once a page (readiness.STABLE_FLAG marks it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import bounded, scripts
from .readiness import STABLE_FLAG
from .tiles import decode_png

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page


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
