"""A page failure in the report: changed bands cropped and aligned, an overview, no full-size copy.

The page and its failed check are failed_page.py's (the `failed` fixture is in conftest.py).
"""

import hashlib

import numpy as np

from failed_page import BOX_Y, INSERT_AT, INSERTED, H, W, page_pair
from theme.baselines.store import Store
from theme.check import bands, verdict
from theme.core.config import Tolerance
from theme.pixels import images
from theme.review import report


def test_a_page_failure_is_written_as_aligned_bands_and_an_overview(failed):
    root, entry, expected, actual, result = failed
    out = root / "visual-report"
    report.write(out, report.Report((entry,), {}, None))
    [page] = report.from_json((out / "report.json").read_text()).entries
    assert page.images == {}  # no full-size copy in the report
    assert [b["rows"] for b in page.bands] == [
        [INSERT_AT - bands.CONTEXT, INSERT_AT + INSERTED + bands.CONTEXT],
        [BOX_Y + INSERTED - bands.CONTEXT, BOX_Y + INSERTED + 30 + bands.CONTEXT]]
    first, second = page.bands
    # the inserted rows have no expected rows: the expected crop is the band minus them
    assert first["expected_rows"] == [INSERT_AT - bands.CONTEXT, INSERT_AT + bands.CONTEXT]
    assert second["expected_rows"] == [BOX_Y - bands.CONTEXT, BOX_Y + 30 + bands.CONTEXT]
    # inserted rows are drawn across the page; the recoloured box is 70 px wide, shown with context
    assert first["columns"] == [0, W] and second["columns"] == [50 - 40, 120 + 40]
    for band in page.bands:
        (a0, a1), (e0, e1), (x0, x1) = band["rows"], band["expected_rows"], band["columns"]
        got = {k: images.read_png(out / p) for k, p in band["images"].items()}
        assert np.array_equal(got["actual"], actual[a0:a1, x0:x1])  # lossless, the very pixels
        assert np.array_equal(got["expected"], expected[e0:e1, x0:x1])
        assert got["diff"].shape == (a1 - a0, x1 - x0, 4)
        assert (got["diff"][..., :3] == (255, 0, 0)).all(axis=2).any()
    # the full-size actual stays where compare wrote it, and the report can vouch for it
    art = verdict.artifact_paths(root / ".theme-artifacts", entry.key).actual
    assert page.actual_sha256 == hashlib.sha256(art.read_bytes()).hexdigest()
    assert not any(p.name.endswith((".actual.png", ".expected.png", ".diff.png"))
                   and ".band-" not in p.name for p in out.rglob("*.png"))
    overview = images.read_png(out / page.overview["image"])
    scale = page.overview["scale"]
    assert overview.shape[:2] == (-(-(H + INSERTED) // scale), -(-W // scale))
    assert page.overview["height"] == H + INSERTED


def test_bands_and_overview_are_the_same_bytes_every_time(failed):
    root, entry, *_ = failed
    one, two = root / "one", root / "two"
    report.write(one, report.Report((entry,), {}, None))
    report.write(two, report.Report((entry,), {}, None))
    files = sorted(p.relative_to(one) for p in one.rglob("*.png"))
    assert len(files) == 8  # two bands of three, the overview and the patch
    assert all((one / f).read_bytes() == (two / f).read_bytes() for f in files)


def test_past_the_byte_budget_only_the_most_changed_bands_get_crops(failed, monkeypatch):
    """The inserted block (40 rows × 200 px, all counted) outweighs the recoloured box (30 × 70)."""
    root, entry, *_ = failed
    monkeypatch.setattr(bands, "BAND_BYTES", 1)  # the first band always goes in
    report.write(root / "small", report.Report((entry,), {}, None))
    [page] = report.from_json((root / "small" / "report.json").read_text()).entries
    first, second = page.bands
    assert first["weight"] > second["weight"] > 0
    assert set(first["images"]) == {"expected", "actual", "diff"} and second["images"] == {}
    assert sorted(p.name for p in (root / "small").rglob("*.png")) == [
        "page.band-1.actual.png", "page.band-1.diff.png", "page.band-1.expected.png", "page.overview.png",
        "page.patch.png"]


def test_bands_merge_when_their_context_touches():
    rows = np.zeros(1000, bool)
    rows[[100, 150, 600]] = True
    assert bands.intervals(rows, 30) == [(70, 181), (570, 631)]
    assert bands.intervals(rows, 20) == [(80, 121), (130, 171), (580, 621)]
    assert bands.intervals(np.zeros(10, bool)) == []
    # a page that changed all over is cut into bands the budget can take some of
    assert bands.intervals(np.ones(2500, bool), 40, 1000) == [(0, 1000), (1000, 2000), (2000, 2500)]


def test_rows_removed_from_the_expected_page_make_a_band():
    expected, _ = page_pair()
    actual = np.concatenate([expected[:1000], expected[1100:]])  # a block of lines removed
    weight, _ = bands.changed_rows(expected, actual, None)
    assert bands.intervals(weight > 0, 5) == [(994, 1006)]  # rows 999 and 1000 meet there


def test_a_page_changed_all_over_stays_within_the_budget(tmp_path, monkeypatch):
    """Every row differs: one band as tall as the page would be the full-size images again."""
    rng = np.random.default_rng(1)
    expected = rng.integers(0, 256, (6000, 100, 4), np.uint8)
    expected[..., 3] = 255
    actual = expected.copy()
    actual[..., :3] = 255 - actual[..., :3]
    store = Store(tmp_path / "snapshots")
    key = "index/desktop-light/page.png"
    store.write(key, expected, {})
    ctx = verdict.CheckContext.against_baselines(store, tmp_path / "art", {})
    result = verdict.check(ctx, key, actual, Tolerance())
    monkeypatch.setattr(bands, "BAND_ROWS", 500)
    monkeypatch.setattr(bands, "BAND_BYTES", 400_000)
    report.write(tmp_path / "out", report.Report((report.Entry.from_check(result),), {}, None))
    [page] = report.from_json((tmp_path / "out" / "report.json").read_text()).entries
    assert [b["rows"] for b in page.bands] == [[y, y + 500] for y in range(0, 6000, 500)]
    crops = [p for p in (tmp_path / "out").rglob("*.band-*.png")]
    one_band = 3 * 500 * 100 * 4  # at most: three crops of raw noise
    assert 0 < sum(p.stat().st_size for p in crops) <= 400_000 + one_band
    assert 0 < sum(1 for b in page.bands if b["images"]) < len(page.bands)


def test_a_page_check_leaves_bands_for_the_report_and_no_full_size_expected_or_diff(failed, tmp_path):
    """A failed page check given bands.write_review (as the pipeline gives every page check)
    writes its full-size actual and its bands, overview and patch, made from the pixels it holds;
    no full-size expected or diff image. The report copies them: the same bands, the same
    pixels, as the report that crops them from the three full-size artefacts."""
    root, full_entry, expected, actual, _ = failed
    store = Store(tmp_path / "snapshots")
    key = "index/desktop-light/page.png"
    store.write(key, expected, {"browser": "chromium 1"})
    ctx = verdict.CheckContext.against_baselines(store, tmp_path / "artifacts", {"browser": "chromium 1"})
    result = verdict.check(ctx, key, actual, Tolerance(), review=bands.write_review)
    arts = verdict.artifact_paths(tmp_path / "artifacts", key)
    assert arts.actual.is_file() and not arts.expected.exists() and not arts.diff.exists()
    assert result.artifacts.expected is None and "expected:" not in result.message
    assert bands.review_path(arts.actual).is_file()

    from theme.check.entry import Entry
    made, cropped = tmp_path / "made", tmp_path / "cropped"
    report.write(made, report.Report((Entry.from_check(result),), {}, None))
    report.write(cropped, report.Report((full_entry,), {}, None))
    [one] = report.from_json((made / "report.json").read_text()).entries
    [two] = report.from_json((cropped / "report.json").read_text()).entries
    assert one.images == {} and len(one.bands) == 2
    assert [{k: v for k, v in b.items() if k != "images"} for b in one.bands] == \
           [{k: v for k, v in b.items() if k != "images"} for b in two.bands]
    assert {**one.patch, "image": None} == {**two.patch, "image": None}
    assert one.actual_sha256 == hashlib.sha256(arts.actual.read_bytes()).hexdigest()
    for b1, b2 in zip(one.bands, two.bands, strict=True):
        assert sorted(b1["images"]) == sorted(b2["images"]) == ["actual", "diff", "expected"]
        for kind in b1["images"]:
            assert (made / b1["images"][kind]).is_file()  # copied into the report, not pointing outside
            assert np.array_equal(images.read_png(made / b1["images"][kind]),
                                  images.read_png(cropped / b2["images"][kind]))
    assert np.array_equal(images.read_png(made / one.overview["image"]),
                          images.read_png(cropped / two.overview["image"]))

    # a passing check clears the review with the other artefacts: no stale bands next run
    assert verdict.check(ctx, key, expected, Tolerance(), review=bands.write_review).ok
    assert not bands.review_path(arts.actual).exists()
