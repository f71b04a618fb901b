"""Fixtures shared by the unit tests."""

from __future__ import annotations

import pytest

import failed_page


@pytest.fixture
def failed(tmp_path):
    """A failing page check (failed_page.py): (root, entry, expected, actual, result)."""
    return failed_page.failed_check(tmp_path)
