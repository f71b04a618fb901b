"""PNG in and out: real files, errors that name the file, deterministic bytes."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from theme import images
from theme.errors import ImageError


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
    src = Image.fromarray(rgba()[..., :3].copy(), "RGB").convert(mode)
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
