"""A page created by an update, in the report: its overview is made from the pixels the check
has in memory, not by decoding the PNG just written, and is the overview the report would have
made from that PNG. Real PNGs, the real store, check and report; failed_page.py's page."""

import hashlib

import numpy as np
import pytest
from PIL import Image

from failed_page import page_pair
from theme.baselines.store import Store
from theme.capture.model import Region
from theme.check import verdict
from theme.check.entry import Entry
from theme.core.config import Tolerance
from theme.core.status import Status
from theme.pixels import images
from theme.review import report

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


@pytest.mark.parametrize("alpha", ["opaque", "translucent", "both"])
def test_the_checks_overview_is_the_page_reduced_whole_as_rgba(tmp_path, alpha, monkeypatch):
    """The overview is made a band at a time, an opaque band reduced as RGB from its own memory
    (not through Pillow's premultiplied RGBA copy): byte for byte the PNG of the whole page
    reduced as RGBA by Pillow, also when only some bands are opaque."""
    from pathlib import Path

    from theme.check import bands

    monkeypatch.setattr(bands, "SCAN", 64)  # many bands on this page, at a multiple of the factor
    _, page = page_pair()
    if alpha != "opaque":
        page[(page.shape[0] // 2 if alpha == "both" else 0):, :, 3] = 200
    made = bands.page_overview(tmp_path / "check", KEY, page)
    factor = made["scale"]
    assert page.shape[0] > 4 * 64 and factor > 1
    whole = np.asarray(Image.fromarray(np.ascontiguousarray(page), "RGBA").reduce(factor))
    assert Path(made["image"]).read_bytes() == images.encode_png(whole, level=9)
    assert (made["height"], made["width"]) == page.shape[:2]


def _policy_ctx(root, update, ci=False):
    return verdict.CheckContext.against_baselines(Store(root / "snapshots"), root / "artifacts", FP,
                                                  update=update, ci=ci)


def test_a_page_is_encoded_ahead_only_when_its_check_will_write_it(tmp_path):
    """verdict.prepare starts the encode (Store.prepare) exactly when the check to come writes
    the page: missing on an update, or other pixels on a run that rewrites; then the check
    writes the bytes a check without it writes."""
    _, page = page_pair()
    pixels = images.pixels_sha256(page)
    U = verdict.Update
    assert not verdict.prepare(_policy_ctx(tmp_path, U.NONE), KEY, page, pixels)
    assert not verdict.prepare(_policy_ctx(tmp_path, U.MISSING, ci=True), KEY, page, pixels)
    ctx = _policy_ctx(tmp_path, U.MISSING)
    assert verdict.prepare(ctx, KEY, page, pixels)
    assert verdict.check(ctx, KEY, page, Tolerance(), pixels=pixels).status is Status.CREATED
    plain = _policy_ctx(tmp_path / "plain", U.MISSING)
    verdict.check(plain, KEY, page, Tolerance())
    assert ctx.policy.baselines.path(KEY).read_bytes() == plain.policy.baselines.path(KEY).read_bytes()
    for update in U.MISSING, U.CHANGED, U.ALL:  # its pixels are there: nothing to write
        assert not verdict.prepare(_policy_ctx(tmp_path, update), KEY, page, pixels)
    other = page.copy()
    other[5:9, 5:9, :3] = 0
    assert not verdict.prepare(_policy_ctx(tmp_path, U.MISSING), KEY, other, images.pixels_sha256(other))
    assert verdict.prepare(_policy_ctx(tmp_path, U.CHANGED), KEY, other, images.pixels_sha256(other))
