"""`theme accept` on a report that keeps only a page's changed bands: the actual is rebuilt
from the report's patch on the baseline, or taken from an artefacts folder (the run's own, or
a downloaded one), each verified by a sha256; the baseline written is byte-identical to the
one `--update-snapshots` writes."""

import shutil
import subprocess
import sys

import numpy as np
import pytest

from failed_page import page_pair
from theme.baselines.store import Store
from theme.check import verdict
from theme.core.errors import StoreError
from theme.review import accept, report
from theme.review.server import Review

KEY = "index/desktop-light/page.png"
ENV = {"browser": "chromium 1"}


@pytest.fixture
def written(failed):
    root, entry, expected, actual, _ = failed
    report.write(root / "visual-report", report.Report((entry,), ENV, None))
    return root, actual


def update_snapshots_bytes(tmp_path, actual: np.ndarray) -> bytes:
    """What `pytest --update-snapshots` leaves for this actual image: verdict.check, Update.CHANGED."""
    expected, _ = page_pair()
    store = Store(tmp_path / "updated")
    store.write(KEY, expected, ENV)
    ctx = verdict.CheckContext.against_baselines(store, tmp_path / "updated-art", ENV, update=verdict.Update.CHANGED)
    assert verdict.check(ctx, KEY, actual, verdict.Tolerance()).status == "updated"
    return store.path(KEY).read_bytes()


def test_accept_rebuilds_the_page_from_the_report_alone(written, tmp_path_factory):
    """A report downloaded from CI, nothing else: the patch on the committed baseline."""
    root, actual = written
    download = tmp_path_factory.mktemp("download") / "visual-report"
    shutil.copytree(root / "visual-report", download)
    shutil.rmtree(root / ".theme-artifacts")
    store = Store(root / "snapshots")
    done = accept.accept(download, store)
    assert [d.key for d in done] == [KEY]
    assert store.path(KEY).read_bytes() == update_snapshots_bytes(root, actual)


def moved_baseline(root) -> bytes:
    """The baseline rewritten since the report was made: its patch no longer applies."""
    store = Store(root / "snapshots")
    other = store.read(KEY)
    other[:10, :10, :3] = 0
    store.write(KEY, other, ENV)
    return store.path(KEY).read_bytes()


def test_accept_takes_the_page_from_the_run_s_artefacts(written):
    root, actual = written
    moved_baseline(root)
    store = Store(root / "snapshots")
    done = accept.accept(root / "visual-report", store, artifacts=[root / ".theme-artifacts"])
    assert [d.key for d in done] == [KEY]
    assert store.path(KEY).read_bytes() == update_snapshots_bytes(root, actual)


def test_a_downloaded_report_and_artefacts_folder_work_anywhere(written, tmp_path_factory):
    root, actual = written
    download = tmp_path_factory.mktemp("download")
    shutil.copytree(root / "visual-report", download / "visual-report")
    shutil.copytree(root / ".theme-artifacts", download / "visual-artifacts")
    shutil.rmtree(root / ".theme-artifacts")
    moved_baseline(root)
    store = Store(root / "snapshots")
    accept.accept(download / "visual-report", store,
                  artifacts=[root / ".theme-artifacts", download / "visual-artifacts"])
    assert store.path(KEY).read_bytes() == update_snapshots_bytes(root, actual)


def test_no_full_size_actual_is_one_clear_error_and_writes_nothing(written):
    root, _ = written
    store = Store(root / "snapshots")
    before = moved_baseline(root)
    art = verdict.artifact_paths(root / ".theme-artifacts", KEY).actual
    art.write_bytes(art.read_bytes()[:-20] + b"another run's bytes!")
    with pytest.raises(StoreError) as err:
        accept.accept(root / "visual-report", store, artifacts=[root / "nowhere", root / ".theme-artifacts"])
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{KEY}: ")
    assert "the report's patch" in message and "no longer the baseline it was made against" in message
    assert f"{root / 'nowhere'}/index/desktop-light/page.actual.png (missing)" in message
    assert "(another run's)" in message and "visual-artifacts" in message and "--artifacts DIR" in message
    assert store.path(KEY).read_bytes() == before


def test_review_accepts_a_page_from_the_artefacts_and_refuses_without_them(written):
    root, actual = written
    store = Store(root / "snapshots")
    before = moved_baseline(root)
    with pytest.raises(StoreError, match="--artifacts DIR"):
        Review(root / "visual-report", store).decide([KEY], "accepted")
    assert store.path(KEY).read_bytes() == before
    review = Review(root / "visual-report", store, artifacts=(root / ".theme-artifacts",))
    assert review.state()["reviewable"] == [KEY]
    review.decide([KEY], "accepted")
    assert store.path(KEY).read_bytes() == update_snapshots_bytes(root, actual)
    review.undo()
    assert store.path(KEY).read_bytes() == before


def test_the_cli_looks_in_the_configured_artefacts_folder_then_says_what_to_pass(written):
    root, _ = written
    moved_baseline(root)
    (root / "pyproject.toml").write_text('[tool.theme.visual]\nroot = "."\nartifacts = "elsewhere"\n')
    cli = [sys.executable, "-m", "theme", "accept", str(root / "visual-report"), "-C", str(root)]
    missing = subprocess.run(cli, capture_output=True, text=True)
    assert missing.returncode == 2
    assert missing.stderr.count("\n") == 1 and "--artifacts DIR" in missing.stderr
    assert f"{root / 'elsewhere'}/index/desktop-light/page.actual.png (missing)" in missing.stderr
    given = subprocess.run(cli + ["--artifacts", str(root / ".theme-artifacts")], capture_output=True, text=True)
    assert given.returncode == 0, given.stderr
    assert given.stdout.splitlines()[0] == f"accepted  {KEY}"


def test_a_patch_past_its_budget_is_left_out_and_the_artefacts_are_needed(failed, monkeypatch):
    from theme.check import patch

    root, entry, *_ = failed
    monkeypatch.setattr(patch, "PATCH_BYTES", 1)
    report.write(root / "visual-report", report.Report((entry,), ENV, None))
    [page] = report.from_json((root / "visual-report" / "report.json").read_text()).entries
    assert page.patch is None and not list((root / "visual-report").rglob("*.patch.png"))
    with pytest.raises(StoreError, match="--artifacts DIR"):
        accept.accept(root / "visual-report", Store(root / "snapshots"))
    assert accept.accept(root / "visual-report", Store(root / "snapshots"), artifacts=[root / ".theme-artifacts"])


def test_the_patch_runs_copy_long_stretches_of_the_baseline():
    from theme.check import patch

    expected, actual = page_pair()
    runs = patch.runs(patch.sources(expected, actual))
    literal = sum(b - a for a, b, at in runs if at < 0)
    assert literal < 60  # the inserted box's rows, not the 2 300 rows moved below it
    assert len(runs) < 20


def test_a_patch_run_never_runs_on_from_a_literal_row_into_a_copied_one():
    from theme.check import patch

    # rows: literal, then expected row 0 (which is -1 + 1), then 1, literal
    assert patch.runs(np.array([-1, 0, 1, -1, -1, 5])) == [[0, 1, -1], [1, 3, 0], [3, 5, -1], [5, 6, 5]]


def test_a_row_whose_hash_matches_but_pixels_differ_is_stored_not_copied():
    from theme.check import patch
    from theme.pixels.diff import shift

    expected, actual = page_pair()
    hashes = (shift.row_hashes(expected), shift.row_hashes(actual))
    actual[1500, 100, :3] = (1, 2, 3)  # one pixel, after the hashes were taken: a collision
    src = patch.sources(expected, actual, hashes=hashes)
    assert src[1500] == -1 and (src[1490:1500] >= 0).all() and (src[1501:1510] >= 0).all()
    for y in np.flatnonzero(src >= 0):
        assert np.array_equal(expected[src[y]], actual[y])
