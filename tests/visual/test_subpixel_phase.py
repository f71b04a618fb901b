"""A region moved by a fraction of a pixel is told apart from one that changed (theme/check/phase.py).

A real Chromium renders a page whose spacer above a code block and a thin rule
grows from 100 to 100.5 px: nothing inside the block changes, yet its crop
does (rows re-snap, the half-pixel rule is anti-aliased across other rows).
The check must pass that block, and still fail one whose padding really grew by
1 px, whether or not its phase moved too.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from theme.baselines.store import Store
from theme.capture import Session, Variant
from theme.check import phase
from theme.check.verdict import CheckContext, Status, Update, check
from theme.core.config import Tolerance, VisualConfig
from theme.pixels.diff import compare

pytestmark = pytest.mark.browser

VARIANT = Variant("index.html", "desktop", 800, 600, "light")
KEY = "index/desktop-light/code/top.png"
PATH = "code/top.png"


def article(spacer: float, padding: int = 12) -> str:
    lines = "\n".join(f"step {k}: all-reduce the gradients of bucket {k}" for k in range(8))
    return textwrap.dedent(f"""\
        <!doctype html><html><head><meta charset="utf-8"><style>
        body {{ margin: 0; font: 16px/1.5 sans-serif; background: #fff; color: #111; }}
        .spacer {{ height: {spacer}px; background: #f4f4f8; }}
        pre.code {{ margin: 20px; padding: {padding}px; background: #f6f3ea; border: 1px solid #ccb;
                   font: 13px/1.45 monospace; }}
        .rule {{ height: 0.5px; background: #333; margin: 3.25px 0; }}
        </style></head><body>
        <div class="spacer"></div>
        <pre class="code">{lines}<div class="rule"></div>{lines}</pre>
        <p>After the block.</p>
        </body></html>""")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("phase") / "site"
    root.mkdir()
    (root / "index.html").write_text(article(100), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def session(site):
    visual = VisualConfig(root=site, pages=("index.html",), viewports={"desktop": (800, 600)},
                          color_schemes=("light",), regions={"code": "pre.code"})
    with Session(visual) as s:
        yield s


def shoot(session, site: Path, html: str):
    (site / "index.html").write_text(html, encoding="utf-8")
    return session.capture(VARIANT)


def crop(shot) -> np.ndarray:
    (region,) = shot.regions
    return np.ascontiguousarray(shot.crop(region))


def context(tmp_path: Path, update: Update = Update.NONE) -> CheckContext:
    return CheckContext.against_baselines(Store(tmp_path / "snapshots"), tmp_path / "artifacts",
                        fingerprint={"browser": "test"}, update=update)


@pytest.fixture()
def baseline(session, site, tmp_path):
    """The block captured under a 100 px spacer, stored as a baseline with its CSS box."""
    shot = shoot(session, site, article(100))
    (region,) = shot.regions
    created = check(context(tmp_path, Update.MISSING), KEY, crop(shot), Tolerance(), box=region.css_box)
    assert created.status is Status.CREATED
    assert Store(tmp_path / "snapshots").read_manifest()["baselines"][KEY]["box"] == list(region.css_box)
    return shot


def realign(session, tmp_path, shot) -> dict:
    return phase.realign_all(session, [shot], Store(tmp_path / "snapshots"), lambda _key: Tolerance())


def test_a_block_moved_by_half_a_pixel_passes_once_realigned(session, site, tmp_path, baseline):
    moved = shoot(session, site, article(100.5))
    (region,) = moved.regions
    assert region.css_box[1] == baseline.regions[0].css_box[1] + 0.5
    plain = compare(crop(baseline), crop(moved), diff_image=False)
    assert not plain.matches, "the page must really re-snap the block, or this test proves nothing"

    again = realign(session, tmp_path, moved)[VARIANT]
    result = check(context(tmp_path), KEY, crop(moved), Tolerance(), box=region.css_box,
                   realigned=again[PATH])
    assert result.status is Status.MATCHED and result.realigned
    assert "sub-pixel position" in result.message
    assert not (tmp_path / "artifacts").exists() or not any((tmp_path / "artifacts").rglob("*.png"))


def test_a_real_one_pixel_change_still_fails_when_the_phase_moved_too(session, site, tmp_path, baseline):
    changed = shoot(session, site, article(100.5, padding=13))
    again = realign(session, tmp_path, changed)[VARIANT]
    assert PATH in again  # it was re-rendered at the baseline's phase, and still differs
    result = check(context(tmp_path), KEY, crop(changed), Tolerance(), box=changed.regions[0].css_box,
                   realigned=again[PATH])
    assert result.status is Status.FAILED and not result.realigned
    # the artefacts show the page as it really is, not the re-rendered copy
    actual = (tmp_path / "artifacts" / KEY).with_name("top.actual.png")
    from theme.pixels import images
    assert np.array_equal(images.read_png(actual), crop(changed))


def test_same_phase_needs_no_second_capture_and_a_change_fails(session, site, tmp_path, baseline):
    changed = shoot(session, site, article(101, padding=13))  # whole pixels: same phase
    assert phase.plan(Store(tmp_path / "snapshots"), "index/desktop-light", changed,
                      lambda _key: Tolerance()) == {}
    assert realign(session, tmp_path, changed) == {}
    result = check(context(tmp_path), KEY, crop(changed), Tolerance())
    assert result.status is Status.FAILED


def framed(outer: float, inner: float) -> str:
    """A block inside a contained frame (the Distill runtime's `d-article { contain: layout
    style }`), under a spacer outside the frame (`outer`) and one inside it (`inner`), with
    raised figures set by relative positioning, as KaTeX sets superscripts."""
    raised = " ".join(f'{k}<span class="up">{k + 1}</span>' for k in range(40))
    return textwrap.dedent(f"""\
        <!doctype html><html><head><meta charset="utf-8"><style>
        body {{ margin: 0; font: 16px/1.5 serif; background: #fff; color: #111; }}
        .outer {{ height: {outer}px; }} .inner {{ height: {inner}px; }}
        .frame {{ contain: layout style; }}
        pre.code {{ margin: 20px; padding: 12px; font: 15px/1.37 serif; white-space: pre-wrap; }}
        .up {{ position: relative; top: -0.413em; font-size: 0.7em; }}
        </style></head><body>
        <div class="outer"></div>
        <div class="frame"><div class="inner"></div><pre class="code">{raised}</pre></div>
        </body></html>""")


def framed_baseline(session, site, tmp_path):
    """The framed block captured under 100 + 10 px, stored with its box and its frame's corner."""
    first = shoot(session, site, framed(100, 10))
    (region,) = first.regions
    assert len(region.frames) == 1  # the contained div
    created = check(context(tmp_path, Update.MISSING), KEY, crop(first), Tolerance(), box=region.css_box,
                    frames=region.frames)
    assert created.status is Status.CREATED
    assert Store(tmp_path / "snapshots").read_manifest()["baselines"][KEY]["frames"] == [list(region.frames[0])]
    return first


@pytest.mark.parametrize("outer, inner", [(100.5, 10.25), (100.25, 10.5), (100.625, 9.5), (100.75, 9.625)])
def test_a_block_whose_contained_frame_moved_too_passes_once_both_are_realigned(session, site, tmp_path,
                                                                               outer, inner):
    """Chromium snaps a contained ancestor's offset on its own: with only the block put back on
    its phase, raised figures can land a pixel off. The baseline records the frame's corner
    too, and the second capture puts the frame back first."""
    first = framed_baseline(session, site, tmp_path)
    moved = shoot(session, site, framed(outer, inner))
    assert not compare(crop(first), crop(moved), diff_image=False).matches
    again = realign(session, tmp_path, moved)[VARIANT]
    result = check(context(tmp_path), KEY, crop(moved), Tolerance(), box=moved.regions[0].css_box,
                   realigned=again[PATH])
    assert result.status is Status.MATCHED and result.realigned


def test_the_block_alone_put_back_still_differs_where_its_frame_moved(session, site, tmp_path):
    """Why frames are recorded: the same baseline without them (as written before they were),
    and only the block is put back on its phase; its raised figures still differ."""
    first = framed_baseline(session, site, tmp_path)
    store = Store(tmp_path / "snapshots")
    with store.manifest() as m:
        del m["baselines"][KEY]["frames"]
    moved = shoot(session, site, framed(100.5, 10.25))
    alone = realign(session, tmp_path, moved)[VARIANT]
    assert moved.regions[0].css_box[1] % 1 != first.regions[0].css_box[1] % 1  # it was off its phase
    assert phase.phase_offset(first.regions[0].css_box, moved.regions[0].css_box) is not None
    assert not compare(crop(first), alone[PATH], diff_image=False).matches
