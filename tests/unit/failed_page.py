"""A page image and a changed copy of it, and the failed check they make: shared by the report
tests (test_report_images.py) and `theme accept` on a report (test_accept_pages.py).

Real PNGs and the real diff engine: an expected "page" of text-like stripes, an actual one
with rows inserted (content below moves down) and one box recoloured further down.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from theme.baselines.store import Store
from theme.check import verdict
from theme.check.entry import Entry
from theme.core.config import Tolerance
from theme.core.status import Status

W, H = 200, 3000
INSERT_AT, INSERTED = 700, 40
BOX_Y = 2200  # in the expected page


def page_pair() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    expected = np.full((H, W, 4), 255, np.uint8)
    for y in range(0, H, 20):  # a "text line" of 8 rows every 20, each line its own pattern
        expected[y:y + 8, 10:190, :3] = rng.integers(0, 120, (8, 180, 3), np.uint8)
    actual = np.concatenate([expected[:INSERT_AT], np.full((INSERTED, W, 4), 255, np.uint8),
                             expected[INSERT_AT:]])
    actual[INSERT_AT + 10:INSERT_AT + 30, 20:180, :3] = (30, 90, 200)  # the inserted rows hold a box
    actual[BOX_Y + INSERTED:BOX_Y + INSERTED + 30, 50:120, :3] = (200, 40, 40)  # a box recoloured
    return expected, actual


def failed_check(root: Path) -> tuple[Path, Entry, np.ndarray, np.ndarray, verdict.CheckResult]:
    """A failing page check under `root` as theme.check.verdict leaves it: full-size
    artefacts and an entry."""
    expected, actual = page_pair()
    store = Store(root / "snapshots")
    key = "index/desktop-light/page.png"
    store.write(key, expected, {"browser": "chromium 1"})
    ctx = verdict.CheckContext.against_baselines(store, root / ".theme-artifacts", {"browser": "chromium 1"})
    result = verdict.check(ctx, key, actual, Tolerance())
    assert result.status is Status.FAILED
    return root, Entry.from_check(result), expected, actual, result
