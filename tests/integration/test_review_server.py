"""`theme review` end to end: a real failing run's report served on 127.0.0.1, driven in Chromium.

Accept writes the actual image as the baseline (and the next run passes on it), Undo puts the
old bytes back, Reject leaves the baseline alone, progress counts, the commit line appears at
the end; the same HTML opened as a file shows no buttons; the URL's token is required.
"""

from __future__ import annotations

import json
import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

import tiny_article
from theme.baselines.store import Store
from theme.pixels.images import read_png
from theme.review.server import Review, serve
from tiny_article import run, set_box_colour

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = [pytest.mark.browser, pytest.mark.slow]

BROWSER = os.environ.get("THEME_BROWSER", "/usr/bin/chromium")
ALPHA = "index/desktop-light/box/alpha.png"


# How long a page may take to show what a test waits for: Playwright's 30 s default was
# once too short on a loaded 2-core machine. Patience, not a limit on how fast it must be.
PATIENCE_MS = 120_000


@pytest.fixture(scope="module")
def failed_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plugin tests' tiny article: baselines made, then the box colour changed and checked.
    Made once for the module, not once a test: every test started with these same two runs."""
    project = tiny_article.make(tmp_path_factory.mktemp("failed"))
    assert run(project, "--update-snapshots").returncode == 0
    set_box_colour(project, "#cc3333")
    assert run(project).returncode == 1
    return project


@pytest.fixture
def failed(failed_once: Path, tmp_path: Path) -> Path:
    """A copy of it for one test, which accepts, rejects and serves in it as it likes."""
    return shutil.copytree(failed_once, tmp_path / "failed", symlinks=True)


@pytest.fixture(scope="module")
def browser(plain_chromium):
    return plain_chromium


def card(page, key):
    return page.locator(f'.card[data-key="{key}"]')


def test_accept_undo_reject_and_the_commit_line(failed, browser):
    store = Store(failed / "snapshots")
    before = store.path(ALPHA).read_bytes()
    others = {k: store.path(k).read_bytes() for k in store.keys() if k != ALPHA}
    listed = store.read_manifest()["baselines"][ALPHA]
    server, url = serve(Review(failed / "visual-report", store, artifacts=(failed / ".theme-artifacts",)))
    try:
        page = browser.new_page()
        page.set_default_timeout(PATIENCE_MS)
        page.goto(url)
        progress = page.locator("#progress")
        progress.get_by_text("0 of 4 reviewed").wait_for()
        card(page, ALPHA).get_by_role("button", name="Accept", exact=True).click()
        progress.get_by_text("1 of 4 reviewed").wait_for()
        actual = read_png(failed / ".theme-artifacts" / ALPHA.replace(".png", ".actual.png"))
        assert np.array_equal(store.read(ALPHA), actual)  # the baseline is now the actual image
        assert store.read_manifest()["baselines"][ALPHA] != listed  # and the manifest says so
        assert {k: store.path(k).read_bytes() for k in others} == others  # nothing else was touched
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
    page.set_default_timeout(PATIENCE_MS)
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
        assert err.value.code == 403
        request = urllib.request.Request(url.replace("index.html", "api/decide"), method="POST",
                                         data=json.dumps({"keys": [ALPHA], "verdict": "accepted"}).encode())
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(request)
        assert err.value.code == 409 and "environment drift" in json.loads(err.value.read())["error"]
    finally:
        server.shutdown()


def _status(url: str) -> int:
    try:
        return urllib.request.urlopen(url).status
    except urllib.error.HTTPError as err:
        return err.code


def test_the_server_refuses_paths_outside_the_report(failed, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the browser")
    (failed / "visual-report" / "escape").symlink_to(tmp_path)
    server, url = serve(Review(failed / "visual-report", Store(failed / "snapshots")))
    try:
        base = url.rsplit("/", 1)[0]
        assert _status(f"{base}/index.html") == 200
        assert _status(url.replace(url.split("/")[3], "not-the-token")) == 403
        for path in ("../snapshots/manifest.json", "%2e%2e/snapshots/manifest.json", "..%2f..%2fpyproject.toml",
                     "images/../../snapshots/manifest.json", "escape/secret.txt", "/etc/passwd"):
            raw = urllib.request.Request(f"{base}/{path}")
            raw.full_url = f"{base}/{path}"  # sent as written: urllib does not normalise `..`
            assert _status(raw.full_url) == 403, path
    finally:
        server.shutdown()


def test_a_kill_during_an_accept_leaves_each_baseline_old_or_new(failed):
    """SIGKILL `theme review` while it writes a group accept: every baseline decodes and is
    either its old image or the actual one, and the manifest is valid JSON."""
    import signal
    import subprocess
    import sys

    store = Store(failed / "snapshots")
    rep = json.loads((failed / "visual-report" / "report.json").read_text())
    keys = sorted(e["key"] for e in rep["entries"] if e["status"] == "failed")
    old = {k: store.read(k) for k in keys}
    new = {k: read_png(failed / ".theme-artifacts" / k.replace(".png", ".actual.png")) for k in keys}
    before = {k: store.path(k).read_bytes() for k in keys}
    proc = subprocess.Popen([sys.executable, "-m", "theme", "review", "--no-open", "-C", str(failed)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = proc.stdout.readline().strip()
        request = urllib.request.Request(url.replace("index.html", "api/decide"), method="POST",
                                         data=json.dumps({"keys": keys, "verdict": "accepted"}).encode())
        import threading
        threading.Thread(target=lambda: _status_of(request), daemon=True).start()
        while all(store.path(k).read_bytes() == before[k] for k in keys) and proc.poll() is None:
            pass  # kill as soon as the first baseline has changed: the others are being written
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    json.loads((failed / "snapshots" / "manifest.json").read_text())
    changed = 0
    for k in keys:
        now = store.read(k)  # decodes: never half-written
        assert np.array_equal(now, old[k]) or np.array_equal(now, new[k]), k
        changed += not np.array_equal(now, old[k])
    assert changed >= 1


def _status_of(request) -> None:
    try:
        urllib.request.urlopen(request)
    except Exception:  # noqa: BLE001 - the server is killed mid-answer
        pass


def test_groups_by_cause_head_their_cards_and_accept_as_one(failed, browser):
    # One rule changed (the box colour): its images form group 1, and the page is one group
    # more. Each group heads its cards, and "Accept group 1" accepts exactly its cards.
    groups = json.loads((failed / "visual-report" / "report.json").read_text())["groups"]
    first = groups[0]
    assert first["number"] == 1 and "background-color" in first["summary"], groups
    store = Store(failed / "snapshots")
    others = {k: store.path(k).read_bytes() for k in store.keys() if k not in first["ids"]}
    server, url = serve(Review(failed / "visual-report", store, artifacts=(failed / ".theme-artifacts",)))
    try:
        page = browser.new_page()
        page.set_default_timeout(PATIENCE_MS)
        page.goto(url)
        page.locator("#progress").get_by_text("0 of 4 reviewed").wait_for()
        headings = page.locator(".group > h2").all_text_contents()
        assert headings == [f"{g['number']}. {g['summary']}" for g in groups]
        in_first = page.eval_on_selector_all("#group-1 .card", "cs => cs.map(c => c.dataset.key)")
        assert sorted(in_first) == sorted(first["ids"])
        page.get_by_role("button", name="Accept group 1").click()
        page.locator("#progress").get_by_text(f"{len(first['ids'])} of 4 reviewed").wait_for()
        decided = page.eval_on_selector_all(".card[data-decision=accepted]", "cs => cs.map(c => c.dataset.key)")
        assert sorted(decided) == sorted(first["ids"])
        assert {k: store.path(k).read_bytes() for k in others} == others  # nothing outside the group
    finally:
        server.shutdown()
