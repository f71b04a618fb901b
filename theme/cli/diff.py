"""`theme diff A.png B.png`: pixelmatch semantics; exit 0 if they match, 1 if not, 2 on a missing or bad PNG.

A short-lived process timed end to end against odiff (benchmarks/diff_bench.py), so fixed costs matter: only
numpy and imagecodecs are imported (pixels/images.py), and the kernel is the ahead-of-time compiled one (see _engine).
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import click

from . import LoadConfig, main, project_options

if TYPE_CHECKING:  # imported while the images decode (see diff)
    import numpy as np

    from ..pixels.diff import IndexedImage


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
def diff(load_config: LoadConfig, expected: Path, actual: Path, out: Path | None, threshold: float,
         include_aa: bool, as_json: bool) -> None:
    """Compare EXPECTED and ACTUAL PNG images; exit 1 if they differ."""
    from ..pixels import images

    with ThreadPoolExecutor(2) as pool:  # the decoder releases the GIL: one image per core
        decoded = pool.map(images.read_png, (expected, actual))
        # meanwhile this thread does the imports the rest needs (~50 ms hidden)
        from ..core.config import Tolerance
        from ..pixels.diff import IndexedImage, compare
        img_a, img_b = decoded

    engine = _engine(img_a, img_b)
    result = compare(img_a, img_b, Tolerance(threshold=threshold, include_aa=include_aa),
                     diff_image="indexed" if out is not None else False, engine=engine)
    if out is not None:
        # diff_image="indexed": an IndexedImage, or none when the images are identical
        _write_diff(out, result.diff if isinstance(result.diff, IndexedImage) else _faded(img_a, engine))
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


# Which kernel: the ahead-of-time compiled one (theme/pixels/aot.py), which loads in about a millisecond;
# else the numba JIT once numpy's estimated extra time exceeds the JIT's start-up, else numpy.
# Costs per pixel from benchmarks/diff_bench.py (measured: benchmarks/README.md).
JIT_START_S = 0.6
NUMPY_S_PER_PIXEL, NUMPY_S_PER_DIFFERING = 22.5e-9, 380e-9  # in excess of the JIT's
SAMPLE_EVERY = 16  # rows: the estimate of differing pixels reads 1/16 of the images


def _engine(img_a: np.ndarray, img_b: np.ndarray) -> str:
    """"aot" if available (built on first use), else "numba" if numpy would take longer
    than the JIT's start-up, else "numpy"."""
    import numpy as np

    from ..pixels import aot

    if aot.load() is None:
        name = aot.module_name()
        if name is not None and not aot.failed(name):
            click.echo("theme: compiling the diff kernel for this machine, once (about 10 s)", err=True)
    if aot.get() is not None:
        return "aot"
    if img_a.shape != img_b.shape:
        return "numpy"
    a32 = img_a[::SAMPLE_EVERY].view(np.uint32)
    b32 = img_b[::SAMPLE_EVERY].view(np.uint32)
    differing = int(np.count_nonzero(a32 != b32)) * SAMPLE_EVERY
    pixels = img_a.shape[0] * img_a.shape[1]
    saved = pixels * NUMPY_S_PER_PIXEL + differing * NUMPY_S_PER_DIFFERING
    if saved > JIT_START_S and "numba" in available_engines():
        return "numba"
    return "numpy"


def available_engines() -> list[str]:
    from ..pixels.diff import available_engines as engines

    return engines()


def _faded(img: np.ndarray, engine: str) -> IndexedImage:
    """Identical images: the diff image is the faded first image, as pixelmatch draws it."""
    import numpy as np

    from ..pixels.diff import IndexedImage, kernel

    out = np.empty(img.shape[:2], np.uint8)
    kernel.run(img, img, out, engine=engine)
    return IndexedImage(out, kernel.index_palette(kernel.Style()))


def _write_diff(path: Path, image: IndexedImage) -> None:
    """A throw-away artefact: an 8-bit palette PNG (a quarter of the bytes of RGBA to
    filter and deflate), written by images' fast encoder."""
    from ..pixels import images

    images.write_png(path, image.indices, palette=image.palette, artefact=True)
