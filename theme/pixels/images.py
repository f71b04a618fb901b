"""PNG in and out, nothing else: (H, W, 4) uint8 RGBA arrays on the Python side.

Reading takes the fastest decoder that applies (_fast_decode, else Pillow), all giving the same pixels
(tests/unit/test_images.py). Writing: Pillow, byte-stable for baselines; artefacts: _encode_fast.
"""

from __future__ import annotations

import hashlib
import io
import re
import struct
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.errors import ImageError, LfsPointerError
from ..core.fsutil import atomic_open

if TYPE_CHECKING:
    from hashlib import _Hash

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# What a checkout without Git LFS leaves in place of a tracked file (git-lfs spec v1).
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1"
MAX_PIXELS = 1 << 30


PIXEL_ROWS = 2048  # rows hashed at a time: no full-size temporary for a strided view


def pixels_hasher(shape: tuple[int, ...]) -> "_Hash":
    """A sha256 seeded with an image's height and width; feed it the RGBA rows in order
    to get pixels_sha256 of the whole image (a page is hashed band by band as it is written)."""
    return hashlib.sha256(f"{shape[0]}x{shape[1]}:".encode())


def pixels_sha256(image: np.ndarray) -> str:
    """sha256 of an RGBA image's shape and pixels: the same pixels give the same digest
    whatever PNG encoder wrote them (a file's bytes do not)."""
    h = pixels_hasher(image.shape)
    for y in range(0, image.shape[0], PIXEL_ROWS):
        h.update(np.ascontiguousarray(image[y:y + PIXEL_ROWS]).data)
    return str(h.hexdigest())


def load_pillow() -> None:
    """Pillow imported on first use (`theme diff` decodes with imagecodecs and needs
    Pillow only to write, so it imports it while the decoder runs), with its limit
    raised: callers then `from PIL import Image`."""
    from PIL import Image

    # Pillow refuses images above ~179 MP by default ("decompression bomb"); a
    # long article's page is ~160 MP, so allow up to 1 gigapixel.
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS


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


def decode_png(data: bytes, *, name: str = "<bytes>", out: np.ndarray | None = None) -> np.ndarray:
    """Decode PNG bytes to (H, W, 4) uint8 RGBA; ImageError naming `name` if broken.

    `out`: a 1-D uint8 buffer the fastest decoder may decode into (it then returns
    a view of `out`'s first 4·W·H bytes, and may have written up to H bytes past
    them, the filter bytes of an RGBA stream); it needs decode_room(width, height) bytes.
    Any other decoder ignores it and returns a new array (np.may_share_memory tells).
    Decoding a tile straight into the page image saves a second image-sized
    buffer: its fresh pages cost as much to fault in as the decode itself.
    Without `out`, a page-sized image is decoded into a file-backed buffer (_room).
    """
    if data.startswith(LFS_POINTER):
        raise LfsPointerError(f"{name}: {lfs_pointer_words(data)}")
    if not data.startswith(PNG_SIGNATURE):
        what = "empty file" if not data else "not a PNG file (bad signature)"
        raise ImageError(f"{name}: {what}; give a PNG image")
    room = _room(data) if out is None else None
    if room is not None:
        from .resident import kept_down

        with kept_down(room):  # rows are read back from the file mapping when needed
            fast = _fast_decode(data, room)
    else:
        fast = _fast_decode(data, out)
    if fast is not None:
        return fast
    load_pillow()
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as im:
            im.load()
            rgba = im if im.mode == "RGBA" else im.convert("RGBA")
            return np.array(rgba)  # np.array copies: writable and owned
    except (OSError, SyntaxError, ValueError, zlib.error, Image.DecompressionBombError) as err:
        raise ImageError(f"{name}: corrupt or truncated PNG ({err}); re-create the file") from None


def lfs_pointer_words(data: bytes) -> str:
    """What to say about an LFS pointer: what it is, the size of the PNG it stands for, what to run."""
    size = re.search(rb"^size (\d+)$", data[:1024], re.M)
    stands_for = f" (a {int(size[1]):,} byte PNG)" if size else ""
    return f"a Git LFS pointer, not the image it stands for{stands_for}; {LFS_ADVICE}"


LFS_ADVICE = ("run `git lfs pull` (after `git lfs install`), and check out with LFS in CI "
              "(actions/checkout: lfs: true)")


def _room(data: bytes) -> np.ndarray | None:
    """A file-backed buffer to decode a page-sized image into (theme/pixels/resident.py), released
    once decoded: a failed page check then holds its baseline a band of rows at a time, not
    as 650 MB more of anonymous memory beside the page captured. None for smaller images."""
    if len(data) < 24 or data[12:16] != b"IHDR":
        return None
    from .resident import FILE_BACKED_BYTES, file_backed

    width, height = struct.unpack(">II", data[16:24])
    if not 0 < decode_room(width, height) <= MAX_PIXELS * 5 or 4 * width * height < FILE_BACKED_BYTES:
        return None
    return file_backed(decode_room(width, height))[0]


def _plain_8bit_colour(data: bytes) -> bool:
    """True for an 8-bit RGBA PNG, or an 8-bit RGB one without a tRNS chunk (the
    fast decoders drop transparency chunks): what screenshots and theme's own files are."""
    if len(data) < 26 or data[12:16] != b"IHDR":
        return False
    depth, colour = data[24], data[25]
    if depth != 8 or colour not in (2, 6):
        return False
    if colour == 2:
        end = data.find(b"IDAT")
        return b"tRNS" not in (data[:end] if end >= 0 else data)
    return True


def decode_room(width: int, height: int) -> int:
    """Bytes decode_png(out=...) needs for a width × height image: its RGBA, plus an
    RGBA stream's filter bytes (one per row), which are inflated before being undone."""
    return height * (4 * width + 1)


def _fast_decode(data: bytes, out: np.ndarray | None = None) -> np.ndarray | None:
    """The common 8-bit RGB/RGBA case without Pillow; None means "ask Pillow".

    Fastest first: libdeflate (imagecodecs) plus theme's unfilter kernel (theme/pixels/pngfilter.py),
    which also turns RGB into RGBA in place, else libspng. Both are faster than Pillow and
    release the GIL, so two images decode on two cores at once (measured: benchmarks/README.md).
    """
    if not _plain_8bit_colour(data):
        return None  # grey, palette, 16-bit, tRNS: Pillow's conversions define the RGBA we want
    try:
        import imagecodecs  # noqa: F401  (whether it imports; the decoders take it from sys.modules)
    except ImportError:
        return None
    arr = _inflate_and_unfilter(data, out)
    return arr if arr is not None else _spng(data)


def _inflate_and_unfilter(data: bytes, out: np.ndarray | None = None) -> np.ndarray | None:
    """Chunks parsed here, IDAT inflated by libdeflate into the output buffer, the
    filters undone and RGB widened to RGBA in place by the compiled kernel
    (theme/pixels/pngfilter.py): (H, W, 4), or None for anything unusual (interlaced, a
    bad CRC, a short stream), which the slower decoders then decode or name as broken."""
    import imagecodecs

    from . import aot

    kernels = aot.load()  # only a cached module: building one is the diff's business
    if kernels is None or not imagecodecs.DEFLATE.available:
        return None
    chunks = _chunks(data)
    if chunks is None or not chunks or chunks[0][0] != b"IHDR" or len(chunks[0][1]) != 13:
        return None
    width, height, depth, colour, compression, filtering, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if (depth, compression, filtering, interlace) != (8, 0, 0, 0) or colour not in (2, 6):
        return None
    if not 0 < width * height <= MAX_PIXELS:
        return None  # Pillow names it (a decompression bomb, or no pixels)
    channels = 3 if colour == 2 else 4
    filtered = height * (channels * width + 1)
    room = max(filtered, 4 * width * height)  # the RGBA it becomes, and the stream before that
    if (out is not None and out.dtype == np.uint8 and out.ndim == 1 and out.flags.c_contiguous
            and out.flags.writeable and len(out) >= room):
        buf = out[:room]
    else:
        buf = np.empty(room, np.uint8)
    stream = b"".join(body for kind, body in chunks if kind == b"IDAT")
    try:
        # into the page's own buffer: any writable buffer will do; the stub names bytearray
        got = imagecodecs.deflate_decode(stream, out=buf[:filtered])  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - a corrupt stream: the next decoder names it
        return None
    if len(got) != filtered or kernels.unfilter(buf, height, width, channels) != -1:
        return None
    return buf[:4 * width * height].reshape(height, width, 4)


def _chunks(data: bytes) -> list[tuple[bytes, memoryview]] | None:
    """[(type, body)] up to IEND, each CRC checked as Pillow does; None if any is
    truncated or fails its CRC."""
    view, pos = memoryview(data), len(PNG_SIGNATURE)
    out: list[tuple[bytes, memoryview]] = []
    while pos + 12 <= len(data):
        length, kind = struct.unpack_from(">I4s", data, pos)
        end = pos + 8 + length
        if end + 4 > len(data):
            return None
        crc, = struct.unpack_from(">I", data, end)
        if zlib.crc32(view[pos + 4:end]) != crc:
            return None
        if kind == b"IEND":
            return out
        out.append((kind, view[pos + 8:end]))
        pos = end + 4
    return None  # no IEND: truncated


def _spng(data: bytes) -> np.ndarray | None:
    """(H, W, 4) RGBA by libspng, or None."""
    import imagecodecs

    try:
        # libspng, not libpng (png_decode): png_decode holds the GIL, so two images
        # "in parallel" take as long as in turn (measured: benchmarks/README.md).
        arr = imagecodecs.spng_decode(data)
    except Exception:  # noqa: BLE001 - any failure: Pillow decides and names the error
        return None
    if arr.dtype != np.uint8 or arr.ndim != 3 or arr.shape[2] not in (3, 4):
        return None  # grey, palette, 16-bit: Pillow's conversions define the RGBA we want
    if arr.shape[2] == 4:
        return np.ascontiguousarray(arr)
    rgba = np.empty(arr.shape[:2] + (4,), np.uint8)
    rgba[..., :3] = arr
    rgba[..., 3] = 255
    return rgba


def encode_png(array: np.ndarray, *, level: int = 6, optimize: bool = False,
               palette: np.ndarray | None = None, artefact: bool = False, drop_alpha: bool = False) -> bytes:
    """PNG bytes of an (H, W, 4) or (H, W, 3) uint8 array, or of (H, W) indices + palette.

    Pillow writes no timestamps or text chunks: the bytes depend only on the pixels, the
    options and the Pillow version. `level` is the zlib level (committed baselines: store._encode_baseline).
    Indices + `palette` make an 8-bit palette PNG: a diff image has fewer than 256 colours,
    and one byte a pixel deflates much faster than four (benchmarks/README.md).

    artefact=True: a throw-away file (a diff image, a failed check's actual) that
    must be fast to write, not small or byte-stable across library versions:
    encoded by _encode_fast when zlib-ng is there, `level` ignored.
    drop_alpha=True: an (H, W, 4) array written as an RGB PNG, its alpha left out (the
    caller knows it is all 255) by Pillow's RGBX unpacker in C, not by an RGB copy in numpy.
    """
    array = np.ascontiguousarray(array)
    if array.dtype != np.uint8:
        raise ValueError(f"PNG pixels must be uint8, got {array.dtype}")
    if palette is None and (array.ndim != 3 or array.shape[2] not in (3, 4)):
        raise ValueError(f"expected an (H, W, 4) RGBA array, got shape {array.shape}")
    if artefact:
        fast = _encode_fast(array, palette)
        if fast is not None:
            return fast
    load_pillow()
    from PIL import Image

    if palette is not None:
        im = Image.frombuffer("P", (array.shape[1], array.shape[0]), array, "raw", "P", 0, 1)
        pal = np.asarray(palette, np.uint8).reshape(-1, 4)
        im.putpalette(pal[:, :3].tobytes(), rawmode="RGB")
        kwargs = {"transparency": pal[:, 3].tobytes()} if (pal[:, 3] != 255).any() else {}
    elif drop_alpha and array.shape[2] == 4:
        im, kwargs = rgb_view(array), {}
    else:
        im = Image.fromarray(array, "RGBA" if array.shape[2] == 4 else "RGB")
        kwargs = {}
    from .resident import kept_down

    buf = io.BytesIO()
    # Pillow's encoder reads a file-backed page's rows in order and keeps none: they are dropped
    # as it goes, or a page's encode beside the next variant's render held all 670 MB of them.
    with kept_down(array):
        im.save(buf, format="PNG", compress_level=level, optimize=optimize, **kwargs)
    return buf.getvalue()


def rgb_view(array: np.ndarray) -> Any:
    """A Pillow "RGB" image of a C-contiguous (H, W, 4) uint8 array whose alpha is all 255,
    sharing its memory: Pillow keeps RGB as four bytes a pixel, RGBX, the layout of RGBA, so
    the page is neither copied (650 MB for a 1280 x 127 000 page, and the time to fill it)
    nor, when memory-mapped, read before the encoder gets to it. Its reductions (Image.reduce)
    are the RGBA ones for an opaque image. A Pillow that maps the buffer otherwise gets a
    copy (frombytes), the same pixels; tests/unit/test_images.py checks both give one PNG."""
    load_pillow()
    from PIL import Image

    size = (array.shape[1], array.shape[0])
    im = Image.frombuffer("RGB", size, array, "raw", "RGBX", 0, 1)  # mapped: its core mode is RGBX
    if im.mode == "RGBX" and isinstance(getattr(im, "_mode", None), str):
        im._mode = "RGB"  # what the PNG writer reads: RGB is stored as RGBX already
        return im
    return Image.frombytes("RGB", size, array, "raw", "RGBX", 0, 1)


def _encode_fast(array: np.ndarray, palette: np.ndarray | None) -> bytes | None:
    """A PNG assembled here and deflated by zlib-ng at level 1, or None without it.

    Faster than Pillow even at level 0, whose row-by-row encoder is the cost (measured:
    benchmarks/README.md). Scanlines use the Up filter, computed for all rows at once by numpy:
    screenshots repeat rows, so it deflates to mostly zeros. Files are larger than
    Pillow's at level 9, which is why baselines never come here.
    """
    try:
        import imagecodecs
    except ImportError:
        return None
    if not imagecodecs.ZLIBNG.available:
        return None
    height, width = array.shape[:2]
    rows = array.reshape(height, -1)
    if palette is not None:
        pal = np.asarray(palette, np.uint8).reshape(-1, 4)
        colour, extra = 3, [(b"PLTE", pal[:, :3].tobytes())]
        if (pal[:, 3] != 255).any():
            extra.append((b"tRNS", pal[:, 3].tobytes()))
    else:
        colour, extra = (6 if array.shape[2] == 4 else 2), []
    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    chunks = [(b"IHDR", header), *extra,
              # any buffer will do; the stub names bytes only
              (b"IDAT", _deflate_up(rows, imagecodecs)),
              (b"IEND", b"")]
    out = [PNG_SIGNATURE]
    for kind, body in chunks:
        out += [struct.pack(">I", len(body)), kind, body,
                struct.pack(">I", zlib.crc32(body, zlib.crc32(kind)))]
    return b"".join(out)


FAST_BAND_BYTES = 16 * 2**20  # larger images are filtered and deflated a band of rows at a time


def _deflate_up(rows: np.ndarray, imagecodecs: Any) -> bytes:
    """The zlib stream of `rows` as scanlines with the Up filter. A page of 1280 x 127 000 px
    goes a band at a time through zlib's stream (level 1, about as fast there: 3.7 s against
    3.4 s), so that no filtered copy of the whole page is ever held (650 MB more)."""
    from .resident import release

    height = rows.shape[0]
    band = max(1, FAST_BAND_BYTES // max(1, rows.shape[1]))
    squeeze = zlib.compressobj(1) if height > band else None
    out = []
    for y in range(0, height, band):
        part = rows[y:y + band]
        lines = np.empty((len(part), part.shape[1] + 1), np.uint8)
        lines[:, 0] = 2 if height > 1 else 0  # Up (the first row's "above" is zeros: unchanged)
        np.subtract(part[0], rows[y - 1] if y else 0, out=lines[0, 1:], casting="unsafe")
        np.subtract(part[1:], part[:-1], out=lines[1:, 1:])  # uint8: wraps mod 256 as PNG's Up does
        if squeeze is None:
            return bytes(imagecodecs.zlibng_encode(lines, level=1))  # one band: zlib-ng at once
        out.append(squeeze.compress(lines.data))
        release(rows, max(0, y - 1), y + band - 1)  # a file-backed page's rows done with (the last is "above")
    assert squeeze is not None
    out.append(squeeze.flush())
    return b"".join(out)


def write_png(path: Path | str, array: np.ndarray, *, optimize: bool = False, level: int = 6,
              palette: np.ndarray | None = None, artefact: bool = False) -> None:
    """Write `array` as a PNG at `path`, atomically (a reader never sees half a file);
    an artefact is not fsync'ed (see fsutil.atomic_open)."""
    data = encode_png(array, level=level, optimize=optimize, palette=palette, artefact=artefact)
    with atomic_open(Path(path), durable=not artefact) as f:
        f.write(data)
