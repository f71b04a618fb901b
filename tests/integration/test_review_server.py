"""`theme review` end to end: a real failing run's report served on 127.0.0.1, driven in Chromium.

Accept writes the actual image as the baseline (and the next run passes on it), Undo puts the
old bytes back, Reject leaves the baseline alone, progress counts, the commit line appears at
the end; the same HTML opened as a file shows no buttons; the URL's token is required.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from test_pytest_plugin import project, run, set_box_colour  # noqa: F401  (project is a fixture)
from theme.review import Review, serve
from theme.store import Store

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = [pytest.mark.browser, pytest.mark.slow]

BROWSER = os.environ.get("THEME_BROWSER", "/usr/bin/chromium")
ALPHA = "index/desktop-light/box/alpha.png"


@pytest.fixture
def failed(project: Path) -> Path:
    """The plugin tests' tiny article: baselines made, then the box colour changed and checked."""
    assert run(project, "--update-snapshots").returncode == 0
    set_box_colour(project, "#cc3333")
    assert run(project).returncode == 1
    return project


@pytest.fixture(scope="module")
def browser(plain_chromium):
    return plain_chromium


def card(page, key):
    return page.locator(f'.card[data-key="{key}"]')


def test_accept_undo_reject_and_the_commit_line(failed, browser):
    store = Store(failed / "snapshots")
    before = store.path(ALPHA).read_bytes()
    server, url = serve(Review(failed / "visual-report", store, artifacts=(failed / ".theme-artifacts",)))
    try:
        page = browser.new_page()
        page.goto(url)
        progress = page.locator("#progress")
        progress.get_by_text("0 of 4 reviewed").wait_for()
        card(page, ALPHA).get_by_role("button", name="Accept", exact=True).click()
        progress.get_by_text("1 of 4 reviewed").wait_for()
        assert store.path(ALPHA).read_bytes() != before
        assert card(page, ALPHA).get_attribute("data-decision") == "accepted"

        page.get_by_role("button", name="Undo").click()
        progress.get_by_text("0 of 4 reviewed").wait_for()
        assert store.path(ALPHA).read_bytes() == before  # the old baseline, byte for byte

        page.keyboard.press("j")  # the first card, then reject it with a key
        first = page.eval_on_selector(".card.current", "c => c.dataset.key")
        page.keyboard.press("r")
        progress.get_by_text("1 of 4 reviewed").wait_for()
        assert card(page, first).get_attribute("data-decision") == "rejected"

        card(page, ALPHA).get_by_role("button", name="Accept every box").click()
        page.get_by_role("button", name="Accept all shown").click()
        progress.get_by_text("4 of 4 reviewed").wait_for()
        commit = page.locator("#commit code")
        assert commit.text_content().startswith(f"git add {failed / 'snapshots'} && git commit")
    finally:
        server.shutdown()
    # accepted through the store: the next run passes on the new baselines
    assert run(failed).returncode == 0


def test_the_report_as_a_plain_file_has_no_buttons(failed, browser):
    page = browser.new_page()
    page.goto((failed / "visual-report" / "index.html").as_uri())
    card(page, ALPHA).locator(".views").wait_for()
    assert page.get_by_role("button", name="Accept", exact=True).count() == 0
    assert page.locator("#review").is_hidden()
    page.locator(".card").first.get_by_role("button", name="slider").click()  # views still work


def test_the_token_is_required_and_a_foreign_environment_is_refused(failed):
    manifest = failed / "snapshots" / "manifest.json"
    data = json.loads(manifest.read_text())
    for env in data["environments"].values():
        env["browser"]["version"] = "1.0.0.0"
    manifest.write_text(json.dumps(data))
    server, url = serve(Review(failed / "visual-report", Store(failed / "snapshots")))
    try:
        root = url.rsplit("/", 2)[0]
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(f"{root}/index.html")
        assert err.value.code == 404
        request = urllib.request.Request(url.replace("index.html", "api/decide"), method="POST",
                                         data=json.dumps({"keys": [ALPHA], "verdict": "accepted"}).encode())
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(request)
        assert err.value.code == 409 and "environment drift" in json.loads(err.value.read())["error"]
    finally:
        server.shutdown()
