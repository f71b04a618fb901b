"""capture_all's bookkeeping (schedule.Schedule) and its order of operations (overlap.py), with
fake pages instead of a browser: the next page loads while the current one's tiles
are taken, one page is tiled at a time, a dark variant switches its light one's page."""

from __future__ import annotations

import types

import pytest

from theme.capture import lanes as lanes_mod
from theme.capture import overlap as overlap_mod
from theme.capture import session as session_mod
from theme.capture.naming import Variant
from theme.capture.schedule import Schedule
from theme.core.config import VisualConfig


def v(scheme: str, viewport: str = "desktop") -> Variant:
    width, height = {"desktop": (1280, 800), "mobile": (390, 844)}[viewport]
    return Variant("index.html", viewport, width, height, scheme)


FOUR = [v("light", "mobile"), v("dark", "mobile"), v("light"), v("dark")]  # plan: 0, 1 (follows 0), 2, 3 (follows 2)


def every(_variant) -> bool:
    return True


def test_schedule_keeps_a_page_for_the_step_that_switches_it():
    schedule = Schedule(FOUR, every)
    assert [(place, FOUR.index(variant)) for place, variant in schedule] == [(0, 0), (1, 1), (2, 2), (3, 3)]
    opened = []
    # step 1 is to switch step 0's page, if its scripts never read the scheme: not known yet
    schedule.load_ahead(0, lambda variant: pytest.fail("nothing is loaded before step 0 is settled"))
    assert schedule.followed(0) and not schedule.followed(1) and schedule.followed(2)
    schedule.note_read(0, None)  # they never did: step 1 will switch its page, the next to load is step 2's
    schedule.load_ahead(0, lambda variant: opened.append(variant) or "page of 2")
    assert opened == [FOUR[2]]
    schedule.load_ahead(0, lambda variant: pytest.fail("one page loads ahead at a time"))
    schedule.shoot(0, "tiles 0")
    assert schedule.switches_shooting(1) and not schedule.switches_shooting(2)
    assert schedule.keeps(0)
    assert schedule.stop() == (0, "tiles 0")
    schedule.finished(0, "capture 0", kept="lane 0")
    assert schedule.kept(1) == "lane 0" and schedule.kept(1) is None
    assert list(schedule.due()) == ["capture 0"]
    assert schedule.opened(2) == "page of 2" and schedule.opened(2) is None


def test_a_page_whose_scripts_read_the_scheme_is_loaded_anew_ahead():
    schedule = Schedule(FOUR, every)
    schedule.note_read(0, "matchMedia((prefers-color-scheme: dark))")
    schedule.load_ahead(0, lambda variant: types.SimpleNamespace(variant=variant, lane="fresh lane"))
    schedule.shoot(0, "tiles 0")
    assert not schedule.keeps(0)  # step 0's page is parked: step 1 has a page of its own
    assert not schedule.switches_shooting(1)  # and need not wait for step 0 to be complete
    assert schedule.opened(1).variant == FOUR[1]
    schedule.load_ahead(1, lambda variant: types.SimpleNamespace(variant=variant, lane="lane 2"))
    assert schedule.abandon() == ["lane 2"] and schedule.abandon() == []


def test_captures_are_handed_out_in_the_callers_order():
    todo = [v("light"), v("dark"), v("light", "mobile"), v("dark", "mobile")]  # desktop, widest, last
    schedule = Schedule(todo, every)
    assert [todo.index(variant) for _, variant in schedule] == [2, 3, 0, 1]
    schedule.finished(0, "capture 2")
    schedule.finished(1, "capture 3")
    assert list(schedule.due()) == []
    schedule.finished(2, "capture 0")
    assert list(schedule.due()) == ["capture 0"]
    schedule.finished(3, "capture 1")
    assert list(schedule.due()) == ["capture 1", "capture 2", "capture 3"]


def test_one_step_is_shot_at_a_time():
    schedule = Schedule(FOUR, every)
    assert schedule.shooting is None and schedule.shoot(0, "tiles 0") is None
    assert schedule.shooting == "tiles 0"
    assert schedule.shoot(2, "tiles 2") == (0, "tiles 0")
    assert schedule.stop() == (2, "tiles 2") and schedule.shooting is None and schedule.stop() is None


# ---------------------------------------------------------------- capture_all, with fakes


def traced(tmp_path, monkeypatch, todo, reads=(), fail_prepare=(), heights=()) -> list[tuple]:
    """capture_all(todo) on fake lanes, readiness and tiles: what it did, in order.
    `reads`: todo index -> how that page's scripts read the scheme; `heights`: todo
    index -> its page's height (1000 px, one tile, when not given)."""
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
        return types.SimpleNamespace(job=job, i=i, height=dict(heights).get(i, 1000))

    def start(ready, say, hook):
        log.append(("start", ready.i))
        tiles = types.SimpleNamespace(wait_calls=lambda: log.append(("wait_calls", ready.i)),
                                      cancel=lambda: log.append(("cancel", ready.i)))
        return types.SimpleNamespace(ready=ready, tiles=tiles)

    def complete(shooting, say, hook):
        log.append(("complete", shooting.ready.i))
        return shooting.ready.i

    monkeypatch.setattr(lanes_mod, "scheme_read", scheme_read)
    monkeypatch.setattr(overlap_mod, "scheme_read", scheme_read)
    (tmp_path / "index.html").write_text("<p>x</p>")
    session = session_mod.Session(VisualConfig(root=tmp_path))
    session._browser = object()
    session.server = types.SimpleNamespace()  # no server: only reader states use it
    session._lanes = FakeLanes()
    session._readiness = types.SimpleNamespace(prepare=prepare)
    session._shooter = types.SimpleNamespace(start=start, complete=complete)
    try:
        for i in session.capture_all(todo):
            log.append(("yield", i))
    except RuntimeError as err:
        log.append(("raised", str(err)))
    return log


def test_a_dark_variant_switches_its_light_page_once_that_is_complete(tmp_path, monkeypatch):
    # light 0 is complete before dark 1 switches its page; page 2 is loaded once page 0 is
    # settled (so page 1 needs none), settled while dark 1's tiles are taken, tiled after them
    assert traced(tmp_path, monkeypatch, FOUR) == [
        ("open", 0, 1), ("prepare", 0), ("read", 0), ("open", 2, 2), ("start", 0),
        ("complete", 0), ("cancel", 0), ("yield", 0),
        ("read", 0), ("switch", 1, 1), ("prepare", 1), ("start", 1),
        ("prepare", 2), ("read", 2), ("wait_calls", 1), ("start", 2),
        ("complete", 1), ("cancel", 1), ("release", 1, True), ("yield", 1),
        ("complete", 2), ("cancel", 2), ("yield", 2),
        ("read", 2), ("switch", 3, 2), ("prepare", 3), ("start", 3),
        ("complete", 3), ("cancel", 3), ("release", 2, True), ("yield", 3),
    ]


def test_a_page_that_read_the_scheme_is_loaded_anew_while_the_light_one_is_tiled(tmp_path, monkeypatch):
    assert traced(tmp_path, monkeypatch, FOUR, reads={0: "matchMedia"}) == [
        ("open", 0, 1), ("prepare", 0), ("read", 0), ("open", 1, 2), ("start", 0),
        ("open", 2, 3), ("prepare", 1), ("wait_calls", 0), ("start", 1),
        ("complete", 0), ("cancel", 0), ("release", 1, True), ("yield", 0),
        ("prepare", 2), ("read", 2), ("wait_calls", 1), ("start", 2),
        ("complete", 1), ("cancel", 1), ("release", 2, True), ("yield", 1),
        ("complete", 2), ("cancel", 2), ("yield", 2),
        ("read", 2), ("switch", 3, 3), ("prepare", 3), ("start", 3),
        ("complete", 3), ("cancel", 3), ("release", 3, True), ("yield", 3),
    ]


def test_a_page_taller_than_a_tile_is_closed_not_parked(tmp_path, monkeypatch):
    # its renderer keeps what the tiles cost; a short page's lane is parked for the next variant
    log = traced(tmp_path, monkeypatch, FOUR, heights={1: 200_000, 3: 1000})
    assert [e for e in log if e[0] == "release"] == [("release", 1, False), ("release", 2, True)]


def test_a_failure_hands_over_the_good_captures_before_it_and_closes_every_page(tmp_path, monkeypatch):
    assert traced(tmp_path, monkeypatch, FOUR, fail_prepare={2}) == [
        ("open", 0, 1), ("prepare", 0), ("read", 0), ("open", 2, 2), ("start", 0),
        ("complete", 0), ("cancel", 0), ("yield", 0),
        ("read", 0), ("switch", 1, 1), ("prepare", 1), ("start", 1),
        ("prepare", 2), ("release", 2, False), ("complete", 1), ("cancel", 1), ("release", 1, True),
        ("yield", 1), ("raised", "prepare"),
    ]
