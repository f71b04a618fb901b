"""The installed SCSS library on someone else's article: the Distill template's example,
unchanged but for one <link> to the style.css an entry of its own builds from
`@import "theme/…"` (no scss/ copied from this repository), rendered in a real Chromium.

Dark: every text the reader sees, in the page and inside the runtime's shadow roots (KaTeX,
Prism, the citation and footnote hover boxes), has a WCAG contrast of at least 4.5:1 with
what is painted behind it. Dark mode switched off: the page stays light under a dark
preference, and the three overridden tokens are what the browser applies. (Light is the
runtime's own look where the theme leaves it: Prism's #999 punctuation is 2.7:1 there.)
Fonts: the example ships none of the stacks' text fonts, and digits and spaces are still
drawn by a text font, as wide as without the emoji font, while an emoji comes in colour.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from theme.capture import Session, variants
from theme.core.config import VisualConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
from page_contrast import COLLECT_JS, measure  # noqa: E402
from runtime_pages import example_site  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
KATEX = REPO / "article/dist/assets/katex"
KATEX_CDN = "https://distill.pub/third-party/katex/"
WCAG_TEXT = 4.5
HOVER_TRIGGERS = ("d-cite", "d-footnote")
# Runs of the article's own text with spaces or digits: body, heading and table stacks.
TEXT_RUNS = [("d-article p", "the 2D plane"), ("d-article h2", "A Brief Survey of Techniques"),
             ("d-article td", "654"), ("d-byline", "Jan. 10, 2017")]
INSTALLED_EMOJI = '"Noto Color Emoji"'  # the system font (fc-list); the example ships no emoji font
EMOJI = "\U0001F4DD"  # the specimen's note-box titles start with it

# The width of `run` where the page draws it, and of the same run in a span beside it with
# the element's stack less its emoji fonts, and in the installed emoji font alone.
RUN_WIDTHS_JS = """([selector, run, emojiFont]) => {
  const el = [...document.querySelectorAll(selector)].find(e => e.textContent.includes(run));
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  let node = walk.nextNode();
  while (!node.data.includes(run)) node = walk.nextNode();
  const range = document.createRange();
  range.setStart(node, node.data.indexOf(run));
  range.setEnd(node, node.data.indexOf(run) + run.length);
  const host = node.parentElement;
  const stack = getComputedStyle(host).fontFamily;
  const width = (family) => {
    const probe = document.createElement('span');
    probe.style.cssText = `display: inline-block; white-space: pre; font-family: ${family}`;
    probe.textContent = run;
    host.appendChild(probe);
    const w = probe.getBoundingClientRect().width;
    probe.remove();
    return w;
  };
  const textFonts = stack.split(',').filter(f => !/emoji/i.test(f)).join(',');
  return {stack, lines: range.getClientRects().length, drawn: range.getBoundingClientRect().width,
          text: width(textFonts), emoji: width(emojiFont)};
}"""

OVERRIDES = """\
$theme-dark-mode: false;
$page-font-size: 19px;
$light-roles: ("page-background": #fdf6e3, "text-color": #2b2118);
"""


def article(root: Path, entry: str) -> Path:
    """The example article in `root/site`, with style.css built from `entry` by `theme build`."""
    site = example_site(root / "site")
    page = site / "index.html"
    html = page.read_text()
    script = '<script src="template.v2.js"></script>'
    page.write_text(html.replace(script, script + '\n  <link rel="stylesheet" href="style.css">', 1))
    (root / "scss").mkdir()
    (root / "scss/article.scss").write_text(entry)
    (root / "pyproject.toml").write_text(
        '[tool.theme]\nentry = "scss/article.scss"\noutputs = ["site/style.css"]\n')
    built = subprocess.run([sys.executable, "-m", "theme", "build"], cwd=root, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    return site


def session_for(site: Path) -> Session:
    # In real time: these tests drive raw pages (hover, then wait for the runtime's own timer to
    # hide the box), where no settle moves page time.
    return Session(VisualConfig(root=site, pages=("index.html",), color_schemes=("dark",),
                                route={KATEX_CDN: KATEX}, real_time=("index.html",)))


@pytest.fixture(scope="module")
def dark_session(tmp_path_factory):
    site = article(tmp_path_factory.mktemp("library"), '@import "theme/all";\n')
    with session_for(site) as s:
        yield s


@pytest.fixture(scope="module")
def light_only_session(tmp_path_factory):
    site = article(tmp_path_factory.mktemp("light-only"),
                   OVERRIDES + '@import "theme/base";\n@import "theme/components/page";\n'
                   '@import "theme/components/math";\n@import "theme/components/code";\n')
    with session_for(site) as s:
        yield s


@pytest.mark.parametrize("viewport", ["mobile", "desktop"])
def test_every_text_of_the_dark_article_reads_at_4_5_to_1(dark_session, viewport):
    variant = next(v for v in variants(dark_session.visual) if v.viewport == viewport)
    with dark_session.open(variant) as page:
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
        texts = measure(page.evaluate(COLLECT_JS, None))
    inside = {part: [t for t in texts if t.within(part)] for part in ("d-math", "d-code", "d-cite", "d-footnote")}
    assert all(inside.values()), {k: len(v) for k, v in inside.items()}  # shadow roots were reached
    assert len(texts) > 100
    low = [str(t) for t in texts if t.ratio < WCAG_TEXT]
    assert low == [], "\n".join(low)


def test_the_measure_agrees_with_the_pixels_chromium_painted(dark_session):
    """The background the measure computes (filters, translucency) is the colour the
    screenshot shows most under each text: the model is the rendering, not a guess."""
    variant = next(v for v in variants(dark_session.visual) if v.viewport == "desktop")
    with dark_session.open(variant) as page:
        texts = measure(page.evaluate(COLLECT_JS, None))
        shot = page.screenshot(full_page=True)
    pixels = np.asarray(Image.open(io.BytesIO(shot)).convert("RGB")).astype(int)
    checked, wrong = 0, []
    for t in texts:
        x, y, w, h = (round(v) for v in t.rect)
        box = pixels[max(y, 0):y + h, max(x, 0):x + w].reshape(-1, 3)
        if len(box) < 50:
            continue
        colours, counts = np.unique(box, axis=0, return_counts=True)
        seen = colours[counts.argmax()]
        expected = np.array([round(c * 255) for c in t.background])
        checked += 1
        if np.abs(seen - expected).max() > 3:
            wrong.append(f"{t}: the screenshot shows #{''.join(f'{c:02x}' for c in seen)}")
    assert checked > 100
    assert len(wrong) <= checked // 50, "\n".join(wrong)  # a few rects overlap other boxes


@pytest.mark.parametrize("trigger", HOVER_TRIGGERS)
def test_hover_boxes_read_at_4_5_to_1_in_dark(dark_session, trigger):
    variant = next(v for v in variants(dark_session.visual) if v.viewport == "desktop")
    with dark_session.open(variant) as page:
        shown = page.locator(f"d-article {trigger} >> visible=true")  # not those inside a footnote
        count = shown.count()
        assert count >= 2
        measured = []
        for i in range(count):
            shown.nth(i).hover()
            page.wait_for_function("""() => [...document.querySelectorAll('d-cite, d-footnote')]
                .some(e => e.shadowRoot
                           && getComputedStyle(e.shadowRoot.querySelector('d-hover-box')).display !== 'none')""")
            texts = measure(page.evaluate(COLLECT_JS, "d-hover-box"))
            assert texts, f"{trigger} #{i}: its hover box shows no text"
            measured += texts
            page.mouse.move(0, 0)
            page.wait_for_function("""() => [...document.querySelectorAll('d-cite, d-footnote')]
                .every(e => !e.shadowRoot
                            || getComputedStyle(e.shadowRoot.querySelector('d-hover-box')).display === 'none')""")
    low = [str(t) for t in measured if t.ratio < WCAG_TEXT]
    assert low == [], "\n".join(low)


def test_dark_mode_off_keeps_the_page_light_with_the_overridden_tokens(light_only_session):
    variant = next(v for v in variants(light_only_session.visual) if v.viewport == "desktop")
    with light_only_session.open(variant) as page:
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
        body = page.evaluate("(() => { const s = getComputedStyle(document.body);"
                             " return [s.backgroundColor, s.color, s.fontSize]; })()")
        filters = page.evaluate("[...document.querySelectorAll('d-math, d-code')].map(e => getComputedStyle(e).filter)")
        note_boxes = page.evaluate(
            "getComputedStyle(document.documentElement).getPropertyValue('--theme-note-box-background')")
    assert body == ["rgb(253, 246, 227)", "rgb(43, 33, 24)", "19px"]
    assert filters and set(filters) == {"none"}  # no dark inversion of what the runtime drew
    assert note_boxes == "#f1f6fe"  # every role is defined (base), the light value under a dark preference


def coloured_pixels(png: bytes) -> int:
    """Pixels whose channels differ by more than 60: colour, where text is grey on grey."""
    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    return int(((rgb.max(axis=2) - rgb.min(axis=2)) > 60).sum())


def test_digits_and_spaces_are_drawn_by_a_text_font_not_the_emoji_font(dark_session):
    """Noto Color Emoji has digits, space, # and *: a stack naming it before its generic family
    drew them, wide, wherever its text fonts are missing, as on this example."""
    variant = next(v for v in variants(dark_session.visual) if v.viewport == "desktop")
    with dark_session.open(variant) as page:
        runs = {run: page.evaluate(RUN_WIDTHS_JS, [selector, run, INSTALLED_EMOJI]) for selector, run in TEXT_RUNS}
    # The check can tell the fonts apart: in the emoji font, each run is much wider.
    assert all(r["emoji"] > 1.15 * r["text"] for r in runs.values()), runs
    wide = {run: f"{r['drawn']:.1f} px on {r['lines']} line(s), {r['text']:.1f} px in its text fonts ({r['stack']})"
            for run, r in runs.items() if r["lines"] != 1 or abs(r["drawn"] - r["text"]) > 0.5}
    assert wide == {}


def test_an_emoji_in_the_text_is_drawn_in_colour_by_the_installed_emoji_font(dark_session):
    """And a character that is text by default (the heart) in colour only with U+FE0F."""
    spans = {"drawn": (EMOJI, ""), "reference": (EMOJI, INSTALLED_EMOJI),  # "": the paragraph's stack
             "heart": ("\u2764", ""), "heart-emoji": ("\u2764\ufe0f", "")}
    variant = next(v for v in variants(dark_session.visual) if v.viewport == "desktop")
    with dark_session.open(variant) as page:
        page.evaluate("""(spans) => {
          const p = document.querySelector('d-article p');
          for (const [id, [text, family]] of Object.entries(spans)) {
            const span = document.createElement('span');
            span.id = id;
            span.style.fontFamily = family;
            span.textContent = text;
            p.append(' ', span);
          }
        }""", spans)
        page.evaluate("document.fonts.ready.then(() => true)")
        faces = page.evaluate("[...document.fonts].filter(f => /^.?Theme Emoji.?$/.test(f.family)).map(f => f.status)")
        widths = {id: page.locator(f"#{id}").bounding_box()["width"] for id in spans}
        colour = {id: coloured_pixels(page.locator(f"#{id}").screenshot()) for id in spans}
    assert faces == ["loaded"]  # the library's alias found the installed font (local())
    assert abs(widths["drawn"] - widths["reference"]) < 0.5, widths
    # as colourful as in the emoji font itself (the two sit a fraction of a pixel apart)
    assert colour["reference"] > 50 and colour["drawn"] > 0.8 * colour["reference"], colour
    assert colour["heart"] == 0 and colour["heart-emoji"] > 50, colour
