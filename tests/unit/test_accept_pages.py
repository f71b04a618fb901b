"""`theme accept` on a report that keeps only a page's changed bands: the full-size actual is
taken from an artefacts folder (the run's own, or a downloaded one), verified by its sha256,
and the baseline written is byte-identical to the one `--update-snapshots` writes."""

import shutil
import subprocess
import sys

import numpy as np
import pytest

from test_report_images import failed, page_pair  # noqa: F401  (failed is a fixture)
from theme import accept, compare, report
from theme.errors import StoreError
from theme.review import Review
from theme.store import Store

KEY = "index/desktop-light/page.png"
ENV = {"browser": "chromium 1"}


@pytest.fixture
def written(failed):  # noqa: F811
    root, entry, expected, actual, _ = failed
    report.write(root / "visual-report", report.Report((entry,), ENV, None))
    return root, actual


def update_snapshots_bytes(tmp_path, actual: np.ndarray) -> bytes:
    """What `pytest --update-snapshots` leaves for this actual image: compare.check, Update.CHANGED."""
    expected, _ = page_pair()
    store = Store(tmp_path / "updated")
    store.write(KEY, expected, ENV)
    ctx = compare.CheckContext(store, tmp_path / "updated-art", ENV, update=compare.Update.CHANGED)
    assert compare.check(ctx, KEY, actual, compare.Tolerance()).status == "updated"
    return store.path(KEY).read_bytes()


def test_accept_takes_the_page_from_the_run_s_artefacts(written):
    root, actual = written
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
    store = Store(root / "snapshots")
    accept.accept(download / "visual-report", store,
                  artifacts=[root / ".theme-artifacts", download / "visual-artifacts"])
    assert store.path(KEY).read_bytes() == update_snapshots_bytes(root, actual)


def test_no_full_size_actual_is_one_clear_error_and_writes_nothing(written):
    root, _ = written
    store = Store(root / "snapshots")
    before = store.path(KEY).read_bytes()
    art = compare.artifact_paths(root / ".theme-artifacts", KEY).actual
    art.write_bytes(art.read_bytes()[:-20] + b"another run's bytes!")
    with pytest.raises(StoreError) as err:
        accept.accept(root / "visual-report", store, artifacts=[root / "nowhere", root / ".theme-artifacts"])
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{KEY}: ")
    assert f"{root / 'nowhere'}/index/desktop-light/page.actual.png (missing)" in message
    assert "(another run's)" in message and "visual-artifacts" in message and "--artifacts DIR" in message
    assert store.path(KEY).read_bytes() == before


def test_review_accepts_a_page_from_the_artefacts_and_refuses_without_them(written):
    root, actual = written
    store = Store(root / "snapshots")
    before = store.path(KEY).read_bytes()
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
    (root / "pyproject.toml").write_text('[tool.theme.visual]\nroot = "."\nartifacts = "elsewhere"\n')
    cli = [sys.executable, "-m", "theme", "accept", str(root / "visual-report"), "-C", str(root)]
    missing = subprocess.run(cli, capture_output=True, text=True)
    assert missing.returncode == 2
    assert missing.stderr.count("\n") == 1 and "--artifacts DIR" in missing.stderr
    assert f"{root / 'elsewhere'}/index/desktop-light/page.actual.png (missing)" in missing.stderr
    given = subprocess.run(cli + ["--artifacts", str(root / ".theme-artifacts")], capture_output=True, text=True)
    assert given.returncode == 0, given.stderr
    assert given.stdout.splitlines()[0] == f"accepted  {KEY}"
