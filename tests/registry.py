"""npm for the tests that need it: skipped where npm is not installed, and, for the tests
marked `network`, where the npm registry does not answer."""

from __future__ import annotations

import shutil
import subprocess

import pytest


def npm_or_skip() -> str:
    npm = shutil.which("npm")
    if not npm:
        pytest.skip("npm is not installed (Node.js ships it)")
    return npm


def registry_or_skip() -> str:
    """npm, when the registry answers (the `network` tests), else the test is skipped."""
    npm = npm_or_skip()
    try:
        ping = subprocess.run([npm, "ping"], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.skip("the npm registry did not answer")
    if ping.returncode != 0:
        pytest.skip("the npm registry is not reachable")
    return npm
