"""The capture engine: the only place in theme that imports Playwright, lazily (in
Session and screenshot), so Variant, variants, Region naming and the server load without it.

    with Session(visual) as session:
        capture = session.capture(variants(visual)[0])   # capture.images(): (path, RGBA) pairs
"""

from .browser import BrowserInfo, find_browser, launch_flags
from .config_checks import check_config
from .model import Capture, Region
from .naming import Variant, page_name, slug, variants
from .server import LocalServer
from .session import Session, screenshot
from .tiles import decode_png


def open_session(visual, *, browser: str | None = None, source=None):
    """A Session on a local browser, or a Pool over the endpoints of
    THEME_BROWSER_ENDPOINTS / `[tool.theme.visual.browser]` when there are any (an
    explicit `browser` executable always means a local launch). Use it with `with`."""
    from . import remote
    from .pool import Pool

    endpoints = () if browser else remote.endpoints(visual.browser.endpoints)
    return Pool(visual, endpoints, source=source) if endpoints else Session(visual, browser=browser, source=source)

__all__ = sorted([
    "BrowserInfo", "Capture", "LocalServer", "Region", "Session", "Variant", "check_config",
    "decode_png", "find_browser", "launch_flags", "open_session", "page_name", "screenshot", "slug", "variants",
])
