"""The ahead-of-time compiled kernel: built once, loaded by later processes without
numba, invalidated by any change of source or versions, and never in the way when
it cannot be built (the JIT or numpy take over, with the same results)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from theme.pixels import aot
from theme.pixels.diff import kernel

pytest.importorskip("numba")


def pair() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    a = np.full((40, 50, 4), 255, np.uint8)
    a[5:30:6, 4:46, :3] = rng.integers(0, 90, (5, 42, 3))
    b = a.copy()
    b[10:20, 10:30] = (200, 40, 40, 255)
    return a, b


@pytest.fixture(scope="module")
def built():
    module = aot.get()
    if module is None:
        pytest.skip("the ahead-of-time kernel cannot be built here (numba.pycc or a C compiler missing)")
    return module


def test_a_second_process_loads_the_cached_module_without_importing_numba(built):
    code = textwrap.dedent("""
        import sys
        import numpy as np
        from theme.pixels import aot
        from theme.pixels.diff import kernel
        module = aot.load()
        a = np.full((40, 50, 4), 255, np.uint8)
        b = a.copy()
        b[10:20, 10:30] = (200, 40, 40, 255)
        n = kernel.run(a, b, None, engine="aot")
        print(module.__file__, "numba" in sys.modules, n)
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    path, numba_imported, count = res.stdout.split()
    assert path == built.__file__
    assert any(path.startswith(str(folder)) for folder in aot.cache_dirs())
    assert numba_imported == "False" and int(count) == 200


def test_same_results_as_the_jit_and_numpy(built):
    a, b = pair()
    outs = {}
    for engine in ("aot", "numba", "numpy"):
        out = np.zeros_like(a)
        outs[engine] = (kernel.run(a, b, out, engine=engine), out.tobytes())
    assert outs["aot"] == outs["numba"] == outs["numpy"]


def test_key_follows_the_source_and_the_versions():
    base = aot.key(b"kernel source", "0.60.0")
    assert aot.key(b"kernel source", "0.60.0") == base
    assert aot.key(b"kernel source!", "0.60.0") != base
    assert aot.key(b"kernel source", "0.61.0") != base


@pytest.mark.parametrize("which", [0, 1], ids=["jit.py", "pngfilter.py"])
def test_the_module_name_changes_when_a_kernel_source_changes(monkeypatch, tmp_path, which):
    before = aot.module_name()
    sources = list(aot.SOURCES)
    changed = tmp_path / sources[which].name
    changed.write_bytes(sources[which].read_bytes() + b"\n# an edit\n")
    sources[which] = changed
    monkeypatch.setattr(aot, "SOURCES", sources)
    assert aot.module_name() != before
    assert aot.load() is None  # the module built from the old source is not used


def test_no_writable_cache_folder_means_no_module_and_the_jit_takes_over(monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setattr(aot, "cache_dirs", lambda: [blocker / "cache", blocker / "other"])
    monkeypatch.setattr(aot, "_loaded", {})
    assert aot.get() is None
    a, b = pair()
    out_auto, out_numpy = np.zeros_like(a), np.zeros_like(a)
    n = kernel.run(a, b, out_auto, engine="auto")
    assert n > 0 and n == kernel.run(a, b, out_numpy, engine="numpy")
    assert np.array_equal(out_auto, out_numpy)


def test_a_failed_build_is_remembered_and_not_retried(monkeypatch, tmp_path):
    monkeypatch.setattr(aot, "cache_dirs", lambda: [tmp_path])
    monkeypatch.setattr(aot, "_loaded", {})
    monkeypatch.setattr(aot, "module_name", lambda: "_theme_kernels_test0000")
    monkeypatch.setattr(aot.sys, "executable", "/bin/false")  # the build child fails
    assert aot.get() is None
    marker = tmp_path / "_theme_kernels_test0000.failed"
    assert marker.exists() and "exit 1" in marker.read_text()
    monkeypatch.undo()  # a real interpreter again: a retry would now build
    monkeypatch.setattr(aot, "cache_dirs", lambda: [tmp_path])
    monkeypatch.setattr(aot, "_loaded", {})
    monkeypatch.setattr(aot, "module_name", lambda: "_theme_kernels_test0000")
    assert aot.get() is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_theme_kernels_test0000.failed"]


@pytest.mark.slow
def test_jit_without_a_writable_cache_still_compiles():
    code = textwrap.dedent("""
        import numba.core.caching as caching
        caching.CacheImpl._locator_classes = []  # as if no folder were writable
        import numpy as np
        from theme.pixels.diff import jit, kernel
        a = np.full((40, 50, 4), 255, np.uint8)
        b = a.copy()
        b[10:20, 10:30] = (200, 40, 40, 255)
        print(type(jit.diff_rows._cache).__name__, kernel.run(a, b, None, engine="numba"))
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["NullCache", "200"]
