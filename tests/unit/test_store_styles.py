"""snapshots/styles.json: each region baseline's style record, written with it, one region a
line, gone with it; real records of the specimen (tests/fixtures/styles/), real files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from theme.baselines import style_record as styles
from theme.baselines.store import STYLES, Store
from theme.core.errors import StoreError

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "styles" / "specimen.json"
FP = {"browser": {"name": "chromium", "version": "156.0.1"}, "platform": {"system": "Linux", "machine": "x86_64"}}
NOTE = "index/desktop-light/note-box/why-count.png"
FIGURE = "index/desktop-light/figure/model.png"


@pytest.fixture(scope="module")
def records() -> dict[str, dict[str, styles.StyleRecord]]:
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return {side: {key: styles.from_page(r["styles"]) for key, r in regions.items()} for side, regions in data.items()}


def image(seed: int = 0) -> np.ndarray:
    img = np.random.default_rng(seed).integers(0, 256, (20, 30, 4), dtype=np.uint8)
    img[..., 3] = 255
    return img


def test_a_written_baseline_records_its_style_one_region_a_line(tmp_path, records):
    store = Store(tmp_path)
    store.write(NOTE, image(), FP, (0.0, 10.0, 30.0, 20.0), records["before"]["note-box/0"])
    store.write(FIGURE, image(1), FP, None, records["before"]["figure/0"])
    lines = (tmp_path / STYLES).read_text(encoding="utf-8").splitlines()
    assert lines[0] == "{" and lines[-1] == "}" and len(lines) == 4
    assert lines[1].startswith(f'"{FIGURE}":') and lines[2].startswith(f'"{NOTE}":')
    assert store.style(NOTE) == records["before"]["note-box/0"]
    assert store.style("index/desktop-light/page.png") is None


def test_an_unchanged_region_leaves_the_file_byte_identical_and_a_changed_one_one_line(tmp_path, records):
    store = Store(tmp_path)
    store.write(NOTE, image(), FP, None, records["before"]["note-box/0"])
    store.write(FIGURE, image(1), FP, None, records["before"]["figure/0"])
    first = (tmp_path / STYLES).read_bytes()
    store.write(NOTE, image(), FP, None, records["before"]["note-box/0"])
    assert (tmp_path / STYLES).read_bytes() == first
    store.write(NOTE, image(2), FP, None, records["note13"]["note-box/0"])
    before, after = first.decode().splitlines(), (tmp_path / STYLES).read_text(encoding="utf-8").splitlines()
    assert [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b] == [2]
    assert '"font-size":"13px"' in after[2]


def test_deleting_or_writing_without_a_record_drops_it_and_the_last_one_drops_the_file(tmp_path, records):
    store = Store(tmp_path)
    store.write(NOTE, image(), FP, None, records["before"]["note-box/0"])
    store.write(FIGURE, image(1), FP, None, records["before"]["figure/0"])
    store.write(FIGURE, image(1), FP)  # e.g. accepted from a report made before records
    assert store.style(FIGURE) is None and store.style(NOTE) is not None
    store.delete([NOTE])
    assert not (tmp_path / STYLES).exists()


def test_restore_puts_the_record_back_with_the_baseline(tmp_path, records):
    store = Store(tmp_path)
    store.write(NOTE, image(), FP, None, records["before"]["note-box/0"])
    snap = store.snapshot(NOTE)
    store.write(NOTE, image(3), FP, None, records["note13"]["note-box/0"])
    store.restore(NOTE, snap)
    assert store.style(NOTE) == records["before"]["note-box/0"]


def test_a_broken_styles_file_is_one_line_naming_it(tmp_path, records):
    store = Store(tmp_path)
    store.write(NOTE, image(), FP, None, records["before"]["note-box/0"])
    (tmp_path / STYLES).write_text("{not json", encoding="utf-8")
    with pytest.raises(StoreError, match=r"styles\.json: not valid style records .*--update-snapshots"):
        store.style(NOTE)
