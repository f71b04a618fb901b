"""theme's numba kernels compiled ahead of time into one extension module, cached on disk.

The kernels (EXPORTS): diff_rows, the pixelmatch kernel (theme/diff/jit.py), and
unfilter, PNG's scanline filters undone in place (theme/pngfilter.py), which with
libdeflate decodes page images twice as fast as libspng (see theme/images.py).

Why: the JIT costs 0.5-0.8 s in every new process before its first pixel, even
with numba's on-disk cache warm: importing numba (~0.2 s), then, on the first
call, numba initialises its typing and lowering registries (~0.3 s, profiled with
cProfile; on a machine with scipy it also imports scipy.linalg looking for BLAS).
`theme diff` is a short-lived process and odiff, its yardstick, starts in
milliseconds. The same functions compiled by numba.pycc load in under 1 ms and do
not import numba at all.

The module is built on first use in a child process (~4-8 s: numba and a C
compiler are needed then, never afterwards) and stored in the first writable of
theme/diff/__pycache__ and the user's cache folder. Its file name carries a key
of jit.py's bytes, the numba, numpy and Python versions and the platform: any
change builds a new module and a stale one is never loaded. Anything that fails
(no numba, no compiler, read-only folders, numba without pycc) gives None, and
the caller uses the JIT or numpy instead. Bit-identical to the JIT and to the
reference: tests/unit/test_diff_parity.py runs every case through it.

numba.pycc is deprecated upstream; when it goes, build() returns None and the
JIT (with its on-disk cache) takes over.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import platform
import sys
import threading
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PREFIX = "_theme_kernels_"
# export name -> (module holding the numba function, its C signature). The arrays
# are C-contiguous: the callers check contiguity before choosing this module.
EXPORTS = {
    # as kernel._numba_band passes them
    "diff_rows": ("theme.diff.jit", "Tuple((i8, i8))(u1[:, :, ::1], u1[:, :, ::1], u4[:, ::1], "
                  "u4[:, ::1], u1[:, :, ::1], u1[:, ::1], b1, b1, i8, i8, f8, b1, f8, u1[::1], "
                  "u1[::1], b1, b1, i4[::1], i4[:, ::1], i8)"),
    # as images._inflate_png passes them
    "unfilter": ("theme.pngfilter", "i8(u1[::1], i8, i8, i8)"),
}
SOURCES = [HERE / "diff" / "jit.py", HERE / "pngfilter.py"]
BUILD_TIMEOUT = 600  # s; a first build on a loaded 2-core machine takes ~10 s

_loaded: dict[str, object] = {}
_names: dict[tuple, str | None] = {}  # module_name() per tuple(SOURCES)
_lock = threading.Lock()  # two decoder threads may ask for the module at once


def _numba_version() -> str | None:
    """numba's version file, read without importing numba (~0.2 s) or
    importlib.metadata (~10 ms); None when numba is not installed."""
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
    sources each time cost ~0.2 ms, as much as decoding a small region image."""
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
    """Where compiled modules live, in order of preference."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [HERE / "__pycache__", Path(base) / "theme"]


def _file(folder: Path, name: str) -> Path:
    return folder / (name + importlib.machinery.EXTENSION_SUFFIXES[0])


def load() -> object | None:
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


def _import(name: str, path: Path):
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except (ImportError, OSError):
        return None  # e.g. truncated by a full disk: the next build replaces it
    return module if all(hasattr(module, name) for name in EXPORTS) else None


def get() -> object | None:
    """The compiled module: cached, else built now (once per source version), else None.

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
    """Build in a child process (its compiler output and warnings stay out of ours).

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
        res = subprocess.run([sys.executable, "-m", "theme.aot", name, str(work)],
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
    """Child process: compile EXPORTS into `out_dir`/`name`.so with numba.pycc."""
    import warnings

    import importlib

    import numba.core.compiler
    import numba.pycc.compiler
    from numba.pycc import CC

    warnings.simplefilter("ignore")  # pycc's pending-deprecation notice

    class _NoGilFlags(numba.core.compiler.Flags):
        """Flags for pycc's Python wrapper: release the GIL as jit.py's nogil=True does,
        so kernel.run's two band threads, and two PNG decodes, run on two cores."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.release_gil = True

    numba.pycc.compiler.Flags = _NoGilFlags  # read by pycc when it compiles the exports
    cc = CC(name)
    cc.output_dir = out_dir
    cc.verbose = False
    for export, (module, signature) in EXPORTS.items():
        cc.export(export, signature)(getattr(importlib.import_module(module), export).py_func)
    cc.compile()


if __name__ == "__main__":
    _compile(sys.argv[1], sys.argv[2])
