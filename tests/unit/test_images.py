"""PNG in and out: real files, errors that name the file, deterministic bytes."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from theme.core.errors import ImageError
from theme.pixels import images


def rgba(h=7, w=5, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w, 4), dtype=np.uint8)


def test_round_trip_is_lossless(tmp_path):
    a = rgba()
    images.write_png(tmp_path / "a.png", a)
    back = images.read_png(tmp_path / "a.png")
    assert back.dtype == np.uint8 and back.shape == (7, 5, 4) and np.array_equal(back, a)
    back[0, 0] = 1  # writable, owned


def test_same_pixels_same_bytes(tmp_path):
    a = rgba()
    images.write_png(tmp_path / "1.png", a, level=9)
    images.write_png(tmp_path / "2.png", a.copy(), level=9)
    assert (tmp_path / "1.png").read_bytes() == (tmp_path / "2.png").read_bytes()


@pytest.mark.parametrize("mode", ["RGB", "L", "P", "LA", "I;16"])
def test_other_png_modes_read_as_rgba(tmp_path, mode):
    src = Image.fromarray(rgba()[..., :3].copy(), "RGB")
    # Pillow converts RGB to I;16 only since 10.3; through L, the same greys, on any version
    src = (src.convert("L") if mode == "I;16" else src).convert(mode)
    src.save(tmp_path / "m.png")
    got = images.read_png(tmp_path / "m.png")
    want = np.array(Image.open(tmp_path / "m.png").convert("RGBA"))
    assert got.shape == (7, 5, 4) and np.array_equal(got, want)


def test_fast_decoder_and_pillow_agree(tmp_path):
    a = rgba(40, 30)
    images.write_png(tmp_path / "a.png", a)
    data = (tmp_path / "a.png").read_bytes()
    fast = images._fast_decode(data)
    if fast is None:
        pytest.skip("imagecodecs is not installed: Pillow is the only decoder")
    assert np.array_equal(fast, np.array(Image.open(tmp_path / "a.png").convert("RGBA")))


def test_palette_png_decodes_to_the_same_rgba(tmp_path):
    indices = np.array([[0, 1, 2], [2, 1, 0]], np.uint8)
    palette = np.array([[255, 0, 0, 255], [240, 240, 240, 255], [0, 0, 0, 0]], np.uint8)
    images.write_png(tmp_path / "p.png", indices, palette=palette, level=1)
    assert np.array_equal(images.read_png(tmp_path / "p.png"), palette[indices])


@pytest.mark.parametrize("content,message", [
    (None, "no such file"),
    (b"", "empty file"),
    (b"GIF89a....", "not a PNG file"),
    ("truncated", "corrupt or truncated PNG"),
    ("garbled", "corrupt or truncated PNG"),
])
def test_bad_files_name_the_file(tmp_path, content, message):
    path = tmp_path / "bad.png"
    good = tmp_path / "good.png"
    images.write_png(good, rgba(50, 50))
    data = good.read_bytes()
    if content == "truncated":
        content = data[: len(data) // 2]
    elif content == "garbled":
        content = data[:60] + bytes(255 - b for b in data[60:])
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ImageError) as err:
        images.read_png(path)
    text = str(err.value)
    assert text.startswith(f"{path}: ") and message in text and "\n" not in text


def test_a_folder_is_not_a_png(tmp_path):
    with pytest.raises(ImageError, match="is a folder"):
        images.read_png(tmp_path)


def test_write_is_atomic_and_leaves_no_temp_files(tmp_path):
    images.write_png(tmp_path / "sub" / "a.png", rgba())
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == ["a.png"]
    with pytest.raises(ValueError):
        images.write_png(tmp_path / "sub" / "a.png", np.zeros((2, 2, 4), np.float32))
    assert np.array_equal(images.read_png(tmp_path / "sub" / "a.png"), rgba())
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == ["a.png"]


def test_rgb_with_a_transparent_colour_keeps_its_transparency(tmp_path):
    """The fast decoder would drop a tRNS chunk: such files go to Pillow."""
    src = Image.fromarray(rgba()[..., :3].copy(), "RGB")
    colour = tuple(int(c) for c in np.asarray(src)[0, 0])
    src.save(tmp_path / "t.png", transparency=colour)
    got = images.read_png(tmp_path / "t.png")
    assert np.array_equal(got, np.array(Image.open(tmp_path / "t.png").convert("RGBA")))
    assert got[0, 0, 3] == 0


def test_the_fast_decoder_takes_only_8_bit_rgb_and_rgba(tmp_path):
    pytest.importorskip("imagecodecs")
    images.write_png(tmp_path / "a.png", rgba(9, 4))
    assert images._fast_decode((tmp_path / "a.png").read_bytes()) is not None
    images.write_png(tmp_path / "p.png", np.zeros((3, 3), np.uint8), palette=np.array([[1, 2, 3, 0]], np.uint8))
    assert images._fast_decode((tmp_path / "p.png").read_bytes()) is None


# --- the libdeflate + unfilter decoder (theme/pixels/pngfilter.py) -------------------------------

def _filter_bytes(data: bytes) -> set[int]:
    """The scanline filter types a PNG file uses (inflated independently of theme)."""
    import struct
    import zlib

    pos, stream, width, bpp = 8, b"", 0, 4
    while pos < len(data):
        length, kind = struct.unpack_from(">I4s", data, pos)
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, bpp = struct.unpack(">I", body[:4])[0], {2: 3, 6: 4}[body[9]]
        elif kind == b"IDAT":
            stream += body
        pos += 12 + length
    raw = zlib.decompress(stream)
    return set(raw[:: width * bpp + 1])


@pytest.fixture
def kernels():
    from theme.pixels import aot

    module = aot.get()
    if module is None:
        pytest.skip("the compiled kernels cannot be built here (numba or a C compiler missing)")
    return module


FILTERS = ["NONE", "SUB", "UP", "AVG", "PAETH", "ALL"]


@pytest.mark.parametrize("channels", [3, 4])
@pytest.mark.parametrize("shape", [(1, 1), (1, 9), (9, 1), (33, 47)])
@pytest.mark.parametrize("kind", FILTERS)
def test_every_png_filter_decodes_as_pillow_decodes_it(kernels, channels, shape, kind):
    """libpng (through imagecodecs) writes each filter type; ours must undo it exactly."""
    imagecodecs = pytest.importorskip("imagecodecs")
    rng = np.random.default_rng(shape[0] * 100 + shape[1])
    # smooth gradients plus noise: every predictor (left, up, upper-left) gets exercised
    y, x = np.mgrid[: shape[0], : shape[1]]
    base = (y[..., None] * 7 + x[..., None] * 3 + np.arange(channels) * 50) % 256
    pixels = (base + rng.integers(0, 20, shape + (channels,))).astype(np.uint8)
    data = imagecodecs.png_encode(pixels, level=6, filter=int(getattr(imagecodecs.PNG.FILTER, kind)))
    if kind != "ALL" and min(shape) > 1:  # libpng may use a simpler filter on row 0 or 1 px
        assert FILTERS.index(kind) in _filter_bytes(data)  # the case tests what it says
    got = images._inflate_and_unfilter(data)
    assert got is not None and got.shape == shape + (4,) and got.flags.c_contiguous
    assert np.array_equal(got[..., :channels], pixels)
    if channels == 3:
        assert (got[..., 3] == 255).all()
    want = np.array(Image.open(__import__("io").BytesIO(data)).convert("RGBA"))
    assert np.array_equal(images.decode_png(data), want)


def test_a_page_image_takes_the_fast_path(kernels, tmp_path, monkeypatch):
    page = np.random.default_rng(2).integers(0, 256, (300, 64, 4), dtype=np.uint8)
    images.write_png(tmp_path / "p.png", page, level=9)  # Pillow's adaptive filters: a mix
    assert len(_filter_bytes((tmp_path / "p.png").read_bytes())) > 1
    monkeypatch.setattr(images, "_spng", lambda *a: pytest.fail("libspng used"))
    got = images.read_png(tmp_path / "p.png")
    assert np.array_equal(got, page) and got.flags.c_contiguous and got.flags.writeable


@pytest.mark.parametrize("damage", ["crc", "filter byte", "short stream", "no IEND", "interlaced"])
def test_anything_unusual_leaves_the_fast_path_and_errors_still_name_the_file(
        kernels, tmp_path, damage):
    import struct
    import zlib

    pytest.importorskip("imagecodecs")
    pixels = rgba(20, 10)
    data = bytearray(images.encode_png(pixels, level=6))
    idat = data.index(b"IDAT")
    length = struct.unpack_from(">I", data, idat - 4)[0]

    def rechunk(body: bytes) -> bytes:
        chunk = struct.pack(">I", len(body)) + b"IDAT" + body
        return chunk + struct.pack(">I", zlib.crc32(b"IDAT" + body))

    stream = bytes(data[idat + 4:idat + 4 + length])
    if damage == "crc":
        data[idat + 10] ^= 0xFF
    elif damage == "filter byte":
        raw = bytearray(zlib.decompress(stream))
        raw[(10 * 4 + 1) * 3] = 9  # row 3: filter type 9 does not exist
        data = data[:idat - 4] + rechunk(zlib.compress(bytes(raw))) + data[idat + 8 + length:]
    elif damage == "short stream":
        raw = zlib.decompress(stream)[:-41]
        data = data[:idat - 4] + rechunk(zlib.compress(raw)) + data[idat + 8 + length:]
    elif damage == "no IEND":
        data = data[:data.index(b"IEND") - 4]
    elif damage == "interlaced":  # Adam7: left to libspng or Pillow
        data = bytearray(images.encode_png(pixels))
        data[28] = 1  # IHDR's interlace byte, with its CRC fixed (the pixels then read as garbage)
        data[29:33] = struct.pack(">I", zlib.crc32(bytes(data[12:29])))
    assert images._inflate_and_unfilter(bytes(data)) is None
    path = tmp_path / "bad.png"
    path.write_bytes(bytes(data))
    if damage in ("short stream", "no IEND"):  # the other decoders take these
        with Image.open(path) as im:
            assert np.array_equal(images.read_png(path), np.array(im.convert("RGBA")))
        return
    with pytest.raises(ImageError) as err:
        images.read_png(path)
    assert str(err.value).startswith(f"{path}: ")


# --- the artefact encoder -----------------------------------------------------------------

@pytest.mark.parametrize("shape", [(1, 1, 4), (1, 7, 3), (9, 1, 4), (31, 17, 4), (31, 17, 3)])
def test_artefact_pngs_hold_exactly_the_pixels(tmp_path, shape):
    pixels = np.random.default_rng(sum(shape)).integers(0, 256, shape, dtype=np.uint8)
    images.write_png(tmp_path / "a.png", pixels, artefact=True)
    with Image.open(tmp_path / "a.png") as im:
        assert np.array_equal(np.array(im), pixels)


def test_artefact_palette_pngs_keep_colours_and_transparency(tmp_path):
    indices = np.random.default_rng(4).integers(0, 3, (40, 25), dtype=np.uint8)
    palette = np.array([[255, 0, 0, 255], [240, 240, 240, 255], [0, 0, 0, 0]], np.uint8)
    images.write_png(tmp_path / "p.png", indices, palette=palette, artefact=True)
    with Image.open(tmp_path / "p.png") as im:
        assert im.mode == "P"
        assert np.array_equal(np.array(im.convert("RGBA")), palette[indices])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.png"]


@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
def test_without_the_compiled_kernel_libspng_gives_the_same_rgba(tmp_path, monkeypatch, mode):
    pytest.importorskip("imagecodecs")
    from theme.pixels import aot

    monkeypatch.setattr(aot, "load", lambda: None)
    pixels = rgba(23, 17)[..., : len(mode)].copy()
    Image.fromarray(pixels, mode).save(tmp_path / "a.png")
    got = images.read_png(tmp_path / "a.png")
    with Image.open(tmp_path / "a.png") as im:
        assert np.array_equal(got, np.array(im.convert("RGBA"))) and got.flags.c_contiguous


@pytest.mark.parametrize("channels", [3, 4])
def test_decoding_into_a_buffer_gives_pillows_pixels_and_writes_only_its_room(kernels, channels):
    """out= is how a page's tiles are decoded straight into the page image: the pixels
    are Pillow's, the result is a view of the buffer, and nothing past
    decode_room() is touched (the next tile's rows and the seam copy depend on it)."""
    imagecodecs = pytest.importorskip("imagecodecs")
    pixels = np.random.default_rng(channels).integers(0, 256, (37, 23, channels), dtype=np.uint8)
    data = imagecodecs.png_encode(pixels, level=6, filter=int(imagecodecs.PNG.FILTER.ALL))
    room = images.decode_room(23, 37)
    buf = np.full(room + 64, 77, np.uint8)
    got = images.decode_png(data, out=buf[10:])
    want = np.array(Image.open(__import__("io").BytesIO(data)).convert("RGBA"))
    assert np.array_equal(got, want) and np.shares_memory(got, buf)
    assert got.__array_interface__["data"][0] == buf[10:].__array_interface__["data"][0]
    assert (buf[:10] == 77).all() and (buf[10 + room:] == 77).all()


def test_a_buffer_too_small_is_not_used_and_the_pixels_are_the_same(kernels):
    imagecodecs = pytest.importorskip("imagecodecs")
    pixels = np.random.default_rng(5).integers(0, 256, (20, 9, 4), dtype=np.uint8)
    data = imagecodecs.png_encode(pixels, level=6)
    small = np.full(images.decode_room(9, 20) - 1, 77, np.uint8)
    got = images.decode_png(data, out=small)
    assert np.array_equal(got, pixels) and not np.shares_memory(got, small) and (small == 77).all()


def test_an_opaque_image_is_encoded_from_its_own_memory_into_the_png_a_copy_gives(tmp_path):
    """images.rgb_view shares the array's memory (a page is not copied to be encoded, nor read
    before the encoder gets to it): the PNG is the one Pillow writes from an RGB copy, and its
    reduction the RGBA one, also from a read-only memory-mapped page."""
    rng = np.random.default_rng(5)
    page = rng.integers(0, 256, (301, 97, 4), dtype=np.uint8)
    page[100:250, 10:80, :3] = 240
    page[:, :, 3] = 255
    np.save(tmp_path / "page.npy", page)
    mapped = np.load(tmp_path / "page.npy", mmap_mode="r")
    copy = Image.frombytes("RGB", (97, 301), page.tobytes(), "raw", "RGBX", 0, 1)
    for level in (3, 9):
        buf = io.BytesIO()
        copy.save(buf, format="PNG", compress_level=level)
        assert images.encode_png(mapped, level=level, drop_alpha=True) == buf.getvalue()
    view = images.rgb_view(mapped)
    assert view.mode == "RGB" and view.size == (97, 301)
    reduced = np.asarray(view.reduce(7))
    assert np.array_equal(reduced[:, :, :3], np.asarray(Image.fromarray(page, "RGBA").reduce(7))[:, :, :3])
