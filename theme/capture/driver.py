"""One Playwright driver per thread, shared by whatever in that thread needs one: Sessions
one after another or nested, and the look for Playwright's own Chromium (browser.py)."""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from playwright.sync_api import Playwright

_THREAD = threading.local()


@contextlib.contextmanager
def shared_playwright() -> Iterator[Playwright]:
    """This thread's driver, started by the first user and stopped by the last.

    Playwright's sync API refuses to start a second instance while one runs in the same
    thread, so a second Session (another config) reuses the first's.
    """
    from playwright.sync_api import sync_playwright

    if getattr(_THREAD, "users", 0) == 0:
        _THREAD.manager = sync_playwright()
        _THREAD.playwright = _THREAD.manager.__enter__()
    _THREAD.users = getattr(_THREAD, "users", 0) + 1
    try:
        yield _THREAD.playwright
    finally:
        _THREAD.users -= 1
        if _THREAD.users == 0:
            manager, _THREAD.manager, _THREAD.playwright = _THREAD.manager, None, None
            manager.__exit__(None, None, None)
