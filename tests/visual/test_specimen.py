"""The specimen article in a real Chromium: offline, on the real Distill runtime, in the fonts it ships.

The page is served from article/dist by a small http.server on 127.0.0.1 (the capture
engine has its own server; this test only needs *a* server so that URLs are http and
fonts load as they would on a real site). Every request goes through a route handler:
the KaTeX the runtime asks for at its CDN address is served from the vendored copy (as
`route` in pyproject.toml does for the capture engine), and anything else aimed off
127.0.0.1 is recorded and aborted rather than silently fetched.
"""

from __future__ import annotations

import functools
import http.server
import io
import json
import re
import threading
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest
from PIL import Image

pytestmark = pytest.mark.browser

DIST = Path(__file__).resolve().parents[2] / "article" / "dist"
DESKTOP = {"width": 1280, "height": 800}
MOBILE = {"width": 390, "height": 844}

KATEX_CDN = "https://distill.pub/third-party/katex/"
KATEX = DIST / "assets" / "katex"
# blocked on purpose (a third-party embed) and missing on purpose (an audio file)
EMBED = "https://www.youtube-nocookie.com/embed/memory-ledger-talk"
MISSING_AUDIO = "/assets/audio/memory-ledger-reading.mp3"

# Which shipped family each kind of text must actually be drawn with (article/README.md, "Assets").
# Code in a d-code is not here: the runtime draws it in its shadow root with Prism's own
# stack (test_runtime_code_uses_prisms_font_stack); code written in the page is.
USED_FONTS = {
    "d-article section p": "Source Serif 4",
    "d-article section h2": "Source Sans 3",
    ".note-box-content code": "JetBrains Mono",
    ".note-box-title": "Noto Color Emoji",
    "d-byline h3": "Source Sans 3",
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
def browser(plain_chromium):
    return plain_chromium


# Done when the runtime has typeset every d-math (KaTeX output in its shadow root),
# highlighted every d-code and numbered every citation, and the fragments are in.
RUNTIME_DONE = """() =>
  document.documentElement.dataset.fragments !== undefined &&
  [...document.querySelectorAll('d-math')]
    .every(m => m.shadowRoot && m.shadowRoot.querySelector('.katex, .katex-error')) &&
  [...document.querySelectorAll('d-code')]
    .every(c => c.shadowRoot && c.shadowRoot.querySelector('code').textContent.trim()) &&
  [...document.querySelectorAll('d-cite')]
    .every(c => c.shadowRoot && /\\d/.test(c.shadowRoot.querySelector('.citation-number').textContent))
"""


class Visit:
    """One page load with every request recorded: what stayed local, what was routed, what did not."""

    def __init__(self, browser, origin: str, viewport: dict, scheme: str = "light"):
        self.context = browser.new_context(viewport=viewport, color_scheme=scheme,
                                           device_scale_factor=1)
        self.external: list[str] = []
        self.routed: list[str] = []
        self.failed: list[str] = []
        self.console_errors: list[str] = []
        self.local = urlsplit(origin).netloc
        self.origin = origin
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("response", lambda r: r.status >= 400 and self.failed.append(f"{r.status} {r.url}"))
        self.page.on("requestfailed", lambda r: self.failed.append(f"failed {r.url}"))
        self.page.on("pageerror", lambda e: self.console_errors.append(str(e)))

    def _route(self, route):
        url = route.request.url
        if urlsplit(url).netloc == self.local:
            route.continue_()
        elif url.startswith(KATEX_CDN):
            local = KATEX / urlsplit(url).path.removeprefix(urlsplit(KATEX_CDN).path)
            self.routed.append(url)
            route.fulfill(path=str(local), headers={"Access-Control-Allow-Origin": "*"})
        else:
            self.external.append(url)
            route.abort()

    def open(self, url: str) -> "Visit":
        self.page.goto(url, wait_until="load")
        self.page.wait_for_function(RUNTIME_DONE)
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

def test_only_the_embed_leaves_127_0_0_1(desktop):
    assert desktop.external == [EMBED]


def test_katex_is_asked_for_at_the_cdn_and_routed_to_the_vendored_copy(desktop):
    routed = {url.removeprefix(KATEX_CDN) for url in desktop.routed}
    assert {"katex.min.js", "katex.min.css"} <= routed
    assert {"fonts/KaTeX_Main-Regular.woff2", "fonts/KaTeX_Math-Italic.woff2"} <= routed
    assert all((KATEX / rel).is_file() for rel in routed)


def test_every_local_request_succeeds_but_the_missing_audio(desktop):
    # the embed is the aborted request above; the audio file is missing on purpose. After its
    # 404 the media element may also cancel the same request (seen under load): that is the
    # same missing file, so URLs are compared, with the audio's 404 and the embed's abort present.
    assert {f.split(" ", 1)[1] for f in desktop.failed} == {f"{desktop.origin}{MISSING_AUDIO}", EMBED}
    assert {f"404 {desktop.origin}{MISSING_AUDIO}", f"failed {EMBED}"} <= set(desktop.failed)


def test_the_page_throws_no_error(desktop):
    assert desktop.console_errors == []


def test_the_guard_catches_an_external_request(browser, origin):
    # Without this, an empty `external` list could mean the route never ran at all.
    visit = Visit(browser, origin, DESKTOP).open(origin + "/index.html")
    try:
        visit.page.evaluate(
            "new Promise(done => { const i = new Image(); i.onerror = i.onload = done;"
            " i.src = 'http://example.invalid/pixel.png'; })"
        )
        assert visit.external == [EMBED, "http://example.invalid/pixel.png"]
    finally:
        visit.close()


# --- what the runtime does ------------------------------------------------------------------

def test_the_runtime_defines_its_elements_and_leaves_d_contents_plain(desktop):
    defined = desktop.page.evaluate(
        "() => ['d-front-matter', 'd-title', 'd-byline', 'd-article', 'd-math', 'd-code', 'd-cite',"
        " 'd-footnote', 'd-figure', 'd-appendix', 'd-bibliography', 'd-contents']"
        ".map(t => [t, !!customElements.get(t)])")
    assert dict(defined) == {**{t: True for t, _ in defined}, "d-contents": False}
    assert desktop.page.evaluate("() => document.querySelector('d-contents').matches(':not(:defined)')")


def test_every_display_formula_is_katex_display_markup_in_its_shadow_root(desktop):
    counts = desktop.page.evaluate(
        """() => [...document.querySelectorAll('d-math[block]')].map(el => [
             el.querySelectorAll('*').length,
             el.shadowRoot.querySelectorAll('.katex-display').length,
             el.shadowRoot.querySelectorAll('.katex-error').length])"""
    )
    assert len(counts) >= 8
    # KaTeX output in the shadow root, the light DOM left as the author wrote it (TeX only)
    assert counts == [[0, 1, 0]] * len(counts)


def test_every_inline_formula_is_katex_without_errors(desktop):
    bad = desktop.page.evaluate(
        """() => [...document.querySelectorAll('d-math:not([block])')]
             .filter(el => !el.shadowRoot.querySelector('.katex')
                           || el.shadowRoot.querySelector('.katex-display, .katex-error'))
             .map(el => el.textContent)"""
    )
    inline = desktop.page.evaluate("() => document.querySelectorAll('d-math:not([block])').length")
    assert inline >= 20 and bad == []


def test_code_is_highlighted_by_prism_in_the_shadow_root(desktop):
    blocks = desktop.page.evaluate(
        """() => [...document.querySelectorAll('d-code')].map(el => {
             const code = el.shadowRoot.querySelector('code');
             return [el.hasAttribute('block'), el.getAttribute('language'),
                     code.parentNode.localName, code.className,
                     code.querySelectorAll('.token').length > 0, /^\\s/.test(code.textContent)];
           })"""
    )
    assert sum(b[0] for b in blocks) >= 4 and not all(b[0] for b in blocks)
    for block, language, parent, cls, tokens, indented in blocks:
        # blocks in a <pre>, dedented; inline code straight in the shadow root
        assert (parent == "pre") == block
        assert cls == f"language-{language}" and tokens and not indented


def test_runtime_code_uses_prisms_font_stack(desktop):
    # Not the theme's JetBrains Mono: Prism's stylesheet in the shadow root names its own
    # stack, and no page rule reaches it (the font fingerprint records what it falls to).
    families = desktop.page.evaluate(
        "() => [...new Set([...document.querySelectorAll('d-code')].map(el =>"
        " getComputedStyle(el.shadowRoot.querySelector('code')).fontFamily))]")
    assert len(families) == 1 and families[0].startswith("Consolas, Monaco")


def test_byline_is_written_by_the_runtime_from_the_front_matter(desktop):
    front = json.loads(desktop.page.evaluate("() => document.querySelector('d-front-matter script').textContent"))
    byline = desktop.page.evaluate(
        """() => ({ authors: [...document.querySelectorAll('d-byline .author')].map(p => p.textContent.trim()),
                    affiliations: [...document.querySelectorAll('d-byline p.affiliation')]
                                  .map(p => p.textContent.trim()),
                    headings: [...document.querySelectorAll('d-byline h3')].map(h => h.textContent.trim()),
                    text: document.querySelector('d-byline').textContent })""")
    assert byline["authors"] == [a["author"] for a in front["authors"]]
    assert byline["affiliations"] == [a["affiliations"][0]["name"] for a in front["authors"]]
    assert byline["headings"] == ["Authors", "Affiliations", "Published", "DOI"]
    assert front["published"] in " ".join(byline["text"].split())


def test_citations_are_numbered_and_listed(desktop):
    numbers = desktop.page.evaluate(
        "() => [...document.querySelectorAll('d-cite')]"
        ".map(c => c.shadowRoot.querySelector('.citation-number').textContent)")
    keys = desktop.page.evaluate(
        "() => [...document.querySelectorAll('d-cite')]"
        ".flatMap(c => c.getAttribute('key').split(',').map(k => k.trim()))")
    listed = desktop.page.evaluate(
        "() => [...document.querySelectorAll('d-appendix d-citation-list ol.references > li')].map(li => li.id)")
    assert all(re.fullmatch(r"\[\d+(, \d+)*\]", n) for n in numbers), numbers  # no "?"
    assert listed == list(dict.fromkeys(keys))  # each cited entry once, in order of first citation


def test_footnotes_are_numbered_and_listed(desktop):
    markers = desktop.page.evaluate(
        "() => [...document.querySelectorAll('d-footnote')]"
        ".map(f => f.shadowRoot.querySelector('sup span').textContent)")
    listed = desktop.page.evaluate(
        "() => [...document.querySelectorAll('d-appendix d-footnote-list ol > li')].map(li => li.id)")
    assert markers == [str(i) for i in range(1, len(markers) + 1)] and len(markers) >= 3
    assert listed == [f"d-footnote-{i}-listing" for i in range(1, len(markers) + 1)]


def test_figures_decode(desktop):
    sizes = desktop.page.evaluate(
        "() => [...document.querySelectorAll('figure img')]"
        ".map(i => [i.getAttribute('src'), i.complete, i.naturalWidth])"
    )
    assert len(sizes) >= 4 and any(src.endswith(".gif") for src, _, _ in sizes)
    assert all(done and width > 0 for _, done, width in sizes)


def test_the_audio_never_loads_and_the_embed_stays_empty(desktop):
    audio = desktop.page.evaluate(
        "() => { const a = document.querySelector('audio'); return [a.readyState, !!a.error]; }")
    assert audio == [0, True]
    frame = desktop.page.evaluate("() => document.querySelector('figure iframe').getBoundingClientRect().height")
    assert frame > 100  # the frame keeps its place in the layout


# --- fragments and the chart -------------------------------------------------------------------

CHART = """() => {
  const fig = document.querySelector('figure.ledger-chart');
  return { bars: [...fig.querySelectorAll('rect.chart-bar')]
                   .map(r => [r.getAttribute('height'), r.classList.contains('is-over')]),
           values: [...fig.querySelectorAll('.chart-value')].map(t => t.textContent),
           pressed: [...fig.querySelectorAll('button')].map(b => b.getAttribute('aria-pressed')),
           readout: fig.querySelector('.chart-readout').textContent, svg: fig.querySelector('svg').outerHTML };
}"""


def test_fragments_arrive_after_load_and_are_placed(desktop):
    assert desktop.page.evaluate("document.documentElement.dataset.fragments") == "done"
    states = desktop.page.evaluate(
        "() => [...document.querySelectorAll('[data-fragment]')].map(s => s.getAttribute('data-fragment-state'))")
    assert states == ["done", "done"]
    assert desktop.page.evaluate("() => !!document.querySelector('d-figure figure.ledger-chart svg')")
    # the note-box of the second fragment, with maths the runtime typeset after it arrived
    late = desktop.page.evaluate(
        "() => [...document.querySelectorAll('[data-fragment] .note-box d-math')]"
        ".map(m => !!m.shadowRoot.querySelector('.katex'))")
    assert late and all(late)


def test_the_chart_is_drawn_from_its_numbers_and_answers_the_reader(browser, origin, desktop):
    before = desktop.page.evaluate(CHART)
    assert before["values"] == ["107.2", "36.9", "25.1", "13.4"]  # 16, 4 + 12/8, 2 + 14/8, 16/8 bytes of 6.7e9
    assert [over for _, over in before["bars"]] == [True, False, False, False]
    assert before["pressed"] == ["true", "false", "false"]
    visit = Visit(browser, origin, DESKTOP).open(origin + "/index.html")
    try:
        page = visit.page
        assert page.evaluate(CHART)["svg"] == before["svg"]  # the same drawing on every load
        page.click("figure.ledger-chart button[data-degree='256']")
        after = page.evaluate(CHART)
        assert after["values"] == ["107.2", "27.1", "13.8", "0.4"] and after["pressed"] == ["false", "false", "true"]
        page.hover("figure.ledger-chart rect.chart-bar >> nth=2")
        assert page.evaluate(CHART)["readout"] == "Stage 2 with d = 256: 13.8 GB of model state per card."
    finally:
        visit.close()


# --- the table of contents ---------------------------------------------------------------------

def active_links(page) -> list[str]:
    return page.evaluate("() => [...document.querySelectorAll('d-contents a.active')].map(a => a.getAttribute('href'))")


def test_contents_is_a_sticky_column_on_desktop_with_a_scroll_spy(browser, origin):
    visit = Visit(browser, origin, DESKTOP).open(origin + "/index.html")
    try:
        page = visit.page
        assert active_links(page) == ["#why-count"]
        box = ("() => { const r = document.querySelector('d-contents').getBoundingClientRect();"
               " return [r.left, r.top, r.right]; }")
        text_left = page.evaluate(
            "() => document.querySelector('d-article > section > p').getBoundingClientRect().left")
        assert page.evaluate("() => getComputedStyle(document.querySelector('d-contents')).position") == "sticky"
        left, _, right = page.evaluate(box)
        assert right <= text_left and left >= 0  # beside the text, not above it
        for target in ("#sixteen-bytes", "#zero", "#bubble-size", "#watch-listen"):
            page.evaluate(f"() => document.querySelector('{target}').scrollIntoView()")
            page.wait_for_function(
                f"() => document.querySelector('d-contents a[href=\"{target}\"]').classList.contains('active')")
            assert active_links(page) == [target]
            assert page.evaluate(box)[1] == 24  # stuck 24 px below the top of the window
            # the active link is inside the column's visible part
            assert page.evaluate(
                "() => { const c = document.querySelector('d-contents').getBoundingClientRect();"
                " const a = document.querySelector('d-contents a.active').getBoundingClientRect();"
                " return a.top >= c.top && a.bottom <= c.bottom; }")
        page.evaluate("() => window.scrollTo(0, 0)")
        page.wait_for_function(
            "() => document.querySelector('d-contents a[href=\"#why-count\"]').classList.contains('active')")
        assert active_links(page) == ["#why-count"]
        weight = page.evaluate("() => getComputedStyle(document.querySelector('d-contents a.active')).fontWeight")
        assert weight == "700"
    finally:
        visit.close()


def test_contents_is_a_box_above_the_text_on_a_phone(browser, origin):
    visit = Visit(browser, origin, MOBILE).open(origin + "/index.html")
    try:
        style = visit.page.evaluate(
            "() => { const s = getComputedStyle(document.querySelector('d-contents'));"
            " return [s.position, s.cssFloat]; }")
        assert style == ["static", "none"]
        assert active_links(visit.page) == ["#why-count"]
    finally:
        visit.close()


# --- size ------------------------------------------------------------------------------------

def page_height(page) -> int:
    return page.evaluate("document.documentElement.scrollHeight")


def test_desktop_page_is_at_least_8000_px_tall(desktop):
    assert page_height(desktop.page) >= 8000


def test_mobile_page_is_taller_still(browser, origin, desktop):
    visit = Visit(browser, origin, MOBILE).open(origin + "/index.html")
    try:
        assert page_height(visit.page) > 1.3 * page_height(desktop.page)
        assert visit.external == [EMBED]
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


# --- dark mode and the runtime's shadow roots -------------------------------------------------

DARK_MATHS, DARK_CODE = "invert(1) hue-rotate(180deg)", "invert(1) hue-rotate(180deg) brightness(1.3)"


@pytest.mark.parametrize("scheme, filtered", [("light", ["none"] * 4), ("dark", [DARK_MATHS] * 2 + [DARK_CODE] * 2)])
def test_dark_mode_inverts_what_the_runtime_draws_in_shadow_roots(browser, origin, scheme, filtered):
    # KaTeX and Prism colours are fixed inside the shadow roots; the theme's runtime filters
    # turn them light in dark mode (code a little brighter), and leave them alone in light mode.
    visit = Visit(browser, origin, DESKTOP, scheme).open(origin + "/index.html")
    try:
        filters = visit.page.evaluate(
            "() => ['d-math', 'd-math[block]', 'd-code', 'd-code[block]']"
            ".map(s => getComputedStyle(document.querySelector(s)).filter)")
        assert filters == filtered
        # the hover boxes of citations stay near-white in both schemes: their text is dark
        assert visit.page.evaluate("() => getComputedStyle(document.querySelector('d-cite')).filter") == "none"
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
