"""`pixelmatch(...)`: the PyPI package's signature and behaviour, on a fast engine.

Takes the reference's inputs (flat RGBA sequences) plus numpy arrays, and writes into `output` exactly the
bytes it would, no others; inputs that are not 8-bit RGBA go to the reference itself (still a drop-in, slow).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypedDict

import numpy as np

from . import kernel

if TYPE_CHECKING:  # the reference is imported only when it runs
    from pixelmatch.types import ImageSequence, MutableImageSequence, RGBTuple

    # What the reference takes (flat RGBA sequences, bytes), and numpy arrays of any shape.
    Image = ImageSequence | np.ndarray
    Output = MutableImageSequence | np.ndarray

ENGINES = ("fast", "aot", "numba", "numpy", "reference")
_KERNEL = {"fast": "auto", "aot": "aot", "numba": "numba", "numpy": "numpy"}


def pixelmatch(img1: Image, img2: Image, width: int, height: int, output: Output | None = None,
               threshold: float = 0.1, includeAA: bool = False, alpha: float = 0.1,
               aa_color: RGBTuple = (255, 255, 0), diff_color: RGBTuple = (255, 0, 0), diff_mask: bool = False,
               fail_fast: bool = False, *, engine: str = "fast") -> int:
    """Number of differing pixels (1 at most with fail_fast); see PyPI pixelmatch 0.4.0."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    n1, n2 = _length(img1), _length(img2)
    given = output if output is not None and _length(output) > 0 else None  # the reference tests `if output`
    # Same guards, same messages and order as the PyPI package (its module pixelmatch.core).
    if n1 != n2:
        raise ValueError("Image sizes do not match.", n1, n2)
    if given is not None and _length(given) != n1:
        raise ValueError("Diff image size does not match img1 & img2.", n1, _length(given))
    if n1 != width * height * 4:
        raise ValueError("Image data size does not match width/height.", n1, width * height * 4)
    opts = _Options(threshold=threshold, includeAA=includeAA, alpha=alpha, aa_color=aa_color,
                    diff_color=diff_color, diff_mask=diff_mask, fail_fast=fail_fast)
    a, b = _rgba(img1, width, height), _rgba(img2, width, height)
    colours = _colours(aa_color, diff_color)
    if engine == "reference" or a is None or b is None or colours is None:
        return _reference(img1, img2, width, height, given, opts)
    target, write_back = _target(given, width, height) if given is not None else (None, None)
    if given is not None and target is None:
        return _reference(img1, img2, width, height, given, opts)
    style = kernel.Style(alpha=alpha, aa_color=colours[0], diff_color=colours[1],
                         diff_mask=diff_mask)
    count = kernel.run(a, b, target, threshold=threshold, include_aa=includeAA, style=style,
                       fail_fast=fail_fast, engine=_KERNEL.get(engine, "auto"))
    if write_back is not None and target is not None:
        write_back(target)
    return count


class _Options(TypedDict):
    """The reference's keyword arguments, as pixelmatch() was given them."""

    threshold: float
    includeAA: bool
    alpha: float
    aa_color: RGBTuple
    diff_color: RGBTuple
    diff_mask: bool
    fail_fast: bool


def _length(seq: Image) -> int:
    return int(seq.size) if isinstance(seq, np.ndarray) else len(seq)


def _rgba(img: Image, width: int, height: int) -> np.ndarray | None:
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


def _colours(aa_color: RGBTuple, diff_color: RGBTuple) -> tuple[kernel.RGB, kernel.RGB] | None:
    """draw_pixel stores int(c); colours that do not fit a byte go to the reference."""
    try:
        aa, diff = [int(c) for c in aa_color], [int(c) for c in diff_color]
    except (TypeError, ValueError):
        return None
    if any(len(c) != 3 or not all(0 <= v <= 255 for v in c) for c in (aa, diff)):
        return None
    return (aa[0], aa[1], aa[2]), (diff[0], diff[1], diff[2])


def _target(output: Output, width: int,
            height: int) -> tuple[np.ndarray | None, Callable[[np.ndarray], None] | None]:
    """(array the kernel draws into, function copying it back or None)."""
    if isinstance(output, np.ndarray):
        if output.dtype == np.uint8 and output.flags.c_contiguous and output.flags.writeable:
            return output.reshape(height, width, 4), None
        work = _rgba(output, width, height)
        if work is None:
            return None, None
        work = work.copy()
        array = output

        def copy_back(arr: np.ndarray) -> None:
            np.copyto(array, arr.reshape(array.shape), casting="unsafe")

        return work, copy_back
    if isinstance(output, bytearray):
        return np.frombuffer(output, np.uint8).reshape(height, width, 4), None
    work = _rgba(output, width, height)
    if work is None:
        return None, None
    work = work.copy()

    def write_back(arr: np.ndarray) -> None:
        output[:] = arr.reshape(-1).tolist()

    return work, write_back


def _reference(img1: Image, img2: Image, width: int, height: int, output: Output | None, opts: _Options) -> int:
    """The PyPI package itself; it wants flat sequences, not numpy arrays."""
    from pixelmatch import pixelmatch as reference

    def flat(x: Image) -> ImageSequence:
        return list(x.reshape(-1).tolist()) if isinstance(x, np.ndarray) else x

    out: MutableImageSequence | None = None
    if isinstance(output, np.ndarray):
        out = list(output.reshape(-1).tolist())
    elif output is not None:
        out = output
    count = reference(flat(img1), flat(img2), width, height, out, **opts)
    if isinstance(output, np.ndarray):
        np.copyto(output, np.asarray(out).reshape(output.shape), casting="unsafe")
    return count
