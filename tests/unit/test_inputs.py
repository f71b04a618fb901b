"""theme/check/inputs.py without a browser: a record made from a capture's data, and when it
still holds. (tests/integration/test_unchanged_inputs.py proves it on real renders.)"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from theme.baselines.store import Store
from theme.capture.model import Capture, Loaded, Region
from theme.capture.naming import Variant
from theme.check import inputs
from theme.core.config import Tolerance, VisualConfig

FP = {"browser": {"name": "chromium", "version": "156.0.1", "executable": "/usr/bin/chromium"},
      "platform": {"system": "Linux", "machine": "x86_64", "release": "6.1"}, "device_scale_factor": 1,
      "launch_flags": ["--a"], "tile_height": 32768, "theme_version": "0.1.0"}
VARIANT = Variant("index.html", "desktop", 64, 48, "light")
FOLDER = "index/desktop-light"


def page() -> np.ndarray:
    img = np.random.default_rng(0).integers(0, 256, (48, 64, 4), dtype=np.uint8)
    img[..., 3] = 255
    return img


def shot(loaded: Loaded) -> Capture:
    box = Region("box", "intro", (4, 4, 20, 10), "Intro", "div.box")
    fingerprint = {**FP, "fonts": {"f.woff2": "0" * 64},
                   "system_fonts": {"serif": {"file": "/x.ttf", "sha256": "1" * 64}}}
    return Capture(VARIANT, page(), [box], ["https://elsewhere.example/a.js"], fingerprint, 0.1, loaded=loaded,
                   reproduced=True)


@pytest.fixture
def site(tmp_path: Path) -> tuple[VisualConfig, Store]:
    root = tmp_path / "site"
    (root / "vendor").mkdir(parents=True)
    (root / "index.html").write_text("<link rel=stylesheet href=style.css>")
    (root / "style.css").write_text("body { margin: 0 }")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib/lib.js").write_text("1")
    visual = VisualConfig(root=root, route={"https://cdn.example.org/": tmp_path / "lib"},
                          snapshots=tmp_path / "snapshots")
    return visual, Store(visual.snapshots)


LOADED = Loaded(frozenset({"/index.html", "/style.css", "/gone.png"}),
                frozenset({"https://cdn.example.org/lib.js"}))


def recorded(visual: VisualConfig, store: Store) -> Capture:
    """A capture whose images are the baselines, and its record beside them (an update run)."""
    s = shot(LOADED)
    for rel, pixels in s.images():
        store.write(f"{FOLDER}/{rel}", np.ascontiguousarray(pixels), s.fingerprint)
    store.record_inputs(FOLDER, inputs.record(s, visual))
    return s


def holds(visual: VisualConfig, store: Store, fingerprint: dict[str, object] | None = None) -> bool:
    session = {**(fingerprint or FP), "system_fonts": {"serif": {"file": "/x.ttf", "sha256": "1" * 64}}}
    return inputs.unchanged(store, visual, [VARIANT], session) != []


def test_a_record_holds_until_a_file_changes(site: tuple[VisualConfig, Store]) -> None:
    visual, store = site
    recorded(visual, store)
    [found] = inputs.unchanged(store, visual, [VARIANT], {**FP, "system_fonts": {
        "serif": {"file": "/x.ttf", "sha256": "1" * 64}}})
    assert found.keys == ("page.png", "box/intro.png") and found.aborted == ("https://elsewhere.example/a.js",)
    (visual.root / "style.css").write_text("body { margin: 1px }")
    assert not holds(visual, store)


def test_a_render_that_was_never_reproduced_does_not_hold(site: tuple[VisualConfig, Store]) -> None:
    """Baselines an update wrote without a second render agreeing stand for nothing (issue 48)."""
    visual, store = site
    s = dataclasses.replace(shot(LOADED), reproduced=False)
    for rel, pixels in s.images():
        store.write(f"{FOLDER}/{rel}", np.ascontiguousarray(pixels), s.fingerprint)
    store.record_inputs(FOLDER, inputs.record(s, visual))
    assert not holds(visual, store)
    store.record_inputs(FOLDER, inputs.record(dataclasses.replace(s, reproduced=True), visual))
    assert holds(visual, store)


@pytest.mark.parametrize("change", ["routed file", "file appears", "file removed"])
def test_routed_and_absent_files_count(site: tuple[VisualConfig, Store], change: str) -> None:
    visual, store = site
    recorded(visual, store)
    assert holds(visual, store)
    if change == "routed file":
        (visual.root.parent / "lib/lib.js").write_text("2")
    elif change == "file appears":
        (visual.root / "gone.png").write_bytes(b"now here")
    else:
        (visual.root / "index.html").unlink()
    assert not holds(visual, store)


def test_a_response_not_from_disk_means_no_record(site: tuple[VisualConfig, Store]) -> None:
    visual, _ = site
    online = dataclasses.replace(LOADED, passed=frozenset({"https://fonts.example.com/x.css"}))
    assert inputs.record(shot(online), visual) is None
    assert inputs.record(dataclasses.replace(shot(LOADED), loaded=None), visual) is None


def test_config_that_shapes_pixels_counts_and_tolerance_does_not(site: tuple[VisualConfig, Store]) -> None:
    visual, store = site
    recorded(visual, store)
    assert holds(dataclasses.replace(visual, tolerance=Tolerance(max_diff_pixels=5), pages=("a.html",)), store)
    assert not holds(dataclasses.replace(visual, mask=(".ad",)), store)
    assert not holds(dataclasses.replace(visual, route={}), store)  # the routed URL has no file now
    assert not holds(dataclasses.replace(visual, full_page=False), store)


def test_the_environment_counts_but_not_what_never_changes_a_pixel(site: tuple[VisualConfig, Store]) -> None:
    visual, store = site
    recorded(visual, store)
    assert holds(visual, store, {**FP, "platform": {**FP["platform"], "release": "6.9"}, "theme_version": "9"})
    assert not holds(visual, store, {**FP, "browser": {**FP["browser"], "version": "157.0.0"}})
    other_font = {**FP, "system_fonts": {"serif": {"file": "/x.ttf", "sha256": "2" * 64}}}
    assert inputs.unchanged(store, visual, [VARIANT], other_font) == []


def test_baselines_that_are_not_the_recorded_render_do_not_hold(site: tuple[VisualConfig, Store]) -> None:
    visual, store = site
    s = recorded(visual, store)
    other = page()
    other[0, 0] = (1, 2, 3, 255)
    store.write(f"{FOLDER}/page.png", other, s.fingerprint)
    assert not holds(visual, store)
    store.write(f"{FOLDER}/page.png", page(), s.fingerprint)
    assert holds(visual, store)
    store.delete([f"{FOLDER}/box/intro.png"])  # one image fewer than the render made
    assert not holds(visual, store)


def test_deleting_a_folders_last_baseline_drops_its_record(site: tuple[VisualConfig, Store]) -> None:
    visual, store = site
    recorded(visual, store)
    store.delete([f"{FOLDER}/box/intro.png"])
    assert store.inputs(FOLDER) is not None
    store.delete([f"{FOLDER}/page.png"])
    assert store.inputs(FOLDER) is None and "inputs" not in store.read_manifest()


def test_a_record_merged_line_by_line_does_not_hold(site: tuple[VisualConfig, Store]) -> None:
    visual, store = site
    recorded(visual, store)
    with store.manifest() as m:  # a merge that lost a line of the file list: style.css no longer watched
        del m["inputs"][FOLDER]["files"]["/style.css"]
    assert not holds(visual, store)
