"""capture_all's bookkeeping (schedule.Schedule) and its order of operations, with
fake pages instead of a browser: the next page loads while the current one's tiles
are taken, one page is tiled at a time, a dark variant switches its light one's page."""

from __future__ import annotations

import types

import pytest

from theme.capture import lanes as lanes_mod
from theme.capture import session as session_mod
from theme.capture.naming import Variant
from theme.capture.schedule import Schedule
from theme.config import VisualConfig


def v(scheme: str, viewport: str = "desktop") -> Variant:
    width, height = {"desktop": (1280, 800), "mobile": (390, 844)}[viewport]
    return Variant("index.html", viewport, width, height, scheme)


FOUR = [v("light"), v("dark"), v("light", "mobile"), v("dark", "mobile")]  # plan: 0, 2, 1 (follows 0), 3 (follows 1)


def every(_variant) -> bool:
    return True


def test_schedule_keeps_a_page_for_the_step_that_switches_it():
    schedule = Schedule(FOUR, every)
    assert [(place, FOUR.index(variant)) for place, variant in schedule] == [(0, 0), (1, 2), (2, 1), (3, 3)]
    opened = []
    schedule.load_ahead(0, lambda variant: opened.append(variant) or "page of 2")
    assert opened == [FOUR[2]] and schedule.opened(1) == "page of 2" and schedule.opened(1) is None
    assert schedule.followed(0) and schedule.followed(1) and not schedule.followed(2)
    schedule.note_read(0, None)  # step 0's scripts never read the scheme: step 2 will switch its page
    schedule.load_ahead(1, lambda variant: pytest.fail("step 2 takes step 0's page"))
    assert schedule.keeps(0)
    schedule.finished(0, "capture 0", kept="lane 0")
    assert schedule.kept(2) == "lane 0" and schedule.kept(2) is None
    assert list(schedule.due()) == ["capture 0"]


def test_a_page_whose_scripts_read_the_scheme_is_loaded_anew_ahead():
    schedule = Schedule(FOUR, every)
    schedule.note_read(0, "matchMedia((prefers-color-scheme: dark))")
    schedule.load_ahead(1, lambda variant: types.SimpleNamespace(variant=variant, lane="fresh lane"))
    assert not schedule.keeps(0)  # step 0's page is parked: step 2 has a page of its own
    assert schedule.abandon() == ["fresh lane"] and schedule.abandon() == []


def test_captures_are_handed_out_in_the_callers_order():
    schedule = Schedule(FOUR, every)
    schedule.finished(1, "capture 2")  # place 1 is todo index 2
    assert list(schedule.due()) == []
    schedule.finished(0, "capture 0")
    assert list(schedule.due()) == ["capture 0"]
    schedule.finished(2, "capture 1")
    assert list(schedule.due()) == ["capture 1", "capture 2"]


def test_one_step_is_shot_at_a_time():
    schedule = Schedule(FOUR, every)
    assert schedule.shooting is None and schedule.shoot(0, "tiles 0") is None
    assert schedule.shooting == "tiles 0"
    assert schedule.shoot(1, "tiles 2") == (0, "tiles 0")
    assert schedule.stop() == (1, "tiles 2") and schedule.shooting is None and schedule.stop() is None


# ---------------------------------------------------------------- capture_all, with fakes


def traced(tmp_path, monkeypatch, todo, reads=(), fail_prepare=()) -> list[tuple]:
    """capture_all(todo) on fake lanes, readiness and tiles: what it did, in order.
    `reads`: todo index -> how that page's scripts read the scheme."""
    log: list[tuple] = []
    counter = iter(range(1, 100))

    def page_for(i):
        lane = types.SimpleNamespace(id=next(counter), current=i)
        lane.page = types.SimpleNamespace(lane=lane)
        return lane

    class FakeLanes(lanes_mod.Lanes):
        def __init__(self):  # no browser
            pass

        def open(self, variant):
            lane = page_for(todo.index(variant))
            log.append(("open", lane.current, lane.id))
            return types.SimpleNamespace(variant=variant, lane=lane, page=lane.page, switched=False)

        def switch(self, lane, variant):
            lane.current = todo.index(variant)
            log.append(("switch", lane.current, lane.id))
            return types.SimpleNamespace(variant=variant, lane=lane, page=lane.page, switched=True)

        def release(self, lane, *, reuse):
            log.append(("release", lane.id, reuse))

    def scheme_read(page):
        log.append(("read", page.lane.current))
        return dict(reads).get(page.lane.current)

    def prepare(job, nudges, say):
        i = todo.index(job.variant)
        log.append(("prepare", i))
        if i in fail_prepare:
            raise RuntimeError("prepare")
        return types.SimpleNamespace(job=job, i=i)

    def start(ready, say, hook):
        log.append(("start", ready.i))
        tiles = types.SimpleNamespace(wait_calls=lambda: log.append(("wait_calls", ready.i)),
                                      cancel=lambda: log.append(("cancel", ready.i)))
        return types.SimpleNamespace(ready=ready, tiles=tiles)

    def complete(shooting, say, hook):
        log.append(("complete", shooting.ready.i))
        return shooting.ready.i

    monkeypatch.setattr(lanes_mod, "scheme_read", scheme_read)
    monkeypatch.setattr(session_mod, "scheme_read", scheme_read)
    (tmp_path / "index.html").write_text("<p>x</p>")
    session = session_mod.Session(VisualConfig(root=tmp_path))
    session._browser = object()
    session._lanes = FakeLanes()
    session._readiness = types.SimpleNamespace(prepare=prepare)
    session._shooter = types.SimpleNamespace(start=start, complete=complete)
    try:
        for i in session.capture_all(todo):
            log.append(("yield", i))
    except RuntimeError as err:
        log.append(("raised", str(err)))
    return log


def test_the_next_page_settles_while_tiles_are_taken_and_dark_switches_its_light_page(tmp_path, monkeypatch):
    # The order recorded from capture_all before it was split into modules.
    assert traced(tmp_path, monkeypatch, FOUR) == [
        ("open", 0, 1), ("open", 2, 2), ("prepare", 0), ("read", 0), ("start", 0),
        ("prepare", 2), ("read", 2), ("wait_calls", 0), ("start", 2), ("complete", 0), ("cancel", 0), ("yield", 0),
        ("read", 0), ("switch", 1, 1), ("prepare", 1), ("wait_calls", 2), ("start", 1),
        ("complete", 2), ("cancel", 2),
        ("read", 2), ("switch", 3, 2), ("prepare", 3), ("wait_calls", 1), ("start", 3),
        ("complete", 1), ("cancel", 1), ("release", 1, True), ("yield", 1), ("yield", 2),
        ("complete", 3), ("cancel", 3), ("release", 2, True), ("yield", 3),
    ]


def test_a_page_that_read_the_scheme_is_not_switched(tmp_path, monkeypatch):
    assert traced(tmp_path, monkeypatch, FOUR, reads={0: "matchMedia"}) == [
        ("open", 0, 1), ("open", 2, 2), ("prepare", 0), ("read", 0), ("start", 0),
        ("open", 1, 3), ("prepare", 2), ("read", 2), ("wait_calls", 0), ("start", 2),
        ("complete", 0), ("cancel", 0), ("release", 1, True), ("yield", 0),
        ("prepare", 1), ("wait_calls", 2), ("start", 1), ("complete", 2), ("cancel", 2),
        ("read", 2), ("switch", 3, 2), ("prepare", 3), ("wait_calls", 1), ("start", 3),
        ("complete", 1), ("cancel", 1), ("release", 3, True), ("yield", 1), ("yield", 2),
        ("complete", 3), ("cancel", 3), ("release", 2, True), ("yield", 3),
    ]


def test_a_failure_hands_over_the_good_capture_before_it_and_closes_every_page(tmp_path, monkeypatch):
    assert traced(tmp_path, monkeypatch, FOUR, fail_prepare={2}) == [
        ("open", 0, 1), ("open", 2, 2), ("prepare", 0), ("read", 0), ("start", 0),
        ("prepare", 2), ("release", 2, False), ("complete", 0), ("cancel", 0), ("yield", 0),
        ("release", 1, False), ("raised", "prepare"),
    ]
