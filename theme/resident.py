"""Page-sized pixel buffers mapped from unlinked files, and dropping their rows from resident memory.

A 1280 × 131 000 page is 670 MB of RGBA. Held in a file mapping, the rows a step has done with can
be handed back (release) and read again later by a page fault, without a copy: a check then holds
a band of rows of each image at a time, not two whole pages (benchmarks/README.md, "Updates and
failing runs"). The pages stay in the page cache; the kernel writes them back when it likes.
"""

from __future__ import annotations

import mmap
import os
import tempfile

import numpy as np

# Buffers larger than this are file-backed (file_backed); smaller ones are not worth a file.
FILE_BACKED_BYTES = 256 * 2**20


def file_backed(nbytes: int) -> tuple[np.ndarray, mmap.mmap | None]:
    """A flat uint8 buffer of `nbytes`, and its mapping when file-backed (from FILE_BACKED_BYTES
    up): an unlinked temporary file, so nothing is left behind whatever happens."""
    if nbytes < FILE_BACKED_BYTES:
        return np.empty(nbytes, dtype=np.uint8), None
    fd, path = tempfile.mkstemp(prefix="theme-page-", suffix=".rgba")
    try:
        os.unlink(path)  # the mapping keeps the space
        os.ftruncate(fd, nbytes)
        mapping = mmap.mmap(fd, nbytes)
    finally:
        os.close(fd)
    return np.frombuffer(mapping, dtype=np.uint8), mapping


def release(image: np.ndarray, y0: int = 0, y1: int | None = None) -> None:
    """Drop rows y0..y1 of an image from resident memory when a file mapping holds it (else
    nothing): its pixels stay as they are, read back on demand."""
    base = mapping_of(image)
    if base is None or not image.flags.c_contiguous:
        return
    start_of_map = np.frombuffer(base, dtype=np.uint8)
    offset = image.__array_interface__["data"][0] - start_of_map.__array_interface__["data"][0]
    row = image.strides[0]
    y1 = image.shape[0] if y1 is None else min(y1, image.shape[0])
    start = -(-(offset + max(0, y0) * row) // mmap.PAGESIZE) * mmap.PAGESIZE
    end = (offset + y1 * row) // mmap.PAGESIZE * mmap.PAGESIZE
    if end > start:
        base.madvise(mmap.MADV_DONTNEED, start, end - start)


def mapping_of(image: np.ndarray) -> mmap.mmap | None:
    """The file mapping holding `image`'s pixels, or None (anonymous memory)."""
    base: object = image
    while base is not None and not isinstance(base, mmap.mmap):
        base = base.obj if isinstance(base, memoryview) else getattr(base, "base", None)
    return base
