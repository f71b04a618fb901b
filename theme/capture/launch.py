"""The browser a Session renders with: launched here (browser.py finds it and its flags), or a
browser server connected to (`theme browser serve`, remote.py); and the environment every
capture of the session is made in, its fingerprint, which a baseline records."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import platform
import threading
from typing import TYPE_CHECKING, Iterator

from .. import __version__
from ..core.config import VisualConfig
from ..core.errors import CaptureError
from . import bounded, remote, scripts
from .browser import BrowserInfo, find_browser, launch_flags
from .driver import shared_playwright
from .model import JsonObject
from .picture import screenshot

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

_THREAD = threading.local()
CONNECT_TIMEOUT_MS = 30_000


@contextlib.contextmanager
def kept_browsers() -> Iterator[None]:
    """Inside it, the Sessions this thread opens one after another share one Playwright
    driver and the browsers they launch (one per executable and flags), closed when it ends.
    `theme init` looks, renders twice and tries reader states in three Sessions of three
    configs: one driver and one browser instead of a start and a stop each. The driver is
    the first Session's, held from the first launch (launch()): a block that renders
    nothing starts none (the test suite keeps one such block for each worker's run)."""
    if getattr(_THREAD, "kept", None) is not None:  # an outer block keeps them
        yield
        return
    _THREAD.kept, _THREAD.holding = {}, contextlib.ExitStack()
    try:
        yield
    finally:
        browsers, holding, _THREAD.kept, _THREAD.holding = _THREAD.kept, _THREAD.holding, None, None
        with holding:  # the driver stops after its kept browsers, if nothing else uses it
            for browser in browsers.values():
                browser.close()


def launch(pw: Playwright, visual: VisualConfig, executable: str | None) -> tuple[Browser, BrowserInfo, JsonObject]:
    """A headless Chromium started here (`executable`, else find_browser()), what was found,
    and its fingerprint. Inside kept_browsers(), the one it keeps for the same executable and
    flags (its owner closes it: see owns())."""
    from playwright.sync_api import Error as PlaywrightError

    info = find_browser(executable, playwright=pw)
    flags = launch_flags(offline=visual.offline)
    kept = getattr(_THREAD, "kept", None)
    key = (str(info.executable), *flags)
    browser = kept.get(key) if kept is not None else None
    if browser is None or not browser.is_connected():
        try:
            browser = pw.chromium.launch(executable_path=str(info.executable), args=flags, headless=True)
        except PlaywrightError as err:
            raise CaptureError(
                f"{info.executable}: the browser did not start ({first_line(err)}); "
                "set THEME_BROWSER to a working Chromium"
            ) from None
        if kept is not None:
            if not kept:  # the first kept browser: its driver lives as long as the block
                _THREAD.holding.enter_context(shared_playwright())
            kept[key] = browser
    return browser, info, local_fingerprint(browser, info, flags, visual)


def owns(browser: Browser) -> bool:
    """Whether the Session that launched `browser` closes it: not when kept_browsers() does."""
    kept = getattr(_THREAD, "kept", None)
    return kept is None or all(b is not browser for b in kept.values())


def connect(pw: Playwright, endpoint: str, visual: VisualConfig) -> tuple[Browser, JsonObject]:
    """A browser server's Chromium, by Playwright's own protocol, and its fingerprint.
    `<loopback>` lets a browser on another machine (a container) reach this machine's
    127.0.0.1 server through the connection."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        browser = pw.chromium.connect(endpoint, timeout=CONNECT_TIMEOUT_MS, expose_network="<loopback>")
    except PlaywrightError as err:
        raise CaptureError(f"{remote.mask(endpoint)}: cannot connect to the browser server "
                           f"({remote.scrub(first_line(err), (endpoint,))}); start one with "
                           f"`theme browser serve` or fix {remote.ENV} / [tool.theme.visual.browser]") from None
    return browser, remote_fingerprint(browser, endpoint, visual)


def local_fingerprint(browser: Browser, info: BrowserInfo, flags: list[str], visual: VisualConfig) -> JsonObject:
    """The environment every capture of a session is made in (Capture.fingerprint adds its fonts)."""
    return {
        "browser": {
            "name": browser.browser_type.name,
            "version": browser.version,
            "executable": str(info.executable),
            "found_by": info.source,
        },
        "playwright": playwright_version(),
        "platform": {"system": platform.system(), "release": platform.release(),
                     "machine": platform.machine(), "libc": "-".join(platform.libc_ver())},
        "device_scale_factor": 1,
        "launch_flags": flags,
        # Pixels can depend on where the clips start (benchmarks/README.md), so the
        # tile height is part of the environment a baseline was made in.
        "tile_height": visual.tile_height,
        "theme_version": __version__,
    }


def remote_fingerprint(browser: Browser, endpoint: str, visual: VisualConfig) -> JsonObject:
    """What a remote browser renders with, measured in it: its version, its platform as it
    reports it, and a hash of a font-probe page's pixels (the server's fonts cannot be
    hashed from this machine's disk). Its launch flags are the server's own."""
    with browser.new_context(viewport={"width": 640, "height": 160}, device_scale_factor=1) as ctx:
        page = ctx.new_page()
        bounded.hold(page, ctx.new_cdp_session(page), seconds=bounded.ANSWER_S,
                     where=f"the browser at {remote.mask(endpoint)} (its font probe)")
        page.set_content(scripts.FONT_PROBE)
        platform_ = bounded.evaluate(page, "() => navigator.platform")
        probe = hashlib.sha256(screenshot(page).tobytes()).hexdigest()
    system, _, machine = platform_.partition(" ")
    return {
        "browser": {"name": browser.browser_type.name, "version": browser.version,
                    "executable": "remote", "found_by": remote.mask(endpoint)},
        "playwright": playwright_version(),
        "platform": {"system": system, "machine": machine},
        "device_scale_factor": 1,
        "launch_flags": "set by the browser server",
        "system_fonts": {"font_probe": probe},
        "tile_height": visual.tile_height,
        "theme_version": __version__,
    }


def playwright_version() -> str:
    try:
        return importlib.metadata.version("playwright")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover
        return "unknown"


def first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__
