"""Fixtures shared by test folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def plain_chromium():
    """A plain Playwright Chromium (no theme engine around it), for tests that open pages
    theme wrote (the report), as a reviewer's browser would. Skips when there is none."""
    sync_api = pytest.importorskip("playwright.sync_api")
    executable = os.environ.get("THEME_BROWSER", "/usr/bin/chromium")
    if not Path(executable).exists():
        pytest.skip(f"no Chromium at {executable} (set THEME_BROWSER)")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=["--no-sandbox"], headless=True)
        yield browser
        browser.close()


@pytest.fixture
def serve_browser():
    """Starts `theme browser serve` processes, as a user or a container runs them; each is
    stopped after the test. Returns theme.capture.remote.Served (endpoint, process)."""
    import subprocess
    import sys

    from theme.capture import remote

    started = []

    def start() -> remote.Served:
        process = subprocess.Popen([sys.executable, "-m", "theme", "browser", "serve"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        served = remote.Served(process.stdout.readline().strip(), process)
        started.append(served)
        assert served.endpoint.startswith("ws://127.0.0.1:"), served.endpoint  # loopback unless told otherwise
        return served

    yield start
    for served in started:
        served.stop()
