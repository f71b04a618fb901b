"""The HTML review report in a real Chromium, opened from the file system as a reviewer opens it.

The report is written by theme.review.report.write from a handmade Report whose
images are real small PNGs with known colours, so each view can be checked by
what it shows: the slider's top layer narrows, blink swaps expected for actual,
diff-only shows the diff, zoom scales, the filters hide cards.
Blink is driven by Playwright's fake clock (page.clock), not by waiting.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from theme.review import report

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

BROWSER = os.environ.get("THEME_BROWSER", "/usr/bin/chromium")
W, H = 40, 30
WIDE = 900  # three of these side by side are wider than the window
COLOURS = {"expected": (30, 136, 229), "actual": (229, 57, 53), "diff": (255, 0, 0)}
DRIFT = "environment drift: baselines were made with browser chromium 120; this run uses chromium 156."


def png(path: Path, rgb: tuple[int, int, int], size: tuple[int, int] = (W, H)) -> str:
    pixels = np.zeros((size[1], size[0], 4), np.uint8)
    pixels[..., :3] = rgb
    pixels[..., 3] = 255
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(pixels, "RGBA").save(path)
    return str(path)


def entry(art: Path, key: str, status: str, kinds: tuple[str, ...], size=(W, H), **fields) -> report.Entry:
    images = {k: png(art / key.replace("/", "_") / f"{k}.png", COLOURS[k], size) for k in kinds}
    diff = {"diff_pixels": 600, "ratio": 0.5, "failed_rule": "600 pixels differ", "size_mismatch": False,
            "expected_size": [W, H], "actual_size": [W, H], "boxes": [[0, 0, 20, 30]],
            "shifts": [{"y": 10, "by": 4, "text": "content below y=10 moved down by 4 px"}]}
    return report.Entry(key=key, status=status, images=images, message=f"{key}: {status}",
                        diff=diff if "diff" in kinds else None, **fields)


def sample(art: Path, drift: str | None) -> report.Report:
    both = ("expected", "actual", "diff")
    return report.Report((
        entry(art, "index/desktop-dark/note-box/memory.png", "failed", both, page="index",
              viewport="desktop", scheme="dark", region_key="note-box", heading="Memory usage"),
        entry(art, "index/mobile-light/page.png", "failed", both, size=(WIDE, H), page="index",
              viewport="mobile", scheme="light"),
        entry(art, "guide/desktop-light/code/setup.png", "created", ("actual",), page="guide",
              viewport="desktop", scheme="light", region_key="code", heading="Setup"),
        entry(art, "index/desktop-light/figure/results.png", "updated", ("actual",), page="index",
              viewport="desktop", scheme="light", region_key="figure"),
        entry(art, "index/mobile-dark/math/proof.png", "added", ("actual",), page="index",
              viewport="mobile", scheme="dark", region_key="math"),
        entry(art, "index/mobile-dark/code/old.png", "removed", ("expected",), page="index",
              viewport="mobile", scheme="dark", region_key="code"),
        report.Entry(key="index/desktop-dark/page.png", status="matched", page="index",
                     viewport="desktop", scheme="dark", realigned=True),
        report.Entry(key="old/desktop-light/page.png", status="unused", message=HOSTILE),
    ), {"browser": {"name": "chromium", "version": "156"}}, drift)


NON_MATCHED = 7
# A message is free text from the run: it must show as text, never end the script or run.
HOSTILE = "<!--<script> </script><script>window.pwned = 1</script> {{TITLE}} <b>bold</b>"
FAILED_NOTE = "index/desktop-dark/note-box/memory.png"


@pytest.fixture(scope="module")
def browser(plain_chromium):
    return plain_chromium


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("report-html")
    return {
        "drift": report.write(root / "with-drift", sample(root / "art", DRIFT)),
        "plain": report.write(root / "plain", sample(root / "art", None)),
    }


@pytest.fixture
def opened(browser, written):
    """Open a report page; every request the page makes is recorded."""
    pages = []

    def open_report(which: str = "drift"):
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        page = context.new_page()
        page.requests = []
        page.on("request", lambda r: page.requests.append(r.url))
        page.clock.install()  # timers (blink) advance only when the test says so
        page.goto(written[which].as_uri())
        pages.append(context)
        return page

    yield open_report
    for context in pages:
        context.close()


def card(page, key: str):
    return page.locator(f'.card[data-key="{key}"]')


def visible_cards(page) -> list[str]:
    return page.eval_on_selector_all(
        ".card", "cs => cs.filter(c => c.offsetParent !== null).map(c => c.dataset.key)")


# ---------------------------------------------------------------- content


def test_one_card_per_entry_to_review_and_images_load(opened):
    page = opened()
    keys = page.eval_on_selector_all(".card", "cs => cs.map(c => c.dataset.key)")
    assert len(keys) == NON_MATCHED
    assert "index/desktop-dark/page.png" not in keys  # matched: nothing to review
    assert keys == [FAILED_NOTE, "index/mobile-light/page.png",  # failed first, then by status
                    "index/mobile-dark/math/proof.png", "index/mobile-dark/code/old.png",
                    "guide/desktop-light/code/setup.png", "index/desktop-light/figure/results.png",
                    "old/desktop-light/page.png"]
    note = card(page, FAILED_NOTE)
    assert "note-box in “Memory usage”" in note.inner_text()
    assert "600 pixels differ" in note.inner_text() and "moved down by 4 px" in note.inner_text()
    assert "600 px differ" not in note.inner_text()  # the count is said once, by the failed rule
    shown = note.locator(".stage img")
    assert shown.count() == 3  # side by side: expected, actual, diff
    assert page.eval_on_selector_all(
        f'.card[data-key="{FAILED_NOTE}"] .stage img', "is => is.map(i => i.complete && i.naturalWidth)"
    ) == [W, W, W]
    counts = page.locator("#counts").inner_text()
    assert all(f"{n} {s}" in counts for n, s in ((2, "failed"), (1, "added"), (1, "removed"), (1, "matched")))
    assert "1 added, 1 removed" in page.locator("h1").inner_text()
    assert page.locator("#realigned").inner_text().startswith(
        "1 matched only at their baseline's sub-pixel position")


def test_free_text_is_shown_as_text(opened):
    page = opened()
    assert page.evaluate("() => window.pwned") is None
    assert card(page, "old/desktop-light/page.png").locator("pre.msg").inner_text() == HOSTILE


def side_widths(page, key: str) -> tuple[float, float]:
    """(sum of the side-by-side images' shown widths, the stage's inner width)."""
    return page.evaluate("""key => { const c = document.querySelector(`.card[data-key="${key}"]`);
        const ws = [...c.querySelectorAll(".stage .side img")].map(i => i.getBoundingClientRect().width);
        return [ws.reduce((a, b) => a + b, 0), c.querySelector(".stage").clientWidth]; }""", key)


@pytest.mark.parametrize("window", [1200, 700])
def test_side_by_side_fits_a_wide_pair_in_the_card_at_any_width(opened, window):
    """Three 900-px images side by side are scaled to the card, so the actual one is never cut
    off at the right edge; the page never widens; zoom still enlarges them, then the stage scrolls."""
    page = opened()
    page.set_viewport_size({"width": window, "height": 900})
    key = "index/mobile-light/page.png"
    page.wait_for_function("""key => { const c = document.querySelector(`.card[data-key="${key}"]`);
        return [...c.querySelectorAll(".side img")].every(i => i.complete && i.naturalWidth); }""", arg=key)
    page.wait_for_timeout(100)  # the ResizeObserver's turn
    shown, room = side_widths(page, key)
    assert 0.8 * room < shown <= room, (shown, room)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= window
    wide = card(page, key)
    assert wide.locator(".stage").evaluate("s => s.scrollWidth <= s.clientWidth")
    wide.get_by_label("zoom").fill("2")
    page.wait_for_timeout(100)
    zoomed, _ = side_widths(page, key)
    assert zoomed == pytest.approx(2 * shown, rel=0.02)
    assert wide.locator(".stage").evaluate("s => s.scrollWidth > s.clientWidth")
    tops = page.eval_on_selector_all(f'.card[data-key="{key}"] .side img',
                                     "is => is.map(i => i.getBoundingClientRect().top)")
    assert max(tops) - min(tops) < 1  # zoomed as one: still side by side, aligned


def test_keys_move_between_cards_and_switch_views(opened):
    page = opened()
    page.keyboard.press("j")
    first = page.eval_on_selector(".card.current", "c => c.dataset.key")
    page.keyboard.press("j")
    second = page.eval_on_selector(".card.current", "c => c.dataset.key")
    assert first != second and page.locator(".card.current").count() == 1
    page.keyboard.press("k")
    assert page.eval_on_selector(".card.current", "c => c.dataset.key") == first
    current = page.locator(".card.current")
    for key, name in (("2", "slider"), ("4", "diff only"), ("1", "side by side")):
        page.keyboard.press(key)
        assert current.get_by_role("button", name=name).get_attribute("aria-pressed") == "true"


def test_no_request_leaves_the_file_system(opened):
    page = opened()
    for mode in ("slider", "blink", "diff only", "side by side"):
        card(page, FAILED_NOTE).get_by_role("button", name=mode).click()
    page.clock.run_for(2000)
    assert page.requests, "the page and its images are requests too"
    assert all(url.startswith("file://") for url in page.requests), page.requests


# ---------------------------------------------------------------- views


def test_slider_moves_the_top_layer(opened):
    page = opened()
    note = card(page, FAILED_NOTE)
    note.get_by_role("button", name="slider").click()
    top = note.locator(".slider .top")
    at_half = top.bounding_box()["width"]
    note.get_by_label("slider position").fill("20")
    at_fifth = top.bounding_box()["width"]
    assert at_half == pytest.approx(W * 0.5, abs=1)
    assert at_fifth == pytest.approx(W * 0.2, abs=1)
    # the top layer shows the expected image over the actual one
    assert top.locator("img").get_attribute("data-kind") == "expected"
    assert note.locator(".slider > img").get_attribute("data-kind") == "actual"


def test_blink_swaps_expected_and_actual(opened):
    page = opened()
    # Installed, the clock still follows real time: under load a blink would come early.
    # Paused, its timer fires only in run_for.
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)
    note = card(page, FAILED_NOTE)
    note.get_by_role("button", name="blink").click()
    img = note.locator(".stage img")
    seen = []
    for _ in range(4):
        seen.append((img.get_attribute("data-kind"), img.get_attribute("src").rsplit(".", 2)[-2]))
        page.clock.run_for(700)
    assert seen == [("expected", "expected"), ("actual", "actual")] * 2


def test_diff_only_shows_only_the_diff(opened):
    page = opened()
    note = card(page, FAILED_NOTE)
    note.get_by_role("button", name="diff only").click()
    imgs = note.locator(".stage img")
    assert imgs.count() == 1
    assert imgs.get_attribute("data-kind") == "diff"
    assert imgs.get_attribute("src").endswith("memory.diff.png")
    assert note.get_by_role("button", name="diff only").get_attribute("aria-pressed") == "true"


@pytest.mark.parametrize("mode", ["side by side", "slider", "diff only"])
def test_zoom_scales_what_is_shown(opened, mode):
    page = opened()
    note = card(page, FAILED_NOTE)
    note.get_by_role("button", name=mode).click()
    note.get_by_label("zoom").fill("2")
    transforms = page.eval_on_selector_all(
        f'.card[data-key="{FAILED_NOTE}"] .stage *', "ns => ns.map(n => getComputedStyle(n).transform)")
    assert "matrix(2, 0, 0, 2, 0, 0)" in transforms
    widths = page.eval_on_selector_all(
        f'.card[data-key="{FAILED_NOTE}"] .stage img', "is => is.map(i => i.getBoundingClientRect().width)")
    assert widths and all(w == pytest.approx(2 * W, abs=0.5) for w in widths)
    if mode == "slider":  # the slider still splits the zoomed picture where it says
        note.get_by_label("slider position").fill("25")
        assert note.locator(".slider .top").bounding_box()["width"] == pytest.approx(2 * W * 0.25, abs=1)


def test_cards_without_expected_say_so_in_slider_and_blink(opened):
    page = opened()
    created = card(page, "guide/desktop-light/code/setup.png")
    created.get_by_role("button", name="slider").click()
    assert "needs expected and actual" in created.locator(".stage").inner_text()


# ---------------------------------------------------------------- filters


@pytest.mark.parametrize("field, value, expected", [
    ("status", "failed", {FAILED_NOTE, "index/mobile-light/page.png"}),
    ("status", "added", {"index/mobile-dark/math/proof.png"}),
    ("page", "guide", {"guide/desktop-light/code/setup.png"}),
    ("viewport", "mobile", {"index/mobile-light/page.png", "index/mobile-dark/math/proof.png",
                            "index/mobile-dark/code/old.png"}),
    ("scheme", "dark", {FAILED_NOTE, "index/mobile-dark/math/proof.png", "index/mobile-dark/code/old.png"}),
    ("region_key", "code", {"guide/desktop-light/code/setup.png", "index/mobile-dark/code/old.png"}),
    ("region_key", "(whole page)", {"index/mobile-light/page.png"}),
])
def test_filters_filter(opened, field, value, expected):
    page = opened()
    assert len(visible_cards(page)) == NON_MATCHED
    page.select_option(f'#filters select[name="{field}"]', value)
    assert set(visible_cards(page)) == expected
    page.select_option(f'#filters select[name="{field}"]', "")
    assert len(visible_cards(page)) == NON_MATCHED


def test_filters_combine(opened):
    page = opened()
    page.select_option('#filters select[name="viewport"]', "mobile")
    page.select_option('#filters select[name="scheme"]', "dark")
    page.select_option('#filters select[name="region_key"]', "code")
    assert visible_cards(page) == ["index/mobile-dark/code/old.png"]


# ---------------------------------------------------------------- drift


def test_drift_banner_only_when_drift_is_set(opened):
    with_drift = opened("drift")
    banner = with_drift.locator("#drift")
    assert banner.is_visible()
    assert "chromium 120" in banner.inner_text()
    plain = opened("plain")
    assert not plain.locator("#drift").is_visible()


def test_a_page_card_charts_its_shifts_with_the_group_that_caused_them(browser, tmp_path):
    # A figure caption grew (group 1) and content below it moved down 6 px; further down an
    # unrelated 2 px move has no failed region to blame. The page card draws both moves on its
    # overview and lists them in a table with the likely cause.
    art = tmp_path / "art"
    caption = (("figcaption", "font-size", "12px", "14px"),)
    figure = entry(art, "index/desktop-light/figure/a.png", "failed", ("expected", "actual", "diff"), page="index",
                   viewport="desktop", scheme="light", region_key="figure", heading="Results",
                   style_changes=caption, why="figure in “Results”: `figcaption` font-size 12px → 14px",
                   expected_box=(0.0, 100.0, 600.0, 80.0), box=(0.0, 100.0, 600.0, 86.0))
    shifts = [{"y": 170, "by": 6, "text": "content below y=170 moved down by 6 px"},
              {"y": 900, "by": 2, "text": "content below y=900 moved down by 2 px"}]
    page_entry = entry(art, "index/desktop-light/page.png", "failed", ("expected", "actual", "diff"), page="index",
                       viewport="desktop", scheme="light")
    page_entry = dataclasses.replace(
        page_entry, diff={**(page_entry.diff or {}), "shifts": shifts},
        overview={"image": png(art / "overview.png", COLOURS["actual"], (40, 100)), "height": 1000, "width": 400,
                  "scale": 10})
    written = report.write(tmp_path / "report", report.Report((figure, page_entry), {}, None))
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    try:
        page.goto(written.as_uri())
        page_card = card(page, "index/desktop-light/page.png")
        assert page_card.locator(".shift").all_text_contents() == ["+6 g1", "+2"]
        tops = page_card.locator(".shift").evaluate_all("ts => ts.map(t => t.style.top)")
        assert tops == ["17%", "90%"]
        page_card.locator("details.shifts summary").click()
        rows = page_card.locator("details.shifts tr").evaluate_all(
            "rs => rs.slice(1).map(r => [...r.cells].map(c => c.textContent))")
        assert rows == [["170", "+6 px", "group 1"], ["900", "+2 px", "—"]]
        heading = page.locator("#group-1 > h2").text_content()
        assert heading.startswith("1. 1 figure: `figcaption` font-size 12px → 14px")
        # The header leads with the story (issue 49): the first group, a link to it, then how many more.
        story = page.locator("#story")
        assert story.is_visible() and story.inner_text() == heading + " and 1 more group below"
        assert story.locator("a").get_attribute("href") == "#group-1"
    finally:
        page.close()
