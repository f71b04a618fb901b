"""What real Distill articles add, one small page each (tests/visual/pages/), in a real Chromium.

Every page loads the real Distill v2 runtime; KaTeX is routed from its CDN address
to the vendored npm copy, and everything else that leaves 127.0.0.1 is aborted.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from theme.capture import Session, Variant
from theme.core.config import VisualConfig
from theme.core.errors import CaptureError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runtime_pages import KATEX_ROUTE, PAGES_DIR, site  # noqa: E402

pytestmark = pytest.mark.browser

REGIONS = {"math": "d-math[block]", "chart": "figure.bar-chart", "gif": "img[src$='.gif']", "toc": "d-contents"}


@pytest.fixture(scope="module")
def visual(tmp_path_factory) -> VisualConfig:
    root = site(tmp_path_factory.mktemp("runtime") / "site")
    return VisualConfig(root=root, pages=("undefined-tag.html",), viewports={"desktop": (1280, 800)},
                        color_schemes=("light",), regions=REGIONS, route=KATEX_ROUTE)


@pytest.fixture(scope="module")
def session(visual):
    with Session(visual) as s:
        yield s


def at(page: str, width: int = 1280, height: int = 800) -> Variant:
    return Variant(page, "desktop" if width > 600 else "mobile", width, height, "light")


def same_every_time(session, variant: Variant, times: int = 5):
    """Capture `times` times; assert every page image and region is identical; return the first."""
    caps = [session.capture(variant) for _ in range(times)]
    first = caps[0]
    for cap in caps[1:]:
        assert np.array_equal(cap.image, first.image), f"{variant.page}: the page image differs between captures"
        assert [(r.path, r.box) for r in cap.regions] == [(r.path, r.box) for r in first.regions]
    return first


def colour_rows(image: np.ndarray, x: int, rgb: tuple[int, int, int]) -> np.ndarray:
    return np.nonzero((image[:, x, :3] == rgb).all(axis=1))[0]


def test_a_tag_nothing_defines_is_plain_markup_and_never_waited_for(session):
    cap = session.capture(at("undefined-tag.html"))
    assert {"d-contents", "d-sidenote-list"} <= set(cap.explain["undefined_tags"])
    assert cap.explain["load"]["status"]["mathsPending"] == 0 and cap.explain["load"]["status"]["maths"] >= 1
    assert cap.explain["load"]["seconds"] < session.visual.settle_timeout  # settled, not timed out
    assert [r.key for r in cap.regions].count("math") >= 1


def test_an_unrouted_maths_library_fails_at_once_naming_it_and_the_key_that_helps(visual):
    """KaTeX not routed: its request is aborted, so the render is refused before any wait."""
    unrouted = dataclasses.replace(visual, route={}, settle_timeout=30)
    with Session(unrouted) as s, pytest.raises(CaptureError) as err:
        s.capture(at("undefined-tag.html"))
    message = str(err.value)
    assert "https://distill.pub/third-party/katex/katex.min." in message and "did not load" in message
    assert "`route`" in message and "still waiting" not in message
    # One line per resource (issue 50), each named once: the stylesheet and the script alike.
    listed = [line for line in message.splitlines() if line.startswith("  - ")]
    assert len(listed) == len({line.split(" did not load")[0] for line in listed}) >= 1
    assert all("katex" in line for line in listed) and "more)" not in message


def test_maths_blocked_on_purpose_names_what_was_pending_and_the_key_that_helps(visual):
    """KaTeX blocked on purpose (allow_blocked): every d-math stays empty, and the settle
    stops at settle_timeout naming what was pending."""
    unrouted = dataclasses.replace(visual, route={}, settle_timeout=3,
                                   allow_blocked=("https://distill.pub/third-party/katex/",))
    with Session(unrouted) as s, pytest.raises(CaptureError) as err:
        s.capture(at("undefined-tag.html"))
    message = str(err.value)
    assert "still waiting after 3 s for" in message and "d-math elements to be typeset" in message
    assert "https://distill.pub/third-party/katex/" in message and "`route`" in message
    assert "\n" not in message


@pytest.mark.slow
def test_a_sticky_scroll_spy_toc_is_shown_once_as_a_reader_sees_it_at_the_top(session):
    cap = same_every_time(session, at("sticky-toc.html"))
    assert [how for _name, how, _y in cap.explain["frozen"]["pinned"]] == ["sticky"]
    assert cap.explain["read_through"]["screens"] >= 4  # the scroll-spy listens: the article was read through
    toc = [r for r in cap.regions if r.key == "toc"]
    assert len(toc) == 1 and toc[0].box[1] < 800  # once, on the first screen
    with session.open(at("sticky-toc.html")) as page:  # settled the same way: scrolled through, back at the top
        active = page.evaluate("[...document.querySelectorAll('d-contents a.active')].map(a => a.getAttribute('href'))")
        first = page.evaluate("document.querySelector('d-contents a').getAttribute('href')")
    assert active == [first]


def test_fixed_elements_are_pinned_where_they_sit_at_scroll_0(session):
    cap = same_every_time(session, at("fixed.html"), times=3)
    assert sorted(how for _n, how, _y in cap.explain["frozen"]["pinned"]) == ["fixed", "fixed"]
    bar = colour_rows(cap.image, 640, (0x0d, 0x22, 0x36))
    assert (bar.min(), bar.max()) == (0, 55)  # the 56 px bar at the top, once
    button = colour_rows(cap.image, 1280 - 24 - 8, (0xc2, 0x41, 0x0c))
    assert len(button) and 700 < button.min() and button.max() < 800 - 24  # at the first screen's bottom, once
    assert cap.image.shape[0] > 2400  # the page is several screens tall


@pytest.mark.slow
def test_intersection_observers_end_in_the_readers_state_every_run(session):
    cap = same_every_time(session, at("io-figure.html"))
    assert cap.explain["frozen"]["observers"] >= 3  # the runtime's two and the page's own, disconnected
    with session.open(at("io-figure.html")) as page:
        state = page.evaluate("[document.querySelector('.fig-ready').textContent,"
                              " document.querySelector('.fig-screen').textContent,"
                              " document.getElementById('watched').textContent,"
                              " [...document.images].every(i => i.complete && i.naturalWidth > 0)]")
    assert state == ["ready", "offscreen", "seen 1 times", True]


def test_animated_images_show_their_first_frame(session):
    cap = same_every_time(session, at("gif.html"))
    assert [u.rsplit("/", 1)[1] for u in cap.explain["frozen"]["frozen"]] == ["spinner.gif"]
    (gif,) = [r for r in cap.regions if r.key == "gif"]
    frame0 = np.asarray(Image.open(PAGES_DIR / "assets/gif/spinner.gif").convert("RGBA"))
    crop = cap.crop(gif)
    assert gif.box[2] in (120, 121) and gif.box[3] in (120, 121)  # 120 px at a sub-pixel position
    # Images are painted snapped to whole pixels: frame 0, exactly, at one of the offsets.
    assert any(np.array_equal(crop[dy:dy + 120, dx:dx + 120, :3], frame0[..., :3]) for dy in (0, 1) for dx in (0, 1))


def test_fragments_fetched_after_load_are_in_the_capture(session):
    cap = same_every_time(session, at("fragment.html"), times=3)
    charts = [r for r in cap.regions if r.key == "chart"]
    assert len(charts) == 1 and charts[0].box[3] > 100
    with session.open(at("fragment.html")) as page:
        assert page.evaluate("document.documentElement.dataset.fragments") == "done"
        assert page.evaluate("document.querySelectorAll('.waiting').length") == 0


def test_missing_resources_and_blocked_embeds_do_not_hold_the_capture(session):
    cap = same_every_time(session, at("bib404.html"), times=2)
    assert any(u.startswith("https://www.youtube-nocookie.com/") for u in cap.aborted)
    assert cap.explain["load"]["seconds"] < 10


@pytest.mark.slow
def test_every_page_captures_whole_at_both_widths(session):
    """No page trips the wholeness guard (sticky and fixed text is measured where it is painted)."""
    for name in sorted(p.name for p in PAGES_DIR.glob("*.html")):
        for width, height in ((1280, 800), (390, 844)):
            cap = session.capture(at(name, width, height))
            assert cap.image.shape[1] == width and cap.image.shape[0] >= height
            assert (cap.image[:height] != cap.image[0, 0]).any(axis=2).mean() > 0.01  # the first screen has content


@pytest.mark.slow
def test_capture_explain_says_what_it_waited_for_pinned_and_saw_change(tmp_path):
    """`theme capture --explain` on a real-runtime page and on a page that draws a new
    random number on every load, rendered in real time (real_time: the seeded generator
    would draw the same number each time): the second names the element to mask."""
    import subprocess

    root = site(tmp_path / "site")
    (root / "restless.html").write_text(
        '<!doctype html><html><body style="margin:0;font:20px sans-serif"><h2>Steady</h2>'
        '<p id="lucky">x</p><script>document.getElementById("lucky").textContent ='
        ' "draw " + Math.random().toFixed(6);</script></body></html>')
    (tmp_path / "pyproject.toml").write_text(
        '[tool.theme]\nentry = "scss/style.scss"\noutputs = []\n\n[tool.theme.visual]\nroot = "site"\n'
        'pages = ["sticky-toc.html", "restless.html"]\nreal_time = ["restless.html"]\n'
        'viewports = { desktop = [1280, 800] }\n'
        f'color_schemes = ["light"]\nroute = {{ "https://distill.pub/third-party/katex/" = '
        f'"{KATEX_ROUTE["https://distill.pub/third-party/katex/"].as_posix()}" }}\n')
    done = subprocess.run([sys.executable, "-m", "theme", "capture", "--explain", "-C", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    toc, restless = done.stdout.split("restless/desktop-light:\n")
    assert "undefined tags (plain markup, never waited for): d-contents" in toc
    assert "fixed and sticky, pinned where they sit at scroll 0: 1\n    d-contents (sticky, y=" in toc
    assert "reader's view: scrolled through" in toc and "two captures are identical" in toc
    assert "held at its width for the tiles: <html> and " in toc
    # One box or two: which digits of the number changed decides whether their boxes join.
    changed = restless.split("mask them if they are not yours to fix:\n")[1].splitlines()
    assert "changed between two captures (" in restless and 1 <= len(changed) <= 6
    assert all(line.endswith(": #lucky") for line in changed), changed
