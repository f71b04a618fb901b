"""A realigning capture takes only the tiles its nudged regions lie in (theme/check/phase.py,
Target.rows, tiles.wanted_clips), and their crops are the very bytes a whole capture of the same
nudged page gives.

A real Chromium renders a page four tiles tall (tile_height 1024): a code block near the top,
one near the bottom, each with a half-pixel rule that re-snaps when the block moves by a fraction.
Then a page of code blocks and maths in 256-row tiles that only moved, a fraction included, below
content whose height changed (issue 48, item 5): each passes as only moved, from some tiles only.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

from theme.baselines.store import Store
from theme.capture import Session, Variant
from theme.capture.model import Target
from theme.check import phase
from theme.check.verdict import CheckContext, Status, Update, check
from theme.core.config import Tolerance, VisualConfig
from theme.pixels.diff import compare

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


# Issue 48, item 5: blocks that only moved up or down by tens or hundreds of pixels plus a fraction,
# below content whose height changed, in 256-row tiles, so that realigning takes some tiles only.
# Each block is 60.5 px tall, with a 1-px top border over its background (a code block) or a
# half-pixel fraction bar (maths), its top placed in the moved page (B) where the nudge back onto
# its baseline's phase moves its top edge across a tile's first row, its bottom edge across a
# tile's last row, or neither.
SMALL = 256
HIGH = 60.5
NOTE = 100.25  # the height of the content above the blocks in B; A's is NOTE - the move
# (region key, top in B, in CSS px): every value a multiple of 1/64, as Chromium lays out
TOPS = (("code", 2 * SMALL + 0.125),         # top edge 0.125 px into a tile
        ("math", 4 * SMALL - HIGH - 0.125),  # bottom edge 0.125 px short of a tile's end
        ("code", 6 * SMALL + 0.875),         # top edge 0.875 px into a tile
        ("math", 9 * SMALL + 0.5),
        ("code", 11 * SMALL - 0.25))         # straddles a tile boundary
LAST = 13 * SMALL  # the page's height in B, about


def moved_article(above: float) -> str:
    """The blocks of TOPS, in flow below `above` px of content (NOTE: where TOPS places them)."""
    code = "\n".join(f"step {k}: all-reduce the gradients of bucket {k}" for k in range(2))
    maths = '<span>x + y</span><div class="bar"></div><span>2 &middot; z</span>'
    parts, bottom = [], NOTE
    for n, (key, top) in enumerate(TOPS):
        body = f'<pre class="code">{code}</pre>' if key == "code" else f'<div class="math">{maths}</div>'
        parts.append(f'<div class="gap" style="height: {top - bottom}px"></div>'
                     f'<h2 id="b{n}">Block {n}</h2>{body}')
        bottom = top + HIGH
    parts.append(f'<div class="gap" style="height: {LAST - bottom}px"></div>')
    return textwrap.dedent("""\
        <!doctype html><html><head><meta charset="utf-8"><style>
        body { margin: 0; font: 16px/1.5 sans-serif; background: #fff; color: #111; }
        .gap { background: #f4f4f8; }
        h2 { height: 0; margin: 0; overflow: hidden; }
        .note { background: #eef; }
        pre.code, div.math { box-sizing: border-box; height: %spx; margin: 0 20px; padding: 6px 10px;
                             overflow: hidden; background: #f6f3ea; border-top: 1px solid #998; }
        pre.code { font: 13px/1.45 monospace; }
        div.math { background: #fff; border-top: 0; text-align: center; font: italic 15px/1.4 serif; }
        div.math .bar { height: 0.5px; background: #222; margin: 1.25px 40%%; }
        </style></head><body>
        <div class="note" style="height: %spx"></div>
        """) % (HIGH, above) + "\n".join(parts) + "\n</body></html>\n"


@pytest.fixture(scope="module")
def small_tiles(tmp_path_factory):
    root = tmp_path_factory.mktemp("realign-moved") / "site"
    root.mkdir()
    (root / "index.html").write_text(moved_article(NOTE), encoding="utf-8")
    visual = VisualConfig(root=root, pages=("index.html",), viewports={"desktop": (800, 600)},
                          color_schemes=("light",), regions={"code": "pre.code", "math": "div.math"},
                          tile_height=SMALL)
    with Session(visual) as s:
        yield s, root


@pytest.mark.slow
@pytest.mark.parametrize("move", [-54.75, -570.25, -0.5], ids=["up-54.75", "up-570.25", "up-0.5"])
def test_blocks_that_only_moved_pass_realigned_from_some_tiles(small_tiles, tmp_path, move):
    """Baselines from A, a check of B where every block only moved by `move` px (a fraction
    included): most blocks differ as captured, the realigning capture takes some tiles only,
    each differing block's crop from it is byte for byte that of a whole nudged capture, and
    every block passes, those that differed as only moved."""
    session, site = small_tiles
    store = Store(tmp_path / "snapshots")
    making = CheckContext.against_baselines(store, tmp_path / "artifacts", {"browser": "test"}, update=Update.MISSING)
    before = shoot(session, site, moved_article(NOTE - move))  # A: the blocks `-move` px lower
    paths = [r.path.as_posix() for r in before.regions]
    assert len(paths) == len(TOPS)
    for r in before.regions:
        assert check(making, f"index/desktop-light/{r.path.as_posix()}", crop(before, r.path.as_posix()),
                     Tolerance(), box=r.css_box).status is Status.CREATED

    moved = shoot(session, site, moved_article(NOTE))  # B
    in_config_order = sorted(TOPS, key=lambda kt: ("code", "math").index(kt[0]))  # as regions are named
    for (key, top), r in zip(in_config_order, moved.regions, strict=True):
        assert r.key == key and r.css_box[1] == top and r.css_box[3] == HIGH, (r, top)
    differ = {r.path.as_posix() for r in moved.regions
              if not compare(crop(before, r.path.as_posix()), crop(moved, r.path.as_posix()), diff_image=False).matches}
    assert len(differ) >= 3, differ

    progress: list[str] = []
    again = phase.realign_all(session, [moved], store, lambda _key: Tolerance(), progress.append)[VARIANT]
    taken = [line for line in progress if "capturing" in line and " tiles (" in line]
    said = re.search(r"(\d+) of (\d+) tiles", taken[-1] if taken else "")
    assert said and int(said[1]) < int(said[2]), progress  # some tiles only

    targets = phase.plan(store, "index/desktop-light", moved, lambda _key: Tolerance())
    assert sorted(targets) == sorted(differ)  # every block that differs sits at another phase
    whole = session.capture(VARIANT, nudges={p: Target(t.x, t.y, t.frames) for p, t in targets.items()})
    assert whole.rows is None
    # The nudge takes an edge of some block into a tile the rows it covered as first captured
    # (Target.rows) do not reach: the case where a whole-pixel view of the region's rows loses one.
    crossed = [p for p, t in targets.items()
               if (box := region(whole, p).box)[1] // SMALL != t.rows[0] // SMALL
               or (box[1] + box[3] - 1) // SMALL != (t.rows[1] - 1) // SMALL]
    assert crossed, "no block's edge crosses into another tile: the test lost its point"
    checking = CheckContext.against_baselines(store, tmp_path / "artifacts", {"browser": "test"})
    for r in moved.regions:
        path = r.path.as_posix()
        result = check(checking, f"index/desktop-light/{path}", crop(moved, path), Tolerance(), box=r.css_box,
                       realigned=again.get(path))
        if path not in differ:
            assert result.status is Status.MATCHED and not result.realigned, (path, result.message)
            continue
        assert path in again, f"{path}: not realigned"
        assert np.array_equal(again[path], crop(whole, path)), f"{path}: not the bytes of a whole nudged capture"
        assert result.status is Status.MATCHED and result.realigned, (path, result.message)
