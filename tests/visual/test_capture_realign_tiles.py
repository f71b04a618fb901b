"""A realigning capture takes only the tiles its nudged regions lie in (theme/check/phase.py,
Target.rows, tiles.wanted_clips), and their crops are the very bytes a whole capture of the same
nudged page gives.

A real Chromium renders a page four tiles tall (tile_height 1024): a code block near the top,
one near the bottom, each with a half-pixel rule that re-snaps when the block moves by a fraction.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from theme.capture import Session, Variant
from theme.capture.model import Target
from theme.check import phase
from theme.check.verdict import CheckContext, Status, Update, check
from theme.config import Tolerance, VisualConfig
from theme.diff import compare
from theme.store import Store

pytestmark = pytest.mark.browser

VARIANT = Variant("index.html", "desktop", 800, 600, "light")
TILE = 1024
TOP, BOTTOM = "code/top.png", "code/bottom.png"


def article(above: float, between: float) -> str:
    """The top block under `above` px, the bottom one `between` px below it, ~3 860 px in all."""
    lines = "\n".join(f"step {k}: all-reduce the gradients of bucket {k}" for k in range(8))
    block = f'<pre class="code">{lines}<div class="rule"></div>{lines}</pre>'
    return textwrap.dedent(f"""\
        <!doctype html><html><head><meta charset="utf-8"><style>
        body {{ margin: 0; font: 16px/1.5 sans-serif; background: #fff; color: #111; }}
        .gap {{ background: #f4f4f8; }}
        pre.code {{ margin: 20px; padding: 12px; background: #f6f3ea; border: 1px solid #ccb;
                   font: 13px/1.45 monospace; }}
        .rule {{ height: 0.5px; background: #333; margin: 3.25px 0; }}
        </style></head><body>
        <div class="gap" style="height: {above}px"></div>
        <h2 id="top">Top</h2>{block}
        <div class="gap" style="height: {between}px"></div>
        <h2 id="bottom">Bottom</h2>{block}
        <div class="gap" style="height: 400px"></div>
        </body></html>""")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("realign-tiles") / "site"
    root.mkdir()
    (root / "index.html").write_text(article(100, 2500), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def session(site):
    visual = VisualConfig(root=site, pages=("index.html",), viewports={"desktop": (800, 600)},
                          color_schemes=("light",), regions={"code": "pre.code"}, tile_height=TILE)
    with Session(visual) as s:
        yield s


def shoot(session, site: Path, html: str, nudges=None):
    (site / "index.html").write_text(html, encoding="utf-8")
    return session.capture(VARIANT, nudges=nudges)


def region(shot, path: str):
    return next(r for r in shot.regions if r.path.as_posix() == path)


def crop(shot, path: str) -> np.ndarray:
    return np.ascontiguousarray(shot.crop(region(shot, path)))


def test_the_tiles_of_a_nudged_region_give_the_bytes_of_a_whole_capture(session, site):
    page = article(100, 2500)
    plain = shoot(session, site, page)
    assert plain.image.shape[0] > 3 * TILE and plain.timings["tile_calls"] == 4
    top = region(plain, TOP)
    assert top.box[1] + top.box[3] < TILE - 10  # the top block lies in the first tile alone
    x, y, _, h = top.css_box
    target = (x, y + 0.25)  # a quarter of a pixel lower: its rule re-snaps
    whole = shoot(session, site, page, {TOP: Target(*target)})
    tiles = shoot(session, site, page, {TOP: Target(*target, rows=(top.box[1], top.box[1] + top.box[3]))})

    assert whole.rows is None and whole.timings["tile_calls"] == 4
    assert tiles.rows == ((0, TILE),) and tiles.timings["tile_calls"] == 1
    assert whole.nudged[TOP] == tiles.nudged[TOP] == (0.0, 0.25)
    assert not np.array_equal(crop(whole, TOP), crop(plain, TOP)), "the nudge must change the crop"
    assert np.array_equal(crop(tiles, TOP), crop(whole, TOP))  # byte for byte
    assert tiles.holds(region(tiles, TOP).box) and not tiles.holds(region(tiles, BOTTOM).box)
    assert not tiles.image[3 * TILE:].any()  # the last tile was never taken
    recorded = {TOP: (x, y + 0.25, 0.0, 0.0)}
    assert list(phase.realigned(tiles, recorded)) == [TOP]


def test_realigning_takes_only_the_tiles_of_the_regions_that_moved(session, site, tmp_path):
    """The top block moves by half a pixel, the bottom one stays (the gap between them shrinks by
    as much): the second capture takes the first tile only, and the moved block passes."""
    store = Store(tmp_path / "snapshots")
    ctx = CheckContext.against_baselines(store, tmp_path / "artifacts", {"browser": "test"}, update=Update.MISSING)
    first = shoot(session, site, article(100, 2500))
    for path in (TOP, BOTTOM):
        r = region(first, path)
        assert check(ctx, f"index/desktop-light/{path}", crop(first, path), Tolerance(),
                     box=r.css_box).status is Status.CREATED
    moved = shoot(session, site, article(100.5, 2499.5))
    assert not compare(crop(first, TOP), crop(moved, TOP), diff_image=False).matches
    assert compare(crop(first, BOTTOM), crop(moved, BOTTOM), diff_image=False).matches

    progress: list[str] = []
    again = phase.realign_all(session, [moved], store, lambda _key: Tolerance(), progress.append)[VARIANT]
    assert list(again) == [TOP]
    assert any("1 of 4 tiles" in line for line in progress), progress
    result = check(CheckContext.against_baselines(store, tmp_path / "artifacts", {"browser": "test"}),
                   f"index/desktop-light/{TOP}", crop(moved, TOP), Tolerance(), box=region(moved, TOP).css_box,
                   realigned=again[TOP])
    assert result.status is Status.MATCHED and result.realigned
