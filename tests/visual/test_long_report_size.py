"""The report of a real 120 000 px page failure stays small: the long runtime article
(article/long/) captured, then captured again with its note-box text at 13 px instead of
12 (content below snaps to other pixel rows all the way down), checked and reported.

Before bands, the report copied three full-size PNGs of the page: ~89 MB for this one.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from test_long_runtime_page import DESKTOP, long_site
from theme.baselines.store import Store
from theme.capture import Session
from theme.check import verdict
from theme.core.config import Tolerance
from theme.pixels import images
from theme.review import accept, report

pytestmark = [pytest.mark.browser, pytest.mark.slow]

KEY = "index/desktop-light/page.png"
NOTE_BOX_13PX = "\n.note-box-title, .note-box-content { font-size: 13px; }\n"
TARGET = 20_000_000  # bytes: a long article's 38 failures, all of them (issue 21)


def capture(tmp_path_factory, css: str = "") -> np.ndarray:
    with Session(long_site(tmp_path_factory, css)) as session:
        return np.ascontiguousarray(session.capture(DESKTOP).image)


def folder_bytes(folder) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def failed(tmp_path_factory):
    root = tmp_path_factory.mktemp("long-report")
    store = Store(root / "snapshots")
    store.write(KEY, capture(tmp_path_factory), {})
    actual = capture(tmp_path_factory, NOTE_BOX_13PX)
    assert actual.shape[0] >= 120_000
    result = verdict.check(verdict.CheckContext.against_baselines(store, root / "art", {}), KEY, actual, Tolerance())
    assert result.status == "failed"
    out = root / "visual-report"
    report.write(out, report.Report((report.Entry.from_check(result),), {}, None))
    return root, out, actual, store


def test_a_120000_px_page_failure_makes_a_small_report(failed):
    root, out, actual, _ = failed
    size, full = folder_bytes(out), folder_bytes(root / "art")
    print(f"report {size:,} bytes; full-size artefacts {full:,} bytes")
    # the bands' crops within their budget, the overview, the patch, report.json and index.html
    assert size < TARGET / 4  # room for three more such pages and the regions
    assert full > 10 * size


def test_the_most_changed_bands_are_shown_losslessly(failed):
    _, out, actual, _ = failed
    [page] = report.from_json((out / "report.json").read_text()).entries
    shown = [b for b in page.bands if b["images"]]
    assert len(page.bands) > len(shown) >= 10
    weights = sorted((b["weight"] for b in page.bands), reverse=True)
    assert sorted((b["weight"] for b in shown), reverse=True) == weights[:len(shown)]
    for band in shown[:5]:
        (a0, a1), (x0, x1) = band["rows"], band["columns"]
        assert np.array_equal(images.read_png(out / band["images"]["actual"]), actual[a0:a1, x0:x1])
    overview = images.read_png(out / page.overview["image"])
    assert overview.shape[0] == -(-actual.shape[0] // page.overview["scale"])


def test_accept_rebuilds_the_page_from_the_report_alone(failed):
    """As with a report downloaded from CI: no artefacts folder anywhere."""
    root, out, actual, store = failed
    shutil.rmtree(root / "art")
    assert [a.key for a in accept.accept(out, store)] == [KEY]
    assert np.array_equal(store.read(KEY), actual)
