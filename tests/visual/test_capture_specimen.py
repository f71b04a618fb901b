"""The specimen article (article/dist) through the capture engine, with the repo's own config.

The specimen runs on the real Distill runtime: the config routes the KaTeX the runtime asks
for at its CDN address to the vendored copy, and the page's one third-party embed is aborted.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from theme.capture import Session, Variant, variants
from theme.core import config
from theme.pixels.images import encode_png

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
SPECIMEN = REPO / "article" / "dist" / "index.html"
KATEX_CDN = "https://distill.pub/third-party/katex/"
EMBED = "https://www.youtube-nocookie.com/embed/memory-ledger-talk"
if not SPECIMEN.is_file():
    pytest.skip("article/dist/index.html is not there yet (the specimen article)", allow_module_level=True)


@pytest.fixture(scope="module")
def visual():
    return config.load(REPO / "pyproject.toml").visual


@pytest.fixture(scope="module")
def session(visual):
    with Session(visual) as s:
        yield s


@pytest.fixture(scope="module")
def desktop(visual) -> dict[str, Variant]:
    return {v.scheme: v for v in variants(visual) if v.viewport == "desktop" and not v.state}


@pytest.fixture(scope="module")
def light_dark(session, desktop):
    return session.capture(desktop["light"]), session.capture(desktop["dark"])


def test_specimen_renders_offline_with_the_runtimes_katex_routed(session, desktop, light_dark):
    light, _ = light_dark
    assert light.aborted == [EMBED]
    routed = light.explain["routed"]
    assert {KATEX_CDN + "katex.min.js", KATEX_CDN + "katex.min.css"} <= set(routed)
    assert all(url.startswith(KATEX_CDN) for url in routed)
    assert light.image.shape[0] >= 8000 and light.image.shape[1] == 1280
    assert light.fingerprint["fonts"], "the specimen's woff2 files are fingerprinted"
    with session.open(desktop["light"]) as page:
        katex = page.evaluate("() => [...document.querySelectorAll('d-math[block]')]"
                              ".map((m) => !!m.shadowRoot.querySelector('.katex-display'))")
        tokens = page.evaluate("() => [...document.querySelectorAll('d-code[block]')]"
                               ".map((c) => c.shadowRoot.querySelectorAll('.token').length)")
        chart = page.evaluate("() => document.querySelectorAll('figure.ledger-chart rect.chart-bar').length")
    assert katex and all(katex)
    assert tokens and all(tokens)
    assert chart == 4  # the fragment fetched after load is in, and drawn


def test_every_configured_region_key_is_found(visual, light_dark):
    light, _ = light_dark
    keys = {r.key for r in light.regions}
    assert keys == set(visual.regions)
    assert sum(r.key == "note-box" for r in light.regions) >= 6
    # the fetched fragments are regions too: the chart's figure and the note-box after it
    paths = {str(r.path) for r in light.regions}
    assert {"figure/three-stages-of-sharding.png", "note-box/three-stages-of-sharding-2.png"} <= paths
    assert len({r.path for r in light.regions}) == len(light.regions)  # names are unique


def test_dark_changes_colours_of_every_component_and_no_geometry(light_dark):
    light, dark = light_dark
    # the theme defines dark roles for note-box, code, math and figure
    # (theme/stylesheet/scss/theme/tokens/_dark.scss): each of their regions must change; layout
    # must not (same names, same boxes, same page size)
    assert light.image.shape == dark.image.shape
    assert [(r.path, r.box) for r in light.regions] == [(r.path, r.box) for r in dark.regions]
    for lr, dr in zip(light.regions, dark.regions, strict=True):
        assert not np.array_equal(light.crop(lr), dark.crop(dr)), f"{lr.path} is the same in dark"


def test_explicit_data_theme_beats_the_media_query(session, desktop, light_dark):
    _, dark = light_dark
    forced = dataclasses.replace(desktop["dark"], scheme="dark-attr")  # media: light, data-theme: dark
    assert np.array_equal(session.capture(forced).image, dark.image)


@pytest.mark.slow
def test_three_captures_in_a_row_are_byte_identical(session, desktop):
    """Three in one session (the others of this module add more of the same page); rare faults
    are looked for in test_real_distill.py's forty renders of the runtime's example article."""
    pngs = {encode_png(session.capture(desktop["light"]).image, level=1) for _ in range(3)}
    assert len(pngs) == 1
