"""Both colour-scheme paths of the theme, captured by theme.capture in a real Chromium.

A small page (paragraph, note-box, d-code, a figure) styled with the theme's
built CSS (article/dist/style.css) is captured at 390 px in four schemes:

    light       prefers-color-scheme: light, no data-theme
    dark        prefers-color-scheme: dark,  no data-theme
    light-attr  prefers-color-scheme: dark,  <html data-theme="light">
    dark-attr   prefers-color-scheme: light, <html data-theme="dark">

The attribute must win over the media query (dark == dark-attr pixel for pixel,
light == light-attr), and dark must really differ from light where the theme
says so, with the token values the stylesheet declares.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from theme.capture import Session, variants
from theme.core.config import VisualConfig
from theme.stylesheet import tokens

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
CSS = REPO / "article/dist/style.css"
FIGURE = REPO / "article/dist/assets/images/zero-memory.svg"
BROWSER = os.environ.get("THEME_BROWSER", "/usr/bin/chromium")
SCHEMES = ("light", "dark", "light-attr", "dark-attr")

PAGE = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Schemes</title><link rel="stylesheet" href="style.css"></head>
<body>
<d-article>
<h2 id="memory">Memory</h2>
<p>A paragraph of running text with <a href="#memory">a link</a> and <d-code language="python">x = 1</d-code>.</p>
<div class="note-box"><p class="note-box-title">Note</p><div class="note-box-content"><p>Shards are
not replicas.</p><ul><li>one</li><li>two</li></ul></div></div>
<d-code block language="python">def step(batch):
    return model(batch)</d-code>
<figure><img src="zero-memory.svg" alt="Memory per GPU" width="680" height="380">
<figcaption>Figure 1. Memory per GPU.</figcaption></figure>
</d-article>
</body>
</html>
"""


@pytest.fixture(scope="module")
def captures(tmp_path_factory):
    if not Path(BROWSER).exists():
        pytest.skip(f"no browser at {BROWSER}; set THEME_BROWSER")
    root = tmp_path_factory.mktemp("schemes")
    shutil.copyfile(CSS, root / "style.css")
    shutil.copyfile(FIGURE, root / "zero-memory.svg")
    (root / "index.html").write_text(PAGE, encoding="utf-8")
    visual = VisualConfig(
        root=root, pages=("index.html",), viewports={"mobile": (390, 844)}, color_schemes=SCHEMES,
        regions={"note-box": ".note-box", "code": "d-code[block]", "figure": "figure",
                 "image": "figure img", "text": "d-article > p"},
    )
    with Session(visual, browser=BROWSER) as session:
        return {v.scheme: session.capture(v) for v in variants(visual)}


def region(capture, key):
    [found] = [r for r in capture.regions if r.key == key]
    return found


def rgb_at(capture, key, dx, dy):
    x, y, _w, _h = region(capture, key).box
    return tuple(int(c) for c in capture.image[y + dy, x + dx, :3])


def hex_rgb(value: str) -> tuple[int, int, int]:
    return tuple(int(value[i:i + 2], 16) for i in (1, 3, 5))


@pytest.mark.parametrize("attr, media", [("dark-attr", "dark"), ("light-attr", "light")])
def test_data_theme_renders_exactly_like_the_media_preference(captures, attr, media):
    """data-theme against the opposite system preference gives the same pixels as the preference."""
    a, b = captures[attr], captures[media]
    assert a.variant.data_theme == media and a.variant.media_scheme != media
    assert a.image.shape == b.image.shape
    assert np.array_equal(a.image, b.image)


def test_dark_differs_from_light_on_the_note_box_with_the_declared_colours(captures):
    light, dark = captures["light"], captures["dark"]
    assert not np.array_equal(light.crop(region(light, "note-box")), dark.crop(region(dark, "note-box")))
    found = {t.name: t for t in tokens.read_tokens(CSS.read_text())}
    # A pixel in the note-box's top padding (12px), mid-width: pure background.
    w = region(light, "note-box").box[2]
    assert rgb_at(light, "note-box", w // 2, 4) == hex_rgb(found["note-box-background"].light)
    assert rgb_at(dark, "note-box", w // 2, 4) == hex_rgb(found["note-box-background"].dark)
    # The page and the code block follow too.
    assert tuple(int(c) for c in dark.image[2, 2, :3]) == hex_rgb(found["page-background"].dark)
    assert rgb_at(dark, "code", region(dark, "code").box[2] // 2, 4) == hex_rgb(found["code-background"].dark)


def test_figures_are_dimmed_in_dark_mode_and_unchanged_in_light(captures):
    light, dark = captures["light"], captures["dark"]
    lit = light.crop(region(light, "image"))[..., :3]
    dim = dark.crop(region(dark, "image"))[..., :3]
    assert lit.shape == dim.shape
    # The diagram's white card: pure white in light, no longer a glaring block in dark.
    assert lit.max() == 255
    assert dim.max() <= 215, dim.max()
    assert dim.mean() < 0.85 * lit.mean()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_figure_images_fit_their_figure_at_390px(captures, scheme):
    cap = captures[scheme]
    fx, _fy, fw, _fh = region(cap, "figure").box
    ix, _iy, iw, _ih = region(cap, "image").box
    tx, _ty, tw, _th = region(cap, "text").box
    assert (fx, fw) == (tx, tw) == (16, 358)  # the column: 390 px minus 16 px padding each side
    assert ix >= fx and ix + iw <= fx + fw, f"image {ix}+{iw} overflows figure {fx}+{fw}"
    assert iw == fw  # full width, border included
