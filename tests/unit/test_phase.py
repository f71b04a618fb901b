"""Sub-pixel phase arithmetic (theme/check/phase.py): which fraction of a pixel moves a box onto another's phase."""

from __future__ import annotations

import numpy as np
import pytest

from theme.baselines.store import Store
from theme.capture import Variant
from theme.capture.model import Capture, Region
from theme.check.phase import phase_offset, realigned, recorded_boxes


@pytest.mark.parametrize("baseline, current, expected", [
    ((174.0, 100.0, 10, 10), (174.0, 100.0, 10, 10), None),          # same place
    ((174.0, 100.0, 10, 10), (174.0, 3100.0, 10, 12), None),         # whole pixels apart: same phase
    ((174.0, 100.25, 10, 10), (174.0, 230.5, 10, 10), (0.0, -0.25)),  # the smaller way round
    ((174.0, 100.75, 10, 10), (174.0, 230.25, 10, 10), (0.0, 0.5 - 1.0)),
    ((174.5, 10.0, 10, 10), (174.0, 10.0, 10, 10), (-0.5, 0.0)),
    ((0.0, 12012.890625, 1, 1), (0.0, 12013.125, 1, 1), (0.0, -0.234375)),  # 1/64 px steps
])
def test_phase_offset(baseline, current, expected):
    assert phase_offset(baseline, current) == expected


def test_the_offset_lands_on_the_baseline_phase():
    base, cur = (0.0, 12012.890625, 1, 1), (0.0, 17823.140625, 1, 1)
    dx, dy = phase_offset(base, cur)
    assert -0.5 <= dy < 0.5
    assert phase_offset(base, (cur[0] + dx, cur[1] + dy, 1, 1)) is None


def test_only_moved_regions_back_on_phase_are_realigned(tmp_path):
    store = Store(tmp_path)
    image = np.zeros((40, 20, 4), np.uint8)
    image[..., 3] = 255
    image[10:20] = 200
    for name, box in (("on", [0.0, 10.25, 20.0, 10.0]), ("off", [0.0, 10.25, 20.0, 10.0]),
                      ("still", [0.0, 10.25, 20.0, 10.0])):
        store.write(f"index/desktop-light/code/{name}.png", image[10:20], {"browser": "x"}, box)
    assert recorded_boxes(store, "index/desktop-light")["code/on.png"] == (0.0, 10.25, 20.0, 10.0)
    regions = [Region("code", "on", (0, 10, 20, 11), "", "", (0.0, 10.25, 20.0, 10.0)),
               Region("code", "off", (0, 10, 20, 11), "", "", (0.0, 10.5, 20.0, 10.0)),
               Region("code", "still", (0, 10, 20, 11), "", "", (0.0, 10.25, 20.0, 10.0))]
    shot = Capture(Variant("index.html", "desktop", 20, 40, "light"), image, regions, [], {}, 0.0,
                   nudged={"code/on.png": (0.0, 0.25), "code/off.png": (0.0, 0.25)})
    out = realigned(shot, recorded_boxes(store, "index/desktop-light"))
    # "off" was moved but did not land on its phase; "still" was never moved
    assert list(out) == ["code/on.png"]
    assert np.array_equal(out["code/on.png"], image[10:21])
