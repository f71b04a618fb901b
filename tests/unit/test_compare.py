"""The one check flow: missing, matched, different, corrupt — with and without updating, in and out of CI."""

import numpy as np
import pytest

from theme.baselines.store import Store
from theme.check.verdict import CheckContext, Status, Update, artifact_paths, check
from theme.core.config import Tolerance

FP = {"browser": {"name": "chromium", "version": "156"}, "platform": "linux", "device_scale_factor": 1,
      "launch_flags": [], "fonts": {}}
KEY = "index/desktop-light/note-box/intro.png"


def page(w=60, h=40, box_colour=(30, 30, 30)):
    img = np.full((h, w, 4), 255, dtype=np.uint8)
    img[10:20, 10:30, :3] = box_colour
    return img


def ctx(tmp_path, **kw):
    return CheckContext.against_baselines(Store(tmp_path / "snapshots"), tmp_path / "artifacts",
                        fingerprint=kw.pop("fingerprint", FP), **kw)


def test_missing_fails_writes_actual_only_to_artifacts(tmp_path):
    c = ctx(tmp_path)
    r = check(c, KEY, page(), Tolerance())
    assert r.status is Status.FAILED
    assert "no baseline" in r.message and "run pytest --update-snapshots" in r.message
    assert r.artifacts.actual.is_file()
    assert not (tmp_path / "snapshots").exists()


@pytest.mark.parametrize("mode", [Update.MISSING, Update.CHANGED, Update.ALL])
def test_missing_is_created_when_updating(tmp_path, mode):
    r = check(ctx(tmp_path, update=mode), KEY, page(), Tolerance())
    assert r.status is Status.CREATED
    assert np.array_equal(Store(tmp_path / "snapshots").read(KEY), page())


def test_ci_refuses_to_create(tmp_path):
    r = check(ctx(tmp_path, update=Update.MISSING, ci=True), KEY, page(), Tolerance())
    assert r.status is Status.FAILED and "CI=true refuses" in r.message
    assert Store(tmp_path / "snapshots").read(KEY) is None
    r = check(ctx(tmp_path, update=Update.MISSING, ci=True, allow_ci_update=True), KEY, page(), Tolerance())
    assert r.status is Status.CREATED


def test_equal_matches_and_clears_stale_artifacts(tmp_path):
    check(ctx(tmp_path, update=Update.MISSING), KEY, page(), Tolerance())
    stale = artifact_paths(tmp_path / "artifacts", KEY).actual
    stale.parent.mkdir(parents=True, exist_ok=True)
    stale.write_bytes(b"old failure")
    r = check(ctx(tmp_path), KEY, page(), Tolerance())
    assert r.status is Status.MATCHED and r.ok
    assert not stale.exists()


def test_different_fails_with_three_artifacts_and_baseline_untouched(tmp_path):
    check(ctx(tmp_path, update=Update.MISSING), KEY, page(), Tolerance())
    before = Store(tmp_path / "snapshots").path(KEY).read_bytes()
    r = check(ctx(tmp_path), KEY, page(box_colour=(200, 30, 30)), Tolerance())
    assert r.status is Status.FAILED
    assert r.diff.diff_pixels == 200  # the 20 x 10 box
    for path in (r.artifacts.expected, r.artifacts.actual, r.artifacts.diff):
        assert path.is_file() and str(path) in r.message
    assert Store(tmp_path / "snapshots").path(KEY).read_bytes() == before


def test_tolerance_lets_a_small_difference_pass(tmp_path):
    check(ctx(tmp_path, update=Update.MISSING), KEY, page(), Tolerance())
    r = check(ctx(tmp_path), KEY, page(box_colour=(200, 30, 30)), Tolerance(max_diff_pixels=200))
    assert r.status is Status.MATCHED


def test_update_changed_rewrites_but_missing_mode_does_not(tmp_path):
    check(ctx(tmp_path, update=Update.MISSING), KEY, page(), Tolerance())
    new = page(box_colour=(200, 30, 30))
    assert check(ctx(tmp_path, update=Update.MISSING), KEY, new, Tolerance()).status is Status.FAILED
    updated = check(ctx(tmp_path, update=Update.CHANGED), KEY, new, Tolerance())
    assert updated.status is Status.UPDATED
    assert np.array_equal(Store(tmp_path / "snapshots").read(KEY), new)
    # the report can show what the update replaced
    from theme.pixels import images
    assert np.array_equal(images.read_png(updated.artifacts.expected), page())
    assert np.array_equal(images.read_png(updated.artifacts.actual), new)
    assert updated.artifacts.diff.is_file()


def test_corrupt_baseline_fails_naming_the_file_and_is_kept(tmp_path):
    store = Store(tmp_path / "snapshots")
    store.path(KEY).parent.mkdir(parents=True)
    store.path(KEY).write_bytes(b"\x89PNG\r\n\x1a\n truncated")
    r = check(ctx(tmp_path), KEY, page(), Tolerance())
    assert r.status is Status.FAILED and str(store.path(KEY)) in r.message
    assert store.path(KEY).read_bytes() == b"\x89PNG\r\n\x1a\n truncated"


def test_wrong_size_baseline_reports_both_sizes(tmp_path):
    check(ctx(tmp_path, update=Update.MISSING), KEY, page(), Tolerance())
    r = check(ctx(tmp_path), KEY, page(h=52), Tolerance())
    assert r.status is Status.FAILED
    assert "sizes differ: expected 60×40, actual 60×52" in r.message


def test_drift_is_said_first(tmp_path):
    check(ctx(tmp_path, update=Update.MISSING), KEY, page(), Tolerance())
    moved = {**FP, "browser": {"name": "chromium", "version": "157"}}
    r = check(ctx(tmp_path, fingerprint=moved), KEY, page(box_colour=(200, 30, 30)), Tolerance())
    assert r.message.startswith("environment drift: baselines were made with browser chromium 156;")


def test_a_baseline_with_the_same_pixels_matches_without_being_decoded(tmp_path, monkeypatch):
    """The manifest records each baseline's pixel digest: a 1280 x 127 000 page's PNG takes ~1 s
    to decode, hashing its actual image ~0.35 s (benchmarks/README.md)."""
    from theme.pixels import images

    store = Store(tmp_path / "snapshots")
    store.write(KEY, page(), FP)
    assert store.has_pixels(KEY, lambda: images.pixels_sha256(page()))
    assert not store.has_pixels(KEY, lambda: images.pixels_sha256(page(box_colour=(0, 0, 0))))
    monkeypatch.setattr(images, "read_png", lambda path: pytest.fail(f"{path} was decoded"))
    r = check(ctx(tmp_path), KEY, page(), Tolerance())
    assert r.status is Status.MATCHED and r.diff.diff_pixels == 0 and r.diff.actual_size == (60, 40)
    r = check(ctx(tmp_path), KEY, page(), Tolerance(), pixels=images.pixels_sha256(page()))
    assert r.status is Status.MATCHED


def test_a_digest_is_trusted_only_for_the_file_the_manifest_recorded(tmp_path):
    # a baseline PNG replaced by hand (other pixels, manifest untouched) is decoded and compared
    store = Store(tmp_path / "snapshots")
    store.write(KEY, page(), FP)
    other = Store(tmp_path / "other")
    other.write(KEY, page(box_colour=(200, 0, 0)), FP)
    store.path(KEY).write_bytes(other.path(KEY).read_bytes())
    assert not store.has_pixels(KEY, lambda: pytest.fail("no digest is compared for a file not recorded"))
    r = check(ctx(tmp_path), KEY, page(), Tolerance())
    assert r.status is Status.FAILED and r.diff.diff_pixels == 200


def test_a_manifest_merged_line_by_line_cannot_vouch_for_another_files_pixels(tmp_path):
    # one branch's "sha256" (the file on disk) with the other branch's "pixels": decoded, and it fails
    from theme.pixels import images

    store, other = Store(tmp_path / "snapshots"), Store(tmp_path / "other")
    store.write(KEY, page(), FP)
    other.write(KEY, page(box_colour=(200, 0, 0)), FP)
    with store.manifest() as m:
        m["baselines"][KEY]["pixels"] = other.read_manifest()["baselines"][KEY]["pixels"]
    assert not store.has_pixels(KEY, lambda: images.pixels_sha256(page(box_colour=(200, 0, 0))))
    r = check(ctx(tmp_path), KEY, page(box_colour=(200, 0, 0)), Tolerance())
    assert r.status is Status.FAILED and r.diff.diff_pixels == 200


def test_a_manifest_without_pixel_digests_still_checks(tmp_path):
    # baselines written before the digest was recorded: decoded and compared as before
    store = Store(tmp_path / "snapshots")
    store.write(KEY, page(), FP)
    with store.manifest() as m:
        del m["baselines"][KEY]["pixels"]
    assert not store.has_pixels(KEY, lambda: pytest.fail("nothing recorded to compare with"))
    assert check(ctx(tmp_path), KEY, page(), Tolerance()).status is Status.MATCHED
    assert check(ctx(tmp_path), KEY, page(box_colour=(0, 0, 0)), Tolerance()).status is Status.FAILED
