"""The capture engine: the only place in theme that imports Playwright, lazily (in the
Session, launch.py and picture.py's screenshot), so Variant, variants, Region naming and the
server load without it.

    with Session(visual) as session:
        capture = session.capture(variants(visual)[0])   # capture.images(): (path, RGBA) pairs
"""

from .browser import BrowserInfo, find_browser, launch_flags
from .config_checks import check_config
from .model import Capture, Failure, Region, Renderer
from .naming import Variant, page_name, slug, variants
from .picture import screenshot
from .pool import open_session
from .server import LocalServer
from .session import Session
from .tiles import decode_png

__all__ = [
    "BrowserInfo", "Capture", "Failure", "LocalServer", "Region", "Renderer", "Session", "Variant",
    "check_config", "decode_png", "find_browser", "launch_flags", "open_session", "page_name", "screenshot",
    "slug", "variants",
]
