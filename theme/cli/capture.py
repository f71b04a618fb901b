"""`theme capture`: render every page × viewport × colour scheme and write the images.

    <out>/<page>/<viewport>-<scheme>/page.png
    <out>/<page>/<viewport>-<scheme>/<region-key>/<name>.png
    <out>/<page>/<viewport>-<scheme>/fingerprint.json

One line per variant on stdout; progress on stderr while it works.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import click

from ..capture import Capture, Session, variants
from ..errors import ConfigError
from ..fsutil import atomic_write_text
from ..images import write_png
from . import main, project_options

# zlib level 1: these are throw-away artifacts; level 1 encodes a 120 000 px
# page several times faster than the default 6 for a file ~20 % larger.
PNG_LEVEL = 1


def _write(capture: Capture, folder: Path) -> int:
    """Write one variant's images under `folder`; remove PNGs a previous run left that this one did not write."""
    written = set()
    for rel, pixels in capture.images():
        target = folder / rel
        write_png(target, pixels, level=PNG_LEVEL)
        written.add(target)
    atomic_write_text(folder / "fingerprint.json", json.dumps(capture.fingerprint, indent=2, sort_keys=True) + "\n")
    if folder.is_dir():
        for old in folder.rglob("*.png"):
            if old not in written:
                old.unlink()
    return len(written)


def _line(capture: Capture, count: int, seconds: float) -> str:
    h, w = capture.image.shape[:2]
    aborted = len(capture.aborted)
    return (f"{capture.variant.folder}: {count} images, {w}×{h} px, {seconds:.1f} s, "
            f"{aborted} aborted request{'s' if aborted != 1 else ''}")


@main.command()
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the images (default: <artifacts>/capture, i.e. .theme-artifacts/capture).")
@project_options
def capture(load_config, out: Path | None) -> None:
    """Capture every page × viewport × colour scheme of [tool.theme.visual] as PNG files."""
    cfg = load_config()
    if cfg.visual is None:
        raise ConfigError(f"{cfg.source}: no [tool.theme.visual] table; add one to capture (see README)")
    visual = cfg.visual
    out = out if out is not None else visual.artifacts / "capture"
    todo = variants(visual)
    progress = lambda msg: click.echo(f"… {msg}", err=True)  # noqa: E731
    # PNG encoding (zlib, which releases the GIL) runs in a writer thread, so the
    # browser keeps taking the next variant's tiles while this one is written.
    with Session(visual, source=cfg.source) as session, ThreadPoolExecutor(1, thread_name_prefix="theme-write") as pool:
        writing = None
        for number, cap in enumerate(session.capture_all(todo, progress=progress), start=1):
            job = (number, cap, time.perf_counter(), pool.submit(_write, cap, out / cap.variant.folder))
            if writing is not None:
                _report(*writing, total=len(todo), progress=progress)
            writing = job
        if writing is not None:
            _report(*writing, total=len(todo), progress=progress)


def _report(number: int, cap: Capture, started: float, written, *, total: int, progress) -> None:
    """Wait for one variant's files, then print its line (in variant order)."""
    count = written.result()
    progress(f"[{number}/{total}] {cap.variant.folder} written")
    click.echo(_line(cap, count, cap.seconds + time.perf_counter() - started))
    for url in cap.aborted:
        click.echo(f"  aborted: {url}")
