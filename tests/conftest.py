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
