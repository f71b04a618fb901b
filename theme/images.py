"""PNG in and out, nothing else: (H, W, 4) uint8 RGBA arrays on the Python side.

Reading: imagecodecs' libspng decoder when installed (about 3x faster than
Pillow on 80 MB page images, and it releases the GIL so two images decode on
two cores at once), else Pillow. Both
give the same pixels; tests/unit/test_images.py checks that.

Writing: Pillow, always, so the bytes of a file depend only on the pixels, the
options and the Pillow version (no timestamps or text chunks are written).
`level` is the zlib level: 9 for committed baselines, 1 for throw-away diff
images. A (H, W) uint8 index array with `palette=` writes an 8-bit palette PNG:
a diff image has fewer than 256 colours, and one byte per pixel compresses
about 4x faster than four.
"""

from __future__ import annotations

import io
import zlib
from pathlib import Path

import numpy as np

from .errors import ImageError
from .fsutil import atomic_open

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def pillow():
    """PIL.Image, imported on first use: `theme diff` decodes with imagecodecs and
    needs Pillow only to write, so it imports it while the decoder runs."""
    from PIL import Image

    # Pillow refuses images above ~179 MP by default ("decompression bomb"); a
    # long article's page is ~160 MP, so allow up to 1 gigapixel.
    Image.MAX_IMAGE_PIXELS = 1 << 30
    return Image


def read_png(path: Path | str) -> np.ndarray:
    """The PNG at `path` as a C-contiguous (H, W, 4) uint8 RGBA array."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImageError(f"{path}: no such file; check the path") from None
    except IsADirectoryError:
        raise ImageError(f"{path}: is a folder, not a PNG file") from None
    except OSError as err:
        raise ImageError(f"{path}: cannot read: {err.strerror}") from None
    return decode_png(data, name=str(path))


def decode_png(data: bytes, *, name: str = "<bytes>") -> np.ndarray:
    """Decode PNG bytes to (H, W, 4) uint8 RGBA; ImageError naming `name` if broken."""
    if not data.startswith(PNG_SIGNATURE):
        what = "empty file" if not data else "not a PNG file (bad signature)"
        raise ImageError(f"{name}: {what}; give a PNG image")
    fast = _fast_decode(data)
    if fast is not None:
        return fast
    Image = pillow()
    try:
        with Image.open(io.BytesIO(data)) as im:
            im.load()
            rgba = im if im.mode == "RGBA" else im.convert("RGBA")
            return np.array(rgba)  # np.array copies: writable and owned
    except (OSError, SyntaxError, ValueError, zlib.error, Image.DecompressionBombError) as err:
        raise ImageError(f"{name}: corrupt or truncated PNG ({err}); re-create the file") from None


def _plain_8bit_colour(data: bytes) -> bool:
    """True for an 8-bit RGBA PNG, or an 8-bit RGB one without a tRNS chunk (the
    fast decoder drops transparency chunks): what screenshots and theme's own files are."""
    if len(data) < 26 or data[12:16] != b"IHDR":
        return False
    depth, colour = data[24], data[25]
    if depth != 8 or colour not in (2, 6):
        return False
    if colour == 2:
        end = data.find(b"IDAT")
        return b"tRNS" not in (data[:end] if end >= 0 else data)
    return True


def _fast_decode(data: bytes) -> np.ndarray | None:
    """imagecodecs for the common 8-bit RGB/RGBA case; None means "ask Pillow"."""
    try:
        import imagecodecs
    except ImportError:
        return None
    if not _plain_8bit_colour(data):
        return None  # grey, palette, 16-bit, tRNS: Pillow's conversions define the RGBA we want
    try:
        # libspng, not libpng (png_decode): measured here, png_decode holds the GIL,
        # so two images "in parallel" took as long as one after the other (0.38 s
        # for two 1280×16 000 pages); spng_decode releases it (0.22 s).
        arr = imagecodecs.spng_decode(data)
    except Exception:  # noqa: BLE001 - any failure: Pillow decides and names the error
        return None
    if arr.dtype != np.uint8 or arr.ndim != 3 or arr.shape[2] not in (3, 4):
        return None  # grey, palette, 16-bit: Pillow's conversions define the RGBA we want
    if arr.shape[2] == 3:
        rgba = np.empty(arr.shape[:2] + (4,), np.uint8)
        rgba[..., :3] = arr
        rgba[..., 3] = 255
        return rgba
    return np.ascontiguousarray(arr)


def encode_png(array: np.ndarray, *, level: int = 6, optimize: bool = False,
               palette: np.ndarray | None = None) -> bytes:
    """PNG bytes of an (H, W, 4) or (H, W, 3) uint8 array, or of (H, W) indices + palette."""
    Image = pillow()
    array = np.ascontiguousarray(array)
    if array.dtype != np.uint8:
        raise ValueError(f"PNG pixels must be uint8, got {array.dtype}")
    if palette is not None:
        im = Image.frombuffer("P", (array.shape[1], array.shape[0]), array, "raw", "P", 0, 1)
        pal = np.asarray(palette, np.uint8).reshape(-1, 4)
        im.putpalette(pal[:, :3].tobytes(), rawmode="RGB")
        kwargs = {"transparency": pal[:, 3].tobytes()} if (pal[:, 3] != 255).any() else {}
    else:
        if array.ndim != 3 or array.shape[2] not in (3, 4):
            raise ValueError(f"expected an (H, W, 4) RGBA array, got shape {array.shape}")
        im = Image.fromarray(array, "RGBA" if array.shape[2] == 4 else "RGB")
        kwargs = {}
    buf = io.BytesIO()
    im.save(buf, format="PNG", compress_level=level, optimize=optimize, **kwargs)
    return buf.getvalue()


def write_png(path: Path | str, array: np.ndarray, *, optimize: bool = False, level: int = 6,
              palette: np.ndarray | None = None) -> None:
    """Write `array` as a PNG at `path`, atomically (a reader never sees half a file)."""
    data = encode_png(array, level=level, optimize=optimize, palette=palette)
    with atomic_open(Path(path)) as f:
        f.write(data)
