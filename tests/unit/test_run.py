"""theme.run's pieces that need no browser: duplicate schemes and a base revision as expected images."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from theme.capture.model import Region
from theme.capture.naming import Variant
from theme.run import CapturedImages, Duplicates


def shot(scheme: str, fill: int, viewport: str = "desktop", height: int = 600, regions=()):
    image = np.full((height, 40, 4), fill, np.uint8)
    image[..., 3] = 255
    return SimpleNamespace(variant=Variant("index.html", viewport, 40, 30, scheme), image=image,
                           regions=list(regions), crop=lambda r: image[r.box[1]:r.box[1] + r.box[3], r.box[0]:r.box[0] + r.box[2]],
                           images=lambda: iter([]))


def test_a_scheme_that_changes_nothing_is_named_once_and_a_real_one_is_not():
    seen = Duplicates()
    assert seen.see(shot("light", 250)) is None
    said = seen.see(shot("dark", 250))
    assert said.startswith("index[desktop-dark] is pixel-identical to index[desktop-light]")
    assert 'drop "dark" from color_schemes' in said
    assert seen.see(shot("light", 250, viewport="mobile")) is None  # another viewport is not a twin
    late = shot("dark", 250, viewport="mobile")
    late.image[-1, -1, 0] = 0  # one pixel in the last band differs: not identical
    assert seen.see(late) is None


def test_a_base_revision_answers_like_a_baseline_store():
    box = Region("code", "intro", (0, 10, 20, 5), "Intro", "pre", css_box=(0.0, 10.25, 20.0, 5.0))
    base = shot("light", 200, regions=[box])
    base.image[10:15, :20, 0] = 7
    images = CapturedImages([base])
    assert np.array_equal(images.read("index/desktop-light/page.png"), base.image)
    assert images.read("index/desktop-light/code/intro.png")[0, 0, 0] == 7
    assert images.read("index/desktop-light/code/gone.png") is None
    assert images.read("index/mobile-light/page.png") is None
    assert images.boxes("index/desktop-light") == {"code/intro.png": (0.0, 10.25, 20.0, 5.0)}
    assert images.sizes("index/desktop-light") == {"code/intro": [20, 5]}
    shot_, region = images.where("index/desktop-light/code/intro.png")
    assert shot_ is base and region is box
