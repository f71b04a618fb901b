"""Atomic file writes: a failed or killed run never leaves a half-written file.

Write to a temporary file in the *same* folder (so `os.replace` is a rename on
one filesystem, which POSIX makes atomic), flush and fsync it, then replace the
target. A reader sees the old bytes or the new bytes, never a mix.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Iterator


@contextlib.contextmanager
def atomic_open(path: Path, mode: int = 0o644, *, durable: bool = True) -> Iterator[BinaryIO]:
    """Yield a binary file whose content replaces `path` only if the block succeeds.

    durable=False skips the fsync: the file is still all-or-nothing for a run that
    fails or is killed, and only a power cut could lose it. For throw-away
    artefacts the next run re-creates (the fsync was 30 ms of `theme diff`'s 0.5 s).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_bytes(path: Path, data: bytes) -> None:
    with atomic_open(path) as f:
        f.write(data)


def atomic_write_text(path: Path, text: str) -> None:
    """UTF-8, `\\n` line endings exactly as given, no byte-order mark."""
    atomic_write_bytes(path, text.encode("utf-8"))


def sha256_file(path: Path | str) -> str:
    """sha256 of a file's bytes, read a MB at a time (baselines and page images run to tens of MB)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
