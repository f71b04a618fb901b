"""Finding a Chromium with no setup, and the flags that make its rendering repeatable."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import BrowserNotFound
from .driver import shared_playwright

if TYPE_CHECKING:
    from playwright.sync_api import Playwright

ENV = "THEME_BROWSER"
PATH_NAMES = ("chromium", "chromium-browser", "google-chrome")

# Distribution launchers are shell scripts that add flags of their own (Debian's
# /usr/bin/chromium sources /etc/chromium.d: --enable-gpu-rasterization, extensions
# …), which would make the rendering depend on the machine's packaging. When the
# found file is such a script, launch the real binary beside which it execs.
_REAL_BINARIES = {
    "chromium": ("/usr/lib/chromium/chromium",),
    "chromium-browser": ("/usr/lib/chromium-browser/chromium-browser", "/usr/lib/chromium/chromium"),
    "google-chrome": ("/opt/google/chrome/chrome",),
}

# Flags for repeatable pixels. Each one removes a source of run-to-run or
# machine-to-machine variation:
RENDER_FLAGS = (
    "--font-render-hinting=none",  # hinting depends on FreeType/fontconfig settings of the host
    "--disable-lcd-text",  # subpixel (coloured) anti-aliasing depends on the display
    "--disable-font-subpixel-positioning",
    "--force-color-profile=srgb",  # no monitor ICC profile in the colour pipeline
    "--disable-gpu",  # software raster (Skia) is the same on every machine of a kind
    "--force-device-scale-factor=1",
    "--hide-scrollbars",  # scrollbars would eat width and differ between themes
    "--disable-partial-raster",
    "--disable-skia-runtime-opts",  # CPU-feature-specific Skia code paths
)
# Flags that stop the browser itself from talking to the internet (Chromium
# otherwise contacts Google hosts for components, variations, safe browsing …).
QUIET_FLAGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-domain-reliability",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-client-side-phishing-detection",
    "--disable-breakpad",
    "--no-first-run",
    "--no-default-browser-check",
    "--no-pings",
    "--metrics-recording-only",
    "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,"
    "AutofillServerCommunication,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,"
    # Chromium 151+ pre-renders the address bar's popup at start-up, headless too:
    # two extra renderers that never go away (benchmarks/README.md).
    "WebUIOmniboxPopup,WebUIOmniboxAimPopup",
    "--disable-dev-shm-usage",  # /dev/shm in containers is often 64 MB; tall tiles need more
)
# When offline, any request that escapes page routing (a browser-internal fetch)
# goes to a proxy that does not exist and fails at once. Loopback bypasses
# proxies by default, so the local server stays reachable.
OFFLINE_FLAGS = ("--proxy-server=http://127.0.0.1:9",)


@dataclass(frozen=True)
class BrowserInfo:
    executable: Path  # what we launch
    source: str  # how it was found: "THEME_BROWSER", "playwright", "PATH:chromium" …
    launcher: Path | None = None  # the wrapper script it was unwrapped from, if any

    def describe(self) -> str:
        """For people, e.g. `/usr/lib/chromium/chromium (found as chromium on PATH, launched
        without its wrapper script /usr/bin/chromium)`."""
        how = {ENV: f"from {ENV}", "playwright": "Playwright's own Chromium",
               "argument": "given as an argument"}.get(self.source)
        if how is None and self.source.startswith("PATH:"):
            how = f"found as {self.source.removeprefix('PATH:')} on PATH"
        how = how or self.source
        if self.launcher is not None:
            how += f", launched without its wrapper script {self.launcher}"
        return f"{self.executable} ({how})"


def launch_flags(*, offline: bool) -> list[str]:
    flags = [*RENDER_FLAGS, *QUIET_FLAGS, *(OFFLINE_FLAGS if offline else ())]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags.append("--no-sandbox")  # Chromium refuses to start its sandbox as root
    return flags


def _is_script(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return False


def _unwrap(path: Path, name: str) -> BrowserInfo | None:
    if not _is_script(path):
        return None
    for real in _REAL_BINARIES.get(name, ()):
        if os.access(real, os.X_OK) and not _is_script(Path(real)):
            return BrowserInfo(Path(real), f"PATH:{name}", launcher=path)
    return None


def _playwright_chromium(playwright: Playwright | None = None) -> Path | None:
    """Playwright's own Chromium, if `playwright install chromium` put one in its cache."""
    try:
        if playwright is None:  # this thread's driver: a second one cannot start beside it
            with shared_playwright() as started:
                path = Path(started.chromium.executable_path)
        else:
            path = Path(playwright.chromium.executable_path)
    except Exception:  # noqa: BLE001 - no driver / no browser both mean "not installed" here
        return None
    return path if path.is_file() and os.access(path, os.X_OK) else None


def find_browser(explicit: str | None = None, *, playwright: Playwright | None = None) -> BrowserInfo:
    """THEME_BROWSER (or `explicit`) → Playwright's own Chromium → chromium/chrome on PATH."""
    wanted = explicit or os.environ.get(ENV)
    if wanted:
        found = shutil.which(wanted)
        if not found:
            raise BrowserNotFound(
                f"{ENV}={wanted}: no such executable; point it at a Chromium or Chrome binary"
                if not explicit else f"browser {wanted!r}: no such executable"
            )
        path = Path(found)
        return _unwrap(path, path.name) or BrowserInfo(path, ENV if not explicit else "argument")
    own = _playwright_chromium(playwright)
    if own:
        return BrowserInfo(own, "playwright")
    for name in PATH_NAMES:
        found = shutil.which(name)
        if found:
            return _unwrap(Path(found), name) or BrowserInfo(Path(found), f"PATH:{name}")
    raise BrowserNotFound(
        f"no browser found: {ENV} is not set, Playwright's Chromium is not installed, and none of "
        f"{', '.join(PATH_NAMES)} is on PATH; set {ENV}=/path/to/chromium, or run "
        "`pip install playwright && playwright install chromium`, or `apt-get install chromium`"
    )
