"""A baseline that is still a Git LFS pointer (a clone made without LFS) is named as such,
with `git lfs pull` to run, never as a corrupt PNG; nothing overwrites it unseen."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import numpy as np
import pytest

from theme.baselines.store import Store, verify
from theme.check.verdict import CheckContext, Status, Update, check
from theme.core.config import Tolerance
from theme.core.errors import ImageError, LfsPointerError, StoreError
from theme.pixels import images

FP = {"browser": {"name": "chromium", "version": "156"}, "platform": "linux", "device_scale_factor": 1,
      "launch_flags": [], "fonts": {}}
KEYS = ["index/desktop-light/page.png", "index/desktop-dark/page.png", "index/mobile-dark/math/intro.png"]


def pointer(png: bytes) -> bytes:
    """The pointer git-lfs writes for `png` (spec v1: version, oid, size; sorted keys)."""
    return (f"version https://git-lfs.github.com/spec/v1\noid sha256:{hashlib.sha256(png).hexdigest()}\n"
            f"size {len(png)}\n").encode()


def image(colour=(40, 90, 200)) -> np.ndarray:
    img = np.full((30, 50, 4), 255, dtype=np.uint8)
    img[5:15, 5:25, :3] = colour
    return img


@pytest.fixture
def store(tmp_path) -> Store:
    """A store whose three baselines were made, then checked out without LFS."""
    s = Store(tmp_path / "snapshots")
    for key in KEYS:
        s.write(key, image(), FP)
        s.path(key).write_bytes(pointer(s.path(key).read_bytes()))
    return s


def test_decoding_a_pointer_names_lfs_and_the_command(store):
    path = store.path(KEYS[0])
    with pytest.raises(LfsPointerError) as err:
        images.read_png(path)
    message = str(err.value)
    assert message.startswith(f"{path}: a Git LFS pointer, not the image it stands for (a ")
    assert "run `git lfs pull`" in message and "lfs: true" in message
    assert "corrupt" not in message and "signature" not in message
    assert isinstance(err.value, ImageError) and err.value.exit_code == 2


def test_the_store_reports_all_pointers_in_one_error(store, tmp_path):
    assert store.lfs_pointers() == sorted(KEYS)
    with pytest.raises(StoreError) as err:
        store.check_lfs()
    line = str(err.value)
    assert "\n" not in line and "and 2 more baselines are Git LFS pointers" in line and "git lfs pull" in line
    assert [p for p in verify(store) if "Git LFS pointer" in p] == [
        f"{store.path(k)}: a Git LFS pointer, not the image; run `git lfs pull`" for k in sorted(KEYS)]


def test_a_store_of_real_pngs_passes_the_lfs_check(tmp_path):
    s = Store(tmp_path / "snapshots")
    s.write(KEYS[0], image(), FP)
    s.check_lfs()
    assert s.lfs_pointers() == []


@pytest.mark.parametrize("update", [Update.NONE, Update.CHANGED, Update.ALL])
def test_a_pointer_baseline_fails_and_is_never_overwritten(store, tmp_path, update):
    before = store.path(KEYS[0]).read_bytes()
    c = CheckContext.against_baselines(store, tmp_path / "artifacts", FP, update=update)
    r = check(c, KEYS[0], image(colour=(200, 30, 30)), Tolerance())
    assert r.status is Status.FAILED
    assert "git lfs pull" in r.message and "--update-snapshots" not in r.message
    assert store.path(KEYS[0]).read_bytes() == before


def test_theme_diff_on_a_pointer_exits_2_with_one_line(store, tmp_path):
    real = tmp_path / "real.png"
    images.write_png(real, image())
    run = subprocess.run([sys.executable, "-m", "theme", "diff", str(store.path(KEYS[0])), str(real)],
                         capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "git lfs pull" in run.stderr, run.stderr


def test_one_pointer_says_what_it_stands_for(tmp_path):
    s = Store(tmp_path / "snapshots")
    s.write(KEYS[0], image(), FP)
    size = s.path(KEYS[0]).stat().st_size
    s.path(KEYS[0]).write_bytes(pointer(s.path(KEYS[0]).read_bytes()))
    with pytest.raises(StoreError, match=rf"page\.png: a Git LFS pointer, not the image it stands for "
                                         rf"\(a {size:,} byte PNG\); run `git lfs pull`"):
        s.check_lfs()
