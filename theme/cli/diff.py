"""`theme diff A.png B.png`: compare two PNG files with pixelmatch semantics.

Exit 0 when they match, 1 when they differ, 2 when an input is missing,
unreadable or not a PNG (one line naming the file).
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import click

from . import main, project_options


@main.command("diff")
@click.argument("expected", type=click.Path(dir_okay=True, path_type=Path))
@click.argument("actual", type=click.Path(dir_okay=True, path_type=Path))
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the diff image here (PNG; red: changed, yellow: anti-aliasing).")
@click.option("--threshold", type=click.FloatRange(0, 1), default=0.1, show_default=True,
              help="Per-pixel colour distance that counts as a change (pixelmatch's).")
@click.option("--include-aa", is_flag=True, help="Count anti-aliased pixels as changes too.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@project_options
def diff(load_config, expected: Path, actual: Path, out: Path | None, threshold: float,
         include_aa: bool, as_json: bool) -> None:
    """Compare EXPECTED and ACTUAL PNG images; exit 1 if they differ."""
    # Decode both files on two threads (the decoder releases the GIL) while this
    # thread imports the compiled kernel: start-up cost hidden behind I/O.
    from .. import images

    with ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(images.read_png, p) for p in (expected, actual)]
        engine = _engine(expected, actual)
        if engine == "auto":
            _warm_kernel()
        img_a, img_b = (f.result() for f in futures)

    from ..config import Tolerance
    from ..diff import compare

    result = compare(img_a, img_b, Tolerance(threshold=threshold, include_aa=include_aa),
                     diff_image=out is not None, engine=engine)
    if out is not None:
        _write_diff(out, result.diff if result.diff is not None else _gray(img_a), engine)
    if as_json:
        data = result.to_json()
        data["expected"], data["actual"] = str(expected), str(actual)
        data["diff_image"] = str(out) if out is not None else None
        click.echo(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        click.echo(result.summary())
        if out is not None:
            click.echo(f"diff image: {out}")
    if not result.matches:
        raise SystemExit(1)


JIT_FROM_PIXELS = 4_000_000  # below this, importing numba (~0.3-0.5 s) costs more than it saves


def _engine(*paths: Path) -> str:
    """"numpy" for small images, "auto" (numba) for large ones, from the PNG headers."""
    pixels = 0
    for path in paths:
        try:
            with path.open("rb") as f:
                head = f.read(24)
            pixels = max(pixels, int.from_bytes(head[16:20], "big") * int.from_bytes(head[20:24], "big"))
        except OSError:
            pass  # read_png reports it
    return "auto" if pixels >= JIT_FROM_PIXELS else "numpy"


def _warm_kernel() -> None:
    try:
        from ..diff import jit  # noqa: F401 - importing numba takes ~0.2 s
    except ImportError:
        pass


def _gray(img):
    """Identical images: the diff image is the faded first image, as pixelmatch draws it."""
    import numpy as np

    from ..diff import pixelmatch

    out = np.empty_like(img)
    pixelmatch(img, img, img.shape[1], img.shape[0], out, engine="numpy" if img.size < 4 * JIT_FROM_PIXELS else "fast")
    return out


def _write_diff(path: Path, rgba, engine: str) -> None:
    """A throw-away artefact: zlib level 1, 8-bit palette when it fits (4x less to deflate)."""
    from .. import images
    from ..diff import palette

    indexed = palette(rgba, engine)
    if indexed is not None:
        images.write_png(path, indexed[0], level=1, palette=indexed[1])
    else:
        images.write_png(path, rgba, level=1)
