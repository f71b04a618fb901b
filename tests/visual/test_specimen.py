"""The specimen article in a real Chromium: offline, typeset, in the fonts it ships.

The page is served from article/dist by a small http.server on 127.0.0.1 (the capture
engine has its own server; this test only needs *a* server so that URLs are http and
fonts load as they would on a real site). Every request goes through a route handler, so
anything aimed elsewhere is recorded and aborted rather than silently fetched.
"""

from __future__ import annotations

import functools
import http.server
import io
import os
import threading
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest
from PIL import Image

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

DIST = Path(__file__).resolve().parents[2] / "article" / "dist"
BROWSER = os.environ.get("THEME_BROWSER", "/usr/bin/chromium")
DESKTOP = {"width": 1280, "height": 800}
MOBILE = {"width": 390, "height": 844}

# Which shipped family each kind of text must actually be drawn with (notes/MARKUP.md).
USED_FONTS = {
    "d-article section p": "Source Serif 4",
    "d-article section h2": "Source Sans 3",
    "d-code[block] pre code": "JetBrains Mono",
    ".note-box-title": "Noto Color Emoji",
}


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output readable
        pass


@pytest.fixture(scope="module")
def origin():
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(DIST))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    if not Path(BROWSER).exists():
        pytest.skip(f"no browser at {BROWSER}; set THEME_BROWSER or run `theme setup`")
    with playwright_api.sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=BROWSER, args=["--no-sandbox"])
        yield launched
        launched.close()


class Visit:
    """One page load with every request recorded: what stayed local, what did not."""

    def __init__(self, browser, origin: str, viewport: dict, scheme: str = "light"):
        self.context = browser.new_context(viewport=viewport, color_scheme=scheme,
                                           device_scale_factor=1)
        self.external: list[str] = []
        self.failed: list[str] = []
        self.local = urlsplit(origin).netloc
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("response", lambda r: r.status >= 400 and self.failed.append(f"{r.status} {r.url}"))
        self.page.on("requestfailed", lambda r: self.failed.append(f"failed {r.url}"))

    def _route(self, route):
        url = route.request.url
        if urlsplit(url).netloc == self.local:
            route.continue_()
        else:
            self.external.append(url)
            route.abort()

    def open(self, url: str) -> "Visit":
        self.page.goto(url, wait_until="load")
        self.page.wait_for_function("document.documentElement.dataset.typeset !== undefined")
        self.page.evaluate("document.fonts.ready.then(() => true)")
        return self

    def close(self):
        self.context.close()


@pytest.fixture(scope="module")
def desktop(browser, origin):
    visit = Visit(browser, origin, DESKTOP).open(origin + "/index.html")
    yield visit
    visit.close()


# --- offline --------------------------------------------------------------------------------

def test_no_request_leaves_127_0_0_1(desktop):
    assert desktop.external == []


def test_every_local_request_succeeds(desktop):
    assert desktop.failed == []


def test_the_guard_catches_an_external_request(browser, origin):
    # Without this, an empty `external` list could mean the route never ran at all.
    visit = Visit(browser, origin, DESKTOP).open(origin + "/index.html")
    try:
        visit.page.evaluate(
            "new Promise(done => { const i = new Image(); i.onerror = i.onload = done;"
            " i.src = 'http://example.invalid/pixel.png'; })"
        )
        assert visit.external == ["http://example.invalid/pixel.png"]
    finally:
        visit.close()


# --- typesetting ---------------------------------------------------------------------------

def test_typesetting_reports_done(desktop):
    assert desktop.page.evaluate("document.documentElement.dataset.typeset") == "done"


def test_every_display_formula_is_katex_display_markup(desktop):
    counts = desktop.page.evaluate(
        """() => [...document.querySelectorAll('d-math[block]')].map(el =>
             [el.hasAttribute('data-ready'), el.querySelectorAll('.katex-display').length,
              el.querySelectorAll('.katex-error').length])"""
    )
    assert len(counts) >= 8
    assert counts == [[True, 1, 0]] * len(counts)


def test_every_inline_formula_is_katex_without_errors(desktop):
    bad = desktop.page.evaluate(
        """() => [...document.querySelectorAll('d-math:not([block])')]
             .filter(el => !el.querySelector(':scope > .katex') || el.querySelector('.katex-error'))
             .map(el => el.textContent)"""
    )
    assert bad == []


def test_code_blocks_become_pre_code_with_tokens(desktop):
    blocks = desktop.page.evaluate(
        """() => [...document.querySelectorAll('d-code[block]')].map(el => [
             el.hasAttribute('data-ready'),
             !!el.querySelector(':scope > pre > code'),
             el.querySelectorAll('.tok-kw, .tok-str, .tok-com, .tok-num').length > 0,
             el.querySelector('pre code').textContent.startsWith(' ')])"""
    )
    assert len(blocks) >= 4
    assert blocks == [[True, True, True, False]] * len(blocks)


def test_figures_decode(desktop):
    sizes = desktop.page.evaluate(
        "() => [...document.querySelectorAll('figure img')].map(i => [i.complete, i.naturalWidth])"
    )
    assert len(sizes) >= 3
    assert all(done and width > 0 for done, width in sizes)


# --- size ------------------------------------------------------------------------------------

def page_height(page) -> int:
    return page.evaluate("document.documentElement.scrollHeight")


def test_desktop_page_is_at_least_8000_px_tall(desktop):
    assert page_height(desktop.page) >= 8000


def test_mobile_page_is_taller_still(browser, origin, desktop):
    visit = Visit(browser, origin, MOBILE).open(origin + "/index.html")
    try:
        assert page_height(visit.page) > 1.3 * page_height(desktop.page)
        assert visit.external == []
    finally:
        visit.close()


# --- fonts -----------------------------------------------------------------------------------

def test_no_font_face_failed_and_each_family_is_loaded(desktop):
    faces = desktop.page.evaluate(
        "() => [...document.fonts].map(f => [f.family.replace(/[\"']/g, ''), f.status])"
    )
    assert [f for f in faces if f[1] == "error"] == []
    loaded = {family for family, status in faces if status == "loaded"}
    assert {"Source Serif 4", "Source Sans 3", "JetBrains Mono", "Noto Color Emoji",
            "KaTeX_Main", "KaTeX_Math"} <= loaded


@pytest.mark.parametrize("font, sample", [
    ('16px "Source Serif 4"', "Ledger"),
    ('italic 16px "Source Serif 4"', "Ledger"),
    ('600 16px "Source Sans 3"', "Ledger"),
    ('16px "JetBrains Mono"', "def f(x):"),
    ('16px "Noto Color Emoji"', "\U0001F4DD\U0001F4A1\u26A0\uFE0F"),
])
def test_document_fonts_check(desktop, font, sample):
    assert desktop.page.evaluate("([f, t]) => document.fonts.check(f, t)", [font, sample])


@pytest.mark.parametrize("selector, family", list(USED_FONTS.items()))
def test_text_is_drawn_with_the_shipped_font(desktop, selector, family):
    # CSS.getPlatformFontsForNode reports the faces Chromium actually shaped the node's
    # text with, so a fallback (a missing file, a wrong family name) cannot hide.
    cdp = desktop.context.new_cdp_session(desktop.page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        assert node, f"nothing matches {selector}"
        text_nodes = cdp.send("DOM.describeNode", {"nodeId": node, "depth": 1})["node"].get("children", [])
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        # familyName comes from the file's name table, which for some static instances
        # carries a style suffix ("Source Sans 3 ExtraLight" for the 600 file), so match
        # the prefix; isCustomFont says it is a web font (ours), not a system fallback.
        used = [(f["familyName"], f["isCustomFont"]) for f in fonts]
        assert any(name.startswith(family) and custom for name, custom in used), (
            f"{selector}: drawn with {used} ({len(text_nodes)} children)")
    finally:
        cdp.detach()


def colourful_pixels(png: bytes, text_rgb: tuple[int, int, int]) -> int:
    """Pixels with strong chroma that are not the text colour: an emoji's, not a glyph's."""
    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    chroma = rgb.max(axis=2) - rgb.min(axis=2)
    far_from_text = np.abs(rgb - np.array(text_rgb)).sum(axis=2) > 90
    return int(((chroma > 50) & far_from_text).sum())


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_note_box_emoji_renders_in_colour(browser, origin, scheme):
    visit = Visit(browser, origin, DESKTOP, scheme).open(origin + "/index.html")
    try:
        title = visit.page.locator(".note-box-title").first
        colour = title.evaluate("el => getComputedStyle(el).color")
        text_rgb = tuple(int(v) for v in colour[colour.index("(") + 1:colour.index(")")].split(",")[:3])
        with_emoji = colourful_pixels(title.screenshot(), text_rgb)
        # The same title without its emoji: whatever colour remains is the theme's, not the glyph's.
        title.evaluate("el => { el.textContent = el.textContent.replace(/^\\S+\\s*/, ''); }")
        without = colourful_pixels(title.screenshot(), text_rgb)
        assert with_emoji >= 30 + without, (with_emoji, without)
    finally:
        visit.close()


# --- the toggle ------------------------------------------------------------------------------

def test_theme_toggle_flips_data_theme_and_the_page_colours(browser, origin):
    visit = Visit(browser, origin, DESKTOP, "light").open(origin + "/index.html")
    try:
        page = visit.page
        background = "() => getComputedStyle(document.body).backgroundColor"
        before = page.evaluate(background)
        page.click(".theme-toggle")
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        assert page.evaluate(background) != before
        page.click(".theme-toggle")
        assert page.evaluate("document.documentElement.dataset.theme") == "light"
        assert page.evaluate(background) == before
    finally:
        visit.close()
