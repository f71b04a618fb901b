"""The capture engine: the only place in theme that imports Playwright.

    from theme.capture import Session, variants
    with Session(visual) as session:
        for variant in variants(visual):
            capture = session.capture(variant)
            for path, pixels in capture.images(): ...

Playwright is imported lazily (inside Session and screenshot), so the pure
parts — Variant, variants, Region naming, the server — load without it.
"""

from .browser import BrowserInfo, find_browser, launch_flags
from .naming import Variant, page_name, slug, variants
from .server import LocalServer
from .session import Capture, Region, Session, check_config, screenshot
from .tiles import decode_png

__all__ = sorted([
    "BrowserInfo", "Capture", "LocalServer", "Region", "Session", "Variant", "check_config",
    "decode_png", "find_browser", "launch_flags", "page_name", "screenshot", "slug", "variants",
])
