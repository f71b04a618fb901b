"""Page-sized pixel buffers mapped from unlinked files, and dropping their rows from resident memory.

A 1280 × 131 000 page is 670 MB of RGBA. Held in a file mapping, the rows a step has done with can
be handed back (release) and read again later by a page fault, without a copy: a check then holds
a band of rows of each image at a time, not two whole pages (benchmarks/README.md, "Updates and
failing runs"). The pages stay in the page cache; the kernel writes them back when it likes.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import tempfile
import threading
from typing import Iterator

import numpy as np

# Buffers larger than this are file-backed (file_backed); smaller ones are not worth a file.
FILE_BACKED_BYTES = 256 * 2**20


def file_backed(nbytes: int, at_least: int | None = None) -> tuple[np.ndarray, mmap.mmap | None]:
    """A flat uint8 buffer of `nbytes`, and its mapping when file-backed (from `at_least` bytes up,
    by default FILE_BACKED_BYTES): an unlinked temporary file, nothing left behind whatever happens."""
    if nbytes < (FILE_BACKED_BYTES if at_least is None else at_least):
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


@contextlib.contextmanager
def kept_down(buffer: np.ndarray, every: float = 0.05) -> Iterator[None]:
    """While a call that releases the GIL fills or reads a file-backed `buffer` (a PNG's inflate
    and unfilter, ~1 s for a tall page; Pillow's encode of a page), drop all of its rows from
    resident memory every `every` seconds, from a thread. Safe for a shared file mapping: a
    dropped page keeps its contents (a dirty one is written back) and the next touch maps it
    again from the page cache. Without it, a baseline's decode held all 670 MB of its rows at
    once, beside the browser rendering the next variant. Nothing for anonymous memory."""
    if mapping_of(buffer) is None:
        yield
        return
    stop = threading.Event()

    def keep() -> None:
        while not stop.wait(every):
            release(buffer)

    thread = threading.Thread(target=keep, name="theme-release", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        release(buffer)


def mapping_of(image: np.ndarray) -> mmap.mmap | None:
    """The file mapping holding `image`'s pixels, or None (anonymous memory)."""
    base: object = image
    while base is not None and not isinstance(base, mmap.mmap):
        base = base.obj if isinstance(base, memoryview) else getattr(base, "base", None)
    return base
