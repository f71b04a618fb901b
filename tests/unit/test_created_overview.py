"""A page created by an update, in the report: its overview is made from the pixels the check
has in memory, not by decoding the PNG just written, and is the overview the report would have
made from that PNG. Real PNGs, the real store, check and report; failed_page.py's page."""

import hashlib

import numpy as np
from PIL import Image

from failed_page import page_pair
from theme import images
from theme.capture.model import Region
from theme.check import verdict
from theme.check.entry import Entry
from theme.config import Tolerance
from theme.review import report
from theme.status import Status
from theme.store import Store

KEY = "index/desktop-light/page.png"
FP = {"browser": {"name": "chromium", "version": "156.0.1"}, "platform": {"system": "Linux", "machine": "x86_64"}}


def created(root, update=verdict.Update.MISSING):
    _, page = page_pair()
    ctx = verdict.CheckContext.against_baselines(Store(root / "snapshots"), root / "artifacts", FP, update=update)
    result = verdict.check(ctx, KEY, page, Tolerance())
    return page, result, Entry.from_check(result)


def test_a_created_page_gets_the_overview_the_report_would_make_without_a_decode(tmp_path, monkeypatch):
    page, result, entry = created(tmp_path)
    assert result.status is Status.CREATED
    # the same entry without the check's overview: the report makes it from the full-size actual
    made_late = tmp_path / "from-the-file"
    report.write(made_late, report.Report((Entry(**{**entry.__dict__, "overview": None}),)))

    def no_decode(path):
        raise AssertionError(f"the report decoded {path}")

    monkeypatch.setattr(images, "read_png", no_decode)
    out = tmp_path / "visual-report"
    report.write(out, report.Report((entry,)))
    [got] = report.from_json((out / "report.json").read_text()).entries
    [late] = report.from_json((made_late / "report.json").read_text()).entries
    assert got.images == {} and got.bands == () and got.overview == late.overview
    assert got.overview["image"] == "images/index/desktop-light/page.overview.png"
    assert (out / got.overview["image"]).read_bytes() == (made_late / late.overview["image"]).read_bytes()
    actual = verdict.artifact_paths(tmp_path / "artifacts", KEY).actual
    assert got.actual_sha256 == late.actual_sha256 == hashlib.sha256(actual.read_bytes()).hexdigest()
    monkeypatch.undo()
    scale = got.overview["scale"]
    assert np.array_equal(images.read_png(out / got.overview["image"]),
                          np.asarray(Image.fromarray(page).reduce(scale)))


def test_a_region_named_page_is_copied_whole_with_no_overview(tmp_path):
    """A note-box under a heading "Page" is named like a page image, but it is a region:
    its entry carries no overview, and the report copies it whole."""
    _, page = page_pair()
    region = Region("note-box", "page", (0, 0, page.shape[1], 300), "Page", "div.note-box")
    ctx = verdict.CheckContext.against_baselines(Store(tmp_path / "snapshots"), tmp_path / "artifacts", FP,
                                                 update=verdict.Update.MISSING)
    key = "index/desktop-light/note-box/page.png"
    entry = Entry.from_check(verdict.check(ctx, key, page[:300].copy(), Tolerance()), region=region)
    assert entry.status is Status.CREATED and entry.overview is None
    out = tmp_path / "visual-report"
    report.write(out, report.Report((entry,)))
    [got] = report.from_json((out / "report.json").read_text()).entries
    assert got.overview is None and np.array_equal(images.read_png(out / got.images["actual"]), page[:300])


def test_a_stale_overview_of_an_earlier_run_is_cleared(tmp_path):
    """The page matches now: its overview from the run that created it does not linger."""
    _, first, _ = created(tmp_path)
    overview = tmp_path / "artifacts" / "index" / "desktop-light" / "page.overview.png"
    assert first.overview["image"] == str(overview) and overview.is_file()
    _, again, entry = created(tmp_path)
    assert again.status is Status.MATCHED and again.overview is None and entry.overview is None
    assert not overview.exists()


def test_an_overview_whose_file_is_gone_is_made_from_the_actual(tmp_path):
    """The artefacts folder tidied between the check and the report (or a report written
    elsewhere from report.json): the report decodes the actual instead, as before."""
    _, result, entry = created(tmp_path)
    (tmp_path / "artifacts" / "index" / "desktop-light" / "page.overview.png").unlink()
    out = tmp_path / "visual-report"
    report.write(out, report.Report((entry,)))
    [got] = report.from_json((out / "report.json").read_text()).entries
    assert got.images == {} and got.overview["image"] == "images/index/desktop-light/page.overview.png"
    assert (out / got.overview["image"]).is_file()
