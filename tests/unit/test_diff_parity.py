"""theme.pixels.diff.pixelmatch is bit-identical to the PyPI pixelmatch 0.4.0 (the oracle).

Table-driven: every case runs through the reference and through each of our
kernels; the counts and every byte written to `output` must be equal. Images are
small because the reference is pure Python (0.24 MP/s).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pixelmatch import pixelmatch as reference

from theme.pixels.diff import available_engines, pixelmatch
from theme.pixels.images import read_png

FIXTURES = Path(__file__).parent.parent / "fixtures" / "diff"
ENGINES = available_engines()


# ------------------------------------------------------------ image makers


def text_like(w: int, h: int, seed: int, dx: int = 0) -> np.ndarray:
    """White page with dark anti-aliased 'glyphs' on text lines, optionally moved dx px."""
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 4), 255, np.uint8)
    for top in range(2, h - 8, 10):
        x = 2
        while x < w - 8:
            gw = int(rng.integers(2, 5))
            x0 = x + dx
            img[top:top + 6, x0:x0 + gw, :3] = int(rng.integers(10, 60))
            img[top:top + 6, max(x0 - 1, 0), :3] = 180  # soft edges
            img[top:top + 6, min(x0 + gw, w - 1), :3] = 210
            x += gw + int(rng.integers(2, 5))
    return img


def sparse(w: int, h: int, seed: int, share: float = 0.02) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = text_like(w, h, seed)
    b = a.copy()
    hit = rng.random((h, w)) < share
    b[hit, :3] = rng.integers(0, 256, (int(hit.sum()), 3))
    return a, b


def translucent(w: int, h: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    pal = rng.integers(0, 256, (6, 4)).astype(np.uint8)
    pal[0, 3], pal[1, 3] = 0, 255
    a = pal[rng.integers(0, 6, (h, w))]
    b = a.copy()
    hit = rng.random((h, w)) < 0.2
    b[hit] = pal[rng.integers(0, 6, int(hit.sum()))]
    return a, b


def borders(w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """Changes on every edge and corner, where the AA neighbourhood is clipped."""
    a = text_like(w, h, 3)
    a[0, :, :3] = 90
    a[:, -1, :3] = 140
    b = a.copy()
    b[0, ::3, :3] = 30
    b[-1, 1::4, :3] = 0
    b[::2, 0, :3] = 200
    b[1::3, -1, :3] = 10
    for y, x in ((0, 0), (0, w - 1), (h - 1, 0), (h - 1, w - 1)):
        b[y, x, :3] = 255 - b[y, x, :3]
    return a, b


def thin(w: int, h: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    pal = np.array([[255, 255, 255, 255], [0, 0, 0, 255], [128, 128, 128, 255], [200, 50, 50, 128]],
                   np.uint8)
    a = pal[rng.integers(0, 4, (h, w))]
    b = a.copy()
    hit = rng.random((h, w)) < 0.4
    b[hit] = pal[rng.integers(0, 4, int(hit.sum()))]
    return a, b


def fixture(name: str) -> np.ndarray:
    return read_png(FIXTURES / f"specimen-{name}.png")


def _crop(a, b):
    h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
    return np.ascontiguousarray(a[:h, :w]), np.ascontiguousarray(b[:h, :w])


CASES = {
    "text shifted 1 px": lambda: (text_like(90, 60, 1), text_like(90, 60, 1, dx=1)),
    "sparse random": lambda: sparse(80, 50, 2),
    "semi-transparent": lambda: translucent(40, 30, 4),
    "borders": lambda: borders(30, 20),
    "1x1": lambda: (np.array([[[10, 20, 30, 255]]], np.uint8), np.array([[[200, 20, 30, 100]]], np.uint8)),
    "1xN": lambda: thin(1, 40, 5),
    "Nx1": lambda: thin(40, 1, 6),
    "2x2": lambda: thin(2, 2, 7),
    "identical": lambda: (text_like(30, 20, 8), text_like(30, 20, 8)),
    "real light vs dark": lambda: (fixture("light"), fixture("dark")),
    "real shifted 1 px": lambda: (fixture("light"), fixture("shifted")),
    "real taller heading": lambda: _crop(fixture("light"), fixture("taller")),
}
REAL = {k for k in CASES if k.startswith("real")}
THRESHOLDS = (0, 0.05, 0.1, 0.5, 1)


def oracle(a, b, **opts):
    """The reference's count and output bytes; output starts as a non-zero pattern."""
    h, w = a.shape[:2]
    out = bytearray((np.arange(w * h * 4) % 251).astype(np.uint8).tobytes())
    n = reference(a.tobytes(), b.tobytes(), w, h, out, **opts)
    return n, bytes(out)


def ours(a, b, engine, **opts):
    h, w = a.shape[:2]
    out = (np.arange(w * h * 4) % 251).astype(np.uint8).reshape(h, w, 4)
    n = pixelmatch(a, b, w, h, out, engine=engine, **opts)
    return n, out.tobytes()


def combos(case):
    real = case in REAL
    for threshold in ((0.05, 0.1, 0.5) if real else THRESHOLDS):
        for include_aa in (False, True):
            for diff_mask in ((False,) if real else (False, True)):
                yield threshold, include_aa, diff_mask


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_counts_and_output_bytes_equal_the_reference(case, engine):
    a, b = CASES[case]()
    for threshold, include_aa, diff_mask in combos(case):
        opts = dict(threshold=threshold, includeAA=include_aa, diff_mask=diff_mask)
        assert ours(a, b, engine, **opts) == oracle(a, b, **opts), opts


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", ["text shifted 1 px", "sparse random", "borders", "Nx1", "identical"])
def test_fail_fast_stops_where_the_reference_stops(case, engine):
    a, b = CASES[case]()
    for diff_mask in (False, True):
        opts = dict(fail_fast=True, diff_mask=diff_mask)
        assert ours(a, b, engine, **opts) == oracle(a, b, **opts)


@pytest.mark.parametrize("engine", ENGINES)
def test_custom_colours_and_alpha(engine):
    a, b = CASES["text shifted 1 px"]()
    opts = dict(alpha=0.5, aa_color=(0, 128, 255), diff_color=(10.7, 200, 3))
    assert ours(a, b, engine, **opts) == oracle(a, b, **opts)


def test_real_screenshots_do_differ():
    """The fixtures exercise something: dark differs a lot, the 1 px shift a little."""
    light, dark, shifted = fixture("light"), fixture("dark"), fixture("shifted")
    h, w = light.shape[:2]
    assert pixelmatch(light, dark, w, h) > w * h // 2
    assert 0 < pixelmatch(light, shifted, w, h, includeAA=True) < w * h // 4


def test_sequence_inputs_and_outputs_like_the_reference():
    """Lists in, a list out; bytes in, a bytearray out: the reference's own types."""
    a, b = CASES["sparse random"]()
    h, w = a.shape[:2]
    ref_out = [7] * (w * h * 4)
    n_ref = reference(a.reshape(-1).tolist(), b.reshape(-1).tolist(), w, h, ref_out)
    our_out = [7] * (w * h * 4)
    assert pixelmatch(a.reshape(-1).tolist(), b.reshape(-1).tolist(), w, h, our_out) == n_ref
    assert our_out == ref_out
    out = bytearray(w * h * 4)
    assert pixelmatch(a.tobytes(), bytes(b.tobytes()), w, h, out) == n_ref
    assert list(out) == ref_out


def test_no_output_and_reference_engine():
    a, b = CASES["sparse random"]()
    h, w = a.shape[:2]
    n = reference(a.tobytes(), b.tobytes(), w, h)
    assert pixelmatch(a, b, w, h) == n
    assert pixelmatch(a, b, w, h, engine="reference") == n


def test_float_pixels_go_to_the_reference():
    a = [0.5, 10, 20, 255] * 4
    b = [0.5, 200, 20, 255] * 4
    assert pixelmatch(a, b, 2, 2) == reference(a, b, 2, 2) == 4


@pytest.mark.parametrize("args", [
    (b"\0" * 16, b"\0" * 12, 2, 2),
    (b"\0" * 16, b"\0" * 16, 3, 2),
])
def test_size_errors_match_the_reference(args):
    with pytest.raises(ValueError) as ours_err:
        pixelmatch(*args)
    with pytest.raises(ValueError) as ref_err:
        reference(*args)
    assert ours_err.value.args == ref_err.value.args


def test_output_of_the_wrong_size_is_refused_like_the_reference():
    a = b"\0" * 16
    with pytest.raises(ValueError, match="Diff image size"):
        pixelmatch(a, a, 2, 2, bytearray(8))


def test_unknown_engine():
    with pytest.raises(ValueError, match="engine"):
        pixelmatch(b"\0" * 4, b"\0" * 4, 1, 1, engine="gpu")


# ------------------------------------------------------------ property


@st.composite
def image_pairs(draw):
    w = draw(st.integers(1, 7))
    h = draw(st.integers(1, 7))
    colours = draw(st.lists(st.tuples(*[st.integers(0, 255)] * 3, st.sampled_from([0, 77, 254, 255])),
                            min_size=1, max_size=4))
    pal = np.array(colours, np.uint8)
    pick = st.lists(st.integers(0, len(colours) - 1), min_size=w * h, max_size=w * h)
    a = pal[np.array(draw(pick))].reshape(h, w, 4)
    b = pal[np.array(draw(pick))].reshape(h, w, 4)
    keep = np.array(draw(st.lists(st.booleans(), min_size=w * h, max_size=w * h))).reshape(h, w)
    b[keep] = a[keep]  # mostly-equal neighbourhoods, so anti-aliasing paths run
    return a, b


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=image_pairs(), threshold=st.sampled_from(THRESHOLDS), include_aa=st.booleans(),
       diff_mask=st.booleans(), fail_fast=st.booleans())
def test_property_identical_to_reference_on_small_random_images(pair, threshold, include_aa,
                                                                  diff_mask, fail_fast):
    a, b = pair
    opts = dict(threshold=threshold, includeAA=include_aa, diff_mask=diff_mask, fail_fast=fail_fast)
    expected = oracle(a, b, **opts)
    for engine in ENGINES:
        assert ours(a, b, engine, **opts) == expected, engine
