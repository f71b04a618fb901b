"""Sessions one after another inside kept_browsers() (theme/capture/launch.py) render with one
browser, which closes when the block ends; outside it, each Session launches and closes its own.
`theme init` runs its looks, its second renders and its reader states this way."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from theme.capture import Session, Variant, launch
from theme.capture.launch import kept_browsers
from theme.core.config import VisualConfig

pytestmark = pytest.mark.browser

VARIANT = Variant("index.html", "desktop", 320, 240, "light")


@pytest.fixture(autouse=True)
def not_kept_by_the_suite(monkeypatch):
    """The suite keeps each worker's browsers (tests/conftest.py): here, as in a user's run,
    nothing keeps them but what each test opens."""
    monkeypatch.setattr(launch._THREAD, "kept", None)
    monkeypatch.setattr(launch._THREAD, "holding", None, raising=False)  # what holds its driver


@pytest.fixture
def visual(tmp_path) -> VisualConfig:
    (tmp_path / "index.html").write_text('<!doctype html><html><body style="margin:0">'
                                         '<h2 id="t">Kept</h2><div class="box" style="height:40px;'
                                         'background:#36c"></div></body></html>')
    return VisualConfig(root=tmp_path, pages=("index.html",), viewports={"desktop": (320, 240)},
                        color_schemes=("light",), regions={"box": ".box"})


def test_sessions_inside_kept_browsers_share_one_browser_and_it_closes_after(visual):
    masked = dataclasses.replace(visual, mask=("#t",))  # another config, as init's second renders have
    with kept_browsers():
        with Session(visual) as first:
            plain = first.capture(VARIANT)
            browser = first._started()[0]
        assert browser.is_connected()  # the Session ended; the browser is kept
        with Session(masked) as second:
            covered = second.capture(VARIANT)
            assert second._started()[0] is browser
    assert not browser.is_connected()
    assert not np.array_equal(plain.image, covered.image)  # each Session rendered with its own config
    assert plain.regions[0].box == covered.regions[0].box


def test_a_session_outside_kept_browsers_closes_its_own(visual):
    with Session(visual) as session:
        session.capture(VARIANT)
        browser = session._started()[0]
    assert not browser.is_connected()
