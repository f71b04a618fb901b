"""Fixtures shared by the visual tests."""

from __future__ import annotations

import pytest

from long_page import DESKTOP, long_site
from theme.capture import Session


@pytest.fixture(scope="session")
def long_session(tmp_path_factory):
    """A capture session on the long runtime page (long_page.py), opened once a worker for
    test_long_runtime_page.py and test_long_report_size.py (tests/conftest.py keeps both on
    one worker): building the page and starting its browser take seconds, its capture ~25 s."""
    with Session(long_site(tmp_path_factory)) as session:
        yield session


@pytest.fixture(scope="session")
def long_capture(long_session):
    """The long page's desktop light capture, made once; the tests that use it only read it."""
    return long_session.capture(DESKTOP)
