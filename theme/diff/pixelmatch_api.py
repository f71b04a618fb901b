"""`pixelmatch(...)`: the PyPI package's signature and behaviour, on a fast engine.

Takes the reference's inputs (flat RGBA sequences) plus numpy arrays, and writes into `output` exactly the
bytes it would, no others; inputs that are not 8-bit RGBA go to the reference itself (still a drop-in, slow).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import kernel

ENGINES = ("fast", "aot", "numba", "numpy", "reference")
_KERNEL = {"fast": "auto", "aot": "aot", "numba": "numba", "numpy": "numpy"}


def pixelmatch(img1: Any, img2: Any, width: int, height: int, output: Any = None,
               threshold: float = 0.1, includeAA: bool = False, alpha: float = 0.1,
               aa_color=(255, 255, 0), diff_color=(255, 0, 0), diff_mask: bool = False,
               fail_fast: bool = False, *, engine: str = "fast") -> int:
    """Number of differing pixels (1 at most with fail_fast); see PyPI pixelmatch 0.4.0."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    n1, n2 = _length(img1), _length(img2)
    has_output = output is not None and _length(output) > 0  # the reference tests `if output`
    # Same guards, same messages and order as the PyPI package (its module pixelmatch.core).
    if n1 != n2:
        raise ValueError("Image sizes do not match.", n1, n2)
    if has_output and _length(output) != n1:
        raise ValueError("Diff image size does not match img1 & img2.", n1, _length(output))
    if n1 != width * height * 4:
        raise ValueError("Image data size does not match width/height.", n1, width * height * 4)
    opts = dict(threshold=threshold, includeAA=includeAA, alpha=alpha, aa_color=aa_color,
                diff_color=diff_color, diff_mask=diff_mask, fail_fast=fail_fast)
    a, b = _rgba(img1, width, height), _rgba(img2, width, height)
    colours = _colours(aa_color, diff_color)
    if engine == "reference" or a is None or b is None or colours is None:
        return _reference(img1, img2, width, height, output if has_output else None, opts)
    target, write_back = _target(output, width, height) if has_output else (None, None)
    if has_output and target is None:
        return _reference(img1, img2, width, height, output, opts)
    style = kernel.Style(alpha=alpha, aa_color=colours[0], diff_color=colours[1],
                         diff_mask=diff_mask)
    count = kernel.run(a, b, target, threshold=threshold, include_aa=includeAA, style=style,
                       fail_fast=fail_fast, engine=_KERNEL.get(engine, "auto"))
    if write_back is not None:
        write_back(target)
    return count


def _length(seq: Any) -> int:
    return int(seq.size) if isinstance(seq, np.ndarray) else len(seq)


def _rgba(img: Any, width: int, height: int) -> np.ndarray | None:
    """A read-only (H, W, 4) uint8 view or copy of `img`, or None if not 8-bit."""
    if isinstance(img, (bytes, bytearray, memoryview)):
        arr = np.frombuffer(img, np.uint8)
    else:
        arr = np.asarray(img)
        if arr.dtype != np.uint8:
            if arr.dtype.kind not in "iub" or arr.size and (arr.min() < 0 or arr.max() > 255):
                return None
            arr = arr.astype(np.uint8)
    return np.ascontiguousarray(arr).reshape(height, width, 4)


def _colours(aa_color, diff_color):
    """draw_pixel stores int(c); colours that do not fit a byte go to the reference."""
    try:
        out = tuple(tuple(int(c) for c in col) for col in (aa_color, diff_color))
    except (TypeError, ValueError):
        return None
    if any(len(c) != 3 or not all(0 <= v <= 255 for v in c) for c in out):
        return None
    return out


def _target(output: Any, width: int, height: int):
    """(array the kernel draws into, function copying it back or None)."""
    if isinstance(output, np.ndarray):
        if output.dtype == np.uint8 and output.flags.c_contiguous and output.flags.writeable:
            return output.reshape(height, width, 4), None
        work = _rgba(output, width, height)
        if work is None:
            return None, None
        work = work.copy()
        return work, lambda arr: np.copyto(output, arr.reshape(output.shape), casting="unsafe")
    if isinstance(output, bytearray):
        return np.frombuffer(output, np.uint8).reshape(height, width, 4), None
    work = _rgba(output, width, height)
    if work is None:
        return None, None
    work = work.copy()

    def write_back(arr: np.ndarray) -> None:
        output[:] = arr.reshape(-1).tolist()

    return work, write_back


def _reference(img1, img2, width, height, output, opts) -> int:
    """The PyPI package itself; it wants flat sequences, not numpy arrays."""
    from pixelmatch import pixelmatch as reference

    def flat(x):
        return x.reshape(-1).tolist() if isinstance(x, np.ndarray) else x

    out = output
    if isinstance(output, np.ndarray):
        out = output.reshape(-1).tolist()
    count = reference(flat(img1), flat(img2), width, height, out, **opts)
    if isinstance(output, np.ndarray):
        np.copyto(output, np.asarray(out).reshape(output.shape), casting="unsafe")
    return count
