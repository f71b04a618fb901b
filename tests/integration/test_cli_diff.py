"""`theme diff` through the real console entry point, one test per flag."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from theme.pixels import images
from theme.pixels.diff import compare, pixelmatch


def run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "theme", "diff", *map(str, args)],
                          cwd=cwd, capture_output=True, text=True)


@pytest.fixture
def pair(tmp_path):
    rng = np.random.default_rng(3)
    a = np.full((60, 80, 4), 255, np.uint8)
    for top in range(4, 50, 12):
        a[top:top + 6, 5:75:4, :3] = rng.integers(0, 60, (6, 18, 3))
    b = a.copy()
    b[20:30, 30:50] = (220, 30, 30, 255)  # a real change, 200 px
    b[45, 10, :3] = 250 - a[45, 10, :3] // 2
    images.write_png(tmp_path / "a.png", a)
    images.write_png(tmp_path / "b.png", b)
    return tmp_path, a, b


def test_same_images_exit_0(pair):
    tmp, a, _ = pair
    res = run("a.png", "a.png", cwd=tmp)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "images match (80×60)"


def test_different_images_exit_1_and_say_why(pair):
    tmp, a, b = pair
    res = run("a.png", "b.png", cwd=tmp)
    n = compare(a, b).diff_pixels
    assert res.returncode == 1
    assert res.stdout.startswith(f"{n} pixels differ (")
    assert "largest change at x=" in res.stdout


def test_out_writes_the_pixelmatch_diff_image(pair):
    tmp, a, b = pair
    res = run("a.png", "b.png", "--out", "d/diff.png", cwd=tmp)
    assert res.returncode == 1
    want = np.zeros_like(a)
    pixelmatch(a, b, 80, 60, want)
    assert np.array_equal(images.read_png(tmp / "d" / "diff.png"), want)
    assert "diff image: d/diff.png" in res.stdout


def test_out_for_identical_images_is_the_faded_image(pair):
    tmp, a, _ = pair
    assert run("a.png", "a.png", "--out", "same.png", cwd=tmp).returncode == 0
    want = np.zeros_like(a)
    pixelmatch(a, a, 80, 60, want)
    assert np.array_equal(images.read_png(tmp / "same.png"), want)


def test_threshold_changes_the_verdict(tmp_path):
    a = np.full((10, 10, 4), 255, np.uint8)
    b = a.copy()
    b[2:4, 2:4, :3] = 235
    images.write_png(tmp_path / "a.png", a)
    images.write_png(tmp_path / "b.png", b)
    assert run("a.png", "b.png", cwd=tmp_path).returncode == 0
    res = run("a.png", "b.png", "--threshold", "0", cwd=tmp_path)
    assert res.returncode == 1 and res.stdout.startswith("4 pixels differ")
    bad = run("a.png", "b.png", "--threshold", "2", cwd=tmp_path)
    assert bad.returncode == 2 and "threshold" in bad.stderr


def test_include_aa_counts_anti_aliased_pixels(tmp_path):
    # a 1 px edge pixel between flat areas: anti-aliasing for pixelmatch
    a = np.full((9, 9, 4), 255, np.uint8)
    a[:, :4, :3] = 0
    a[:, 4, :3] = 128
    b = a.copy()
    b[4, 4, :3] = 60
    images.write_png(tmp_path / "a.png", a)
    images.write_png(tmp_path / "b.png", b)
    assert pixelmatch(a, b, 9, 9) == 0 and pixelmatch(a, b, 9, 9, includeAA=True) == 1
    assert run("a.png", "b.png", cwd=tmp_path).returncode == 0
    res = run("a.png", "b.png", "--include-aa", cwd=tmp_path)
    assert res.returncode == 1 and res.stdout.startswith("1 pixels differ")


def test_json_output(pair):
    tmp, a, b = pair
    res = run("a.png", "b.png", "--json", "--out", "diff.png", cwd=tmp)
    assert res.returncode == 1
    data = json.loads(res.stdout)
    assert data["matches"] is False and data["diff_pixels"] == compare(a, b).diff_pixels
    assert data["expected"] == "a.png" and data["actual"] == "b.png" and data["diff_image"] == "diff.png"
    assert data["expected_size"] == [80, 60] and data["boxes"]


def test_size_change_is_a_result_with_a_shift(pair):
    tmp, a, _ = pair
    taller = np.concatenate([a[:30], np.full((5, 80, 4), 255, np.uint8), a[30:]])
    images.write_png(tmp / "t.png", taller)
    res = run("a.png", "t.png", "--json", cwd=tmp)
    data = json.loads(res.stdout)
    assert res.returncode == 1 and data["size_mismatch"] and data["actual_size"] == [80, 65]
    assert [s["by"] for s in data["shifts"]] == [5]


@pytest.mark.parametrize("make,message", [
    (lambda p: None, "no such file"),
    (lambda p: p.write_bytes(b"not a png"), "not a PNG file"),
    (lambda p: p.write_bytes((p.parent / "a.png").read_bytes()[:70]), "corrupt or truncated"),
])
def test_bad_input_exits_2_with_one_line_naming_the_file(pair, make, message):
    tmp, _, _ = pair
    make(tmp / "bad.png")
    res = run("a.png", "bad.png", cwd=tmp)
    assert res.returncode == 2
    assert res.stderr.startswith("theme: bad.png: ") and message in res.stderr
    assert res.stderr.count("\n") == 1 and res.stdout == ""


def test_kernel_choice_without_the_compiled_module(monkeypatch):
    """No ahead-of-time module (e.g. no C compiler): numpy unless numba's start-up pays."""
    from theme.cli import diff as cli_diff
    from theme.pixels import aot
    from theme.pixels.diff import available_engines

    monkeypatch.setattr(aot, "load", lambda: None)
    monkeypatch.setattr(aot, "get", lambda: None)
    monkeypatch.setattr(aot, "module_name", lambda: None)
    small = np.full((60, 80, 4), 255, np.uint8)
    assert cli_diff._engine(small, 255 - small) == "numpy"
    big = np.full((2000, 1280, 4), 255, np.uint8)
    heavy = big.copy()
    heavy[..., :3] = 0
    assert cli_diff._engine(big, big.copy()) == "numpy"
    want = "numba" if "numba" in available_engines() else "numpy"
    assert cli_diff._engine(big, heavy) == want
