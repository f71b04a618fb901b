"""A page failure's card in a real Chromium: its changed bands in every view, the overview's
marks, keys 1-4, and nothing fetched from beyond the file system.

The failure is real: a striped "page" and a copy with rows inserted and a box recoloured,
checked by theme.check.verdict against a baseline store, written by theme.review.report.write.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from theme.baselines.store import Store
from theme.check import verdict
from theme.core.config import Tolerance
from theme.review import report

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser

KEY = "index/desktop-light/page.png"
W, H = 600, 4000


def pages() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    expected = np.full((H, W, 4), 255, np.uint8)
    for y in range(0, H, 24):
        expected[y:y + 10, 40:560, :3] = rng.integers(0, 140, (10, 520, 3), np.uint8)
    actual = np.concatenate([expected[:900], np.full((50, W, 4), 255, np.uint8), expected[900:]])
    actual[920:940, 60:300, :3] = (20, 80, 210)
    actual[3000:3030, 100:200, :3] = (210, 30, 30)
    return expected, actual


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    root = tmp_path_factory.mktemp("page-bands")
    expected, actual = pages()
    store = Store(root / "snapshots")
    store.write(KEY, expected, {})
    result = verdict.check(verdict.CheckContext.against_baselines(store, root / "art", {}), KEY, actual, Tolerance())
    entry = report.Entry.from_check(result)
    entry = report.Entry(**{**entry.__dict__, "page": "index", "viewport": "desktop", "scheme": "light"})
    return report.write(root / "visual-report", report.Report((entry,), {}, None))


@pytest.fixture
def page(plain_chromium, index):
    context = plain_chromium.new_context(viewport={"width": 1100, "height": 700})
    page = context.new_page()
    page.requests = []
    page.on("request", lambda r: page.requests.append(r.url))
    page.clock.install()
    page.goto(index.as_uri())
    page.wait_for_function("() => [...document.images].every(i => i.complete && i.naturalWidth)")
    yield page
    context.close()


def kinds(page) -> list[list[str]]:
    """data-kind of the images shown in each band, band by band."""
    return page.eval_on_selector_all(
        ".band", "bs => bs.map(b => [...b.querySelectorAll('.stage img')].map(i => i.dataset.kind))")


def test_each_band_shows_expected_actual_and_diff_side_by_side(page):
    captions = page.locator(".band > .meta").all_inner_texts()
    spans = [tuple(map(int, re.findall(r"\d+", c))) for c in captions]
    (_, n1, a0, a1, e0, e1, x0, x1), (_, n2, b0, b1, f0, f1, u0, u1) = spans
    assert n1 == n2 == 2
    # band 1: the 50 inserted rows holding the blue box (x 60-300); the expected side has no such rows
    assert a0 < 920 and 940 < a1 and (e1 - e0) == (a1 - a0) - 50 and (x0, x1) == (20, 340)
    # band 2: the red box (x 100-200), 50 rows further down the actual page than the expected one
    assert b0 < 3000 and 3030 < b1 and (f0, f1) == (b0 - 50, b1 - 50) and (u0, u1) == (60, 240)
    assert kinds(page) == [["expected", "actual", "diff"]] * 2
    sizes = page.eval_on_selector_all(".band .stage img", "is => is.map(i => [i.naturalWidth, i.naturalHeight])")
    assert sizes == [[320, e1 - e0], [320, a1 - a0], [320, a1 - a0], [180, b1 - b0], [180, b1 - b0], [180, b1 - b0]]
    assert all(url.startswith("file://") for url in page.requests)


def test_views_and_keys_work_on_every_band(page):
    card = page.locator(".card")
    card.get_by_role("button", name="diff only").click()
    assert kinds(page) == [["diff"], ["diff"]]
    page.keyboard.press("2")  # slider
    assert page.locator(".band .slider").count() == 2
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)  # blinks only in run_for, even under load
    page.keyboard.press("3")  # blink: every band swaps expected and actual
    assert kinds(page) == [["expected"], ["expected"]]
    page.clock.run_for(700)
    assert kinds(page) == [["actual"], ["actual"]]
    page.keyboard.press("1")
    assert kinds(page) == [["expected", "actual", "diff"]] * 2


def test_the_overview_marks_each_band_where_it_is_and_leads_to_it(page):
    overview = page.locator(".overview img")
    assert overview.get_attribute("data-kind") == "overview"
    box = page.locator(".map").bounding_box()
    marks = page.locator(".mark")
    assert marks.count() == 2
    second = marks.nth(1).bounding_box()
    rows = page.eval_on_selector_all(".band", "bs => bs.map(b => b.querySelector('.meta').textContent)")
    top = int(re.search(r"actual rows (\d+)", rows[1]).group(1))
    assert (second["y"] - box["y"]) / box["height"] == pytest.approx(top / (H + 50), abs=0.01)
    marks.nth(1).click()
    assert abs(page.locator('.band[data-band="2"]').bounding_box()["y"]) < 200  # scrolled to it
