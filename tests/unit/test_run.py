"""theme.check.pipeline's pieces that need no browser: duplicate schemes and a base revision as expected images."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from theme.capture.model import Region
from theme.capture.naming import Variant
from theme.check.expected import CapturedImages
from theme.check.pipeline import Duplicates


def shot(scheme: str, fill: int, viewport: str = "desktop", height: int = 600, regions=()):
    image = np.full((height, 40, 4), fill, np.uint8)
    image[..., 3] = 255
    return SimpleNamespace(variant=Variant("index.html", viewport, 40, 30, scheme), image=image,
                           regions=list(regions),
                           crop=lambda r: image[r.box[1]:r.box[1] + r.box[3], r.box[0]:r.box[0] + r.box[2]],
                           images=lambda: iter([]), pixels=None, styles={}, same_inputs=False)


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


def test_a_page_card_does_not_name_a_region_that_passed_at_its_sub_pixel_phase(tmp_path):
    """The page differs inside the code block (its rows snapped differently) and in the note;
    the code block's own check passes on its re-render at the baseline's phase, so the page
    card names the note only. Real store, real PNGs, the real check."""
    from theme.baselines.store import Store
    from theme.check.pipeline import check_image
    from theme.check.verdict import CheckContext
    from theme.core.config import VisualConfig

    code = Region("code", "setup", (0, 100, 40, 50), "Setup", "pre", css_box=(0.0, 100.5, 40.0, 50.0))
    note = Region("note-box", "memory", (0, 300, 40, 50), "Memory", ".note-box", css_box=(0.0, 300.0, 40.0, 50.0))
    base = shot("light", 255, height=400, regions=[code, note])
    base.image[110:140, 5:35, :3] = 20  # text in the code block
    store = Store(tmp_path / "snapshots")
    folder = "index/desktop-light"
    store.write(f"{folder}/page.png", base.image, {}, None)
    for r in (code, note):
        store.write(f"{folder}/{r.path.as_posix()}", base.crop(r), {}, r.css_box)

    head = shot("light", 255, height=400, regions=[code, note])
    head.image[:] = base.image
    head.image[111:141, 5:35, :3] = 20  # the code block's text one row lower: snapped differently
    head.image[110, 5:35, :3] = 255
    head.image[310:320, 5:35, :3] = 0  # a real change in the note
    head.realigned = {"code/setup.png": base.crop(code).copy()}  # re-rendered at the baseline's phase
    ctx = CheckContext.against_baselines(store, tmp_path / "art", {})
    visual = VisualConfig(root=tmp_path)
    page = check_image(ctx, visual, head, None)
    assert page.result.status == "failed"
    assert list(page.entry.attribution) == ["note-box in “Memory” changed (.note-box)"]
    assert check_image(ctx, visual, head, code).result.status == "matched"  # what the card agrees with


def _resident_kb(path) -> int:
    """Rss of this process's mappings of `path`, from /proc/self/smaps."""
    total, inside = 0, False
    for line in open("/proc/self/smaps", encoding="utf-8"):
        if line[0] in "0123456789abcdef" and "-" in line.split()[0]:
            inside = line.rstrip().endswith(str(path))
        elif inside and line.startswith("Rss:"):
            total += int(line.split()[1])
    return total


def test_a_checked_page_image_hands_its_file_backed_rows_back(tmp_path):
    """Four tall pages read whole by their checks once held ~2 GB resident at a run's end: after
    its check a spilled page image is back on disk only, its pixels unchanged."""
    from theme.baselines.store import Store
    from theme.check.pipeline import check_image, spill
    from theme.check.verdict import CheckContext
    from theme.core.config import VisualConfig
    from theme.pixels import images

    base = shot("light", 255, height=20000)
    base.image[5000:5100, 5:35, :3] = 20
    Store(tmp_path / "snapshots").write("index/desktop-light/page.png", base.image, {}, None)
    assert spill(tmp_path / "page.npy", base.image) == images.pixels_sha256(base.image)  # hashed on the way
    head = shot("light", 0)
    head.image = np.load(tmp_path / "page.npy", mmap_mode="r")
    head.realigned = {}
    assert int(head.image[..., 0].sum()) > 0 and _resident_kb(tmp_path / "page.npy") > 2000  # read: resident
    ctx = CheckContext.against_baselines(Store(tmp_path / "snapshots"), tmp_path / "art", {})
    assert check_image(ctx, VisualConfig(root=tmp_path), head, None).result.status == "matched"
    assert _resident_kb(tmp_path / "page.npy") < 100
    assert np.array_equal(head.image, base.image)


def test_a_compacted_failure_block_keeps_its_first_line_and_why():
    from theme.pytest_plugin import compact_block

    block = ("index/desktop-dark/note-box/a.png: 120 pixels differ (3.1%)\nlargest change at x=0 y=4\n"
             "  expected: /x/a.expected.png\n  why: note-box in “A”: `.note-box-content` font-size 12px → 13px")
    assert compact_block(block) == ("index/desktop-dark/note-box/a.png: 120 pixels differ (3.1%)\n"
                                    "  why: note-box in “A”: `.note-box-content` font-size 12px → 13px")
    page = "index/desktop-dark/page.png: sizes differ\n  actual: /x\n  in: figure in “B” grew 4 px\n  in: more"
    assert compact_block(page) == "index/desktop-dark/page.png: sizes differ\n  in: figure in “B” grew 4 px"
