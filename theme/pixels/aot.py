"""theme's numba kernels (EXPORTS) compiled ahead of time by numba.pycc into one cached extension module.

Why: `theme diff` is short-lived and the JIT costs a start-up in every process, cache warm or not; this loads
in about a millisecond without importing numba (benchmarks/README.md). Any failure gives None (see get()).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import platform
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, cast

import numpy as np

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent  # theme/: the cache beside the code
PREFIX = "_theme_kernels_"
# export name -> (module holding the numba function, its C signature). The arrays
# are C-contiguous: the callers check contiguity before choosing this module.
EXPORTS = {
    # as kernel._numba_band passes them
    "diff_rows": ("theme.pixels.diff.jit", "Tuple((i8, i8))(u1[:, :, ::1], u1[:, :, ::1], u4[:, ::1], "
                  "u4[:, ::1], u1[:, :, ::1], u1[:, ::1], b1, b1, i8, i8, f8, b1, f8, u1[::1], "
                  "u1[::1], b1, b1, i4[::1], i4[:, ::1], i8)"),
    # as images._inflate_png passes them
    "unfilter": ("theme.pixels.pngfilter", "i8(u1[::1], i8, i8, i8)"),
}
SOURCES = [HERE / "diff" / "jit.py", HERE / "pngfilter.py"]


class Kernels(Protocol):
    """The compiled module: each of EXPORTS, called with the C types its signature names."""

    diff_rows: Callable[..., tuple[int, int]]  # theme.pixels.diff.jit.diff_rows: (count, first counted pixel)
    unfilter: Callable[[np.ndarray, int, int, int], int]  # theme.pixels.pngfilter.unfilter: -1, or a bad row


BUILD_TIMEOUT = 600  # s; generous: a first build takes seconds (measured: benchmarks/README.md)

_loaded: dict[str, Kernels] = {}
_names: dict[tuple[Path, ...], str | None] = {}  # module_name() per tuple(SOURCES)
_lock = threading.Lock()  # two decoder threads may ask for the module at once


def _numba_version() -> str | None:
    """numba's version file, read without importing numba or importlib.metadata (both far
    slower: benchmarks/README.md); None when numba is not installed."""
    spec = importlib.util.find_spec("numba")
    if spec is None or not spec.submodule_search_locations:
        return None
    try:
        return (Path(spec.submodule_search_locations[0]) / "_version.py").read_text()
    except OSError:
        return spec.origin or "numba"  # a numba without the file: its location at least


def key(source: bytes, numba_version: str) -> str:
    """What the compiled module depends on, hashed: a change in any builds a new one.

    `source`: the bytes of the kernels' sources and of aot.py (the build recipe);
    `numba_version`: the text of numba's _version.py (its version and revision).
    """
    signatures = "".join(f"{name}{sig}" for name, (_, sig) in sorted(EXPORTS.items()))
    parts = [source, signatures.encode(), numba_version.encode(), np.__version__.encode(),
             sys.version.encode(), platform.machine().encode(),
             importlib.machinery.EXTENSION_SUFFIXES[0].encode()]
    return hashlib.sha256(b"\0".join(parts)).hexdigest()[:16]


def module_name() -> str | None:
    """The compiled module's name for the current sources, computed once per set of
    source paths: load() runs on every PNG decode, and reading and hashing the
    sources each time cost as much as decoding a small region image (benchmarks/README.md)."""
    sources = tuple(SOURCES)
    if sources not in _names:
        numba_version = _numba_version()
        if numba_version is None:
            _names[sources] = None
        else:
            # this file too: it holds the build recipe
            source = b"".join(path.read_bytes() for path in sources) + Path(__file__).read_bytes()
            _names[sources] = f"{PREFIX}{key(source, numba_version)}"
    return _names[sources]


def cache_dirs() -> list[Path]:
    """Where compiled modules live, in order of preference (the first writable one is built into)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [PACKAGE / "__pycache__", Path(base) / "theme"]


def _file(folder: Path, name: str) -> Path:
    return folder / (name + importlib.machinery.EXTENSION_SUFFIXES[0])


def load() -> Kernels | None:
    """The compiled module if one matching the current sources is cached, else None."""
    name = module_name()
    if name is None:
        return None
    with _lock:
        if name in _loaded:
            return _loaded[name]
        for folder in cache_dirs():
            path = _file(folder, name)
            if path.is_file():
                module = _import(name, path)
                if module is not None:
                    _loaded[name] = module
                    return module
    return None


def _import(name: str, path: Path) -> Kernels | None:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return None
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except (ImportError, OSError):
        return None  # e.g. truncated by a full disk: the next build replaces it
    # built from EXPORTS with their signatures: every name there is one of Kernels'
    return cast(Kernels, module) if all(hasattr(module, name) for name in EXPORTS) else None


def get() -> Kernels | None:
    """The compiled module: cached, else built now (once per source version), else None;
    callers then use the JIT or numpy, all bit-identical (tests/unit/test_diff_parity.py).

    A build that failed leaves `<name>.failed` (with the child's error output) so
    later processes do not pay for it again; delete the file to retry.
    """
    module = load()
    if module is not None:
        return module
    name = module_name()
    if name is None or failed(name):
        return None
    errors = []
    for folder in cache_dirs():
        ok, log = _build_into(folder, name)
        if ok:
            return load()
        if log is not None:  # the folder was writable: the build itself failed
            errors.append(log)
            _mark_failed(folder, name, log)
            break
    return None


def failed(name: str) -> bool:
    """Whether building `name` failed before (see get())."""
    return any((folder / f"{name}.failed").exists() for folder in cache_dirs())


def _mark_failed(folder: Path, name: str, log: str) -> None:
    try:
        (folder / f"{name}.failed").write_text(log[-4000:])
    except OSError:
        pass


def _build_into(folder: Path, name: str) -> tuple[bool, str | None]:
    """Build in a child process (its compiler output and warnings stay out of ours);
    numba and a C compiler are needed only here, never to load the result.

    (built, None if `folder` is not writable else the child's error output).
    """
    import subprocess  # only a build needs these
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".build-", dir=folder))
    except OSError:
        return False, None  # not writable: try the next folder
    try:
        res = subprocess.run([sys.executable, "-m", "theme.pixels.aot", name, str(work)],
                             capture_output=True, text=True, timeout=BUILD_TIMEOUT)
        built = _file(work, name)
        if res.returncode != 0 or not built.is_file():
            return False, f"exit {res.returncode}\n{res.stdout}\n{res.stderr}"
        os.replace(built, _file(folder, name))  # atomic: a reader sees all or nothing
        _prune(folder, keep=name)
        return True, None
    except (OSError, subprocess.SubprocessError) as err:
        return False, f"{type(err).__name__}: {err}"
    finally:
        for leftover in work.glob("*"):
            try:
                leftover.unlink()
            except OSError:
                pass
        try:
            work.rmdir()
        except OSError:
            pass


def _prune(folder: Path, keep: str) -> None:
    """Remove modules and failure marks of older sources (a running process that
    has one loaded keeps its mapping; the file name is never reused)."""
    olds = [*folder.glob(f"{PREFIX}*"), *folder.glob("_pixelmatch_*")]  # the latter: before 0.2
    for old in olds:
        if not old.name.startswith(keep):
            try:
                old.unlink()
            except OSError:
                pass


def _compile(name: str, out_dir: str) -> None:
    """Child process: compile EXPORTS into `out_dir`/`name`.so with numba.pycc.

    numba.pycc is deprecated upstream: once it is gone this fails, get() returns None
    and the JIT (with its on-disk cache) takes over."""
    import importlib
    import warnings

    import numba.core.compiler
    import numba.pycc.compiler
    from numba.pycc.cc import CC

    warnings.simplefilter("ignore")  # pycc's pending-deprecation notice

    class _NoGilFlags(numba.core.compiler.Flags):
        """Flags for pycc's Python wrapper: release the GIL as jit.py's nogil=True does,
        so kernel.run's two band threads, and two PNG decodes, run on two cores."""

        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[no-untyped-call]  # numba's Flags: unannotated
            self.release_gil = True  # type: ignore[assignment]  # an Option descriptor mypy cannot see through

    # read by pycc when it compiles the exports (pycc.compiler imports it from numba.core.compiler)
    numba.pycc.compiler.Flags = _NoGilFlags  # type: ignore[attr-defined]
    cc = CC(name)
    cc.output_dir = out_dir
    cc.verbose = False
    for export, (module, signature) in EXPORTS.items():
        cc.export(export, signature)(getattr(importlib.import_module(module), export).py_func)
    cc.compile()


if __name__ == "__main__":
    _compile(sys.argv[1], sys.argv[2])
