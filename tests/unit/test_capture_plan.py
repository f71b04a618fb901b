"""The order capture_all takes variants in, and which may switch a loaded page's scheme."""

from __future__ import annotations

from theme.capture.naming import Variant
from theme.capture.schedule import Step, plan


def v(scheme: str, viewport: str = "desktop", page: str = "index.html") -> Variant:
    width, height = {"desktop": (1280, 800), "mobile": (390, 844)}[viewport]
    return Variant(page, viewport, width, height, scheme)


def every(_variant) -> bool:
    return True


def test_each_dark_follows_its_light_at_once_one_page_after_the_other():
    # never interleaved: a page is done with (its dark switched and tiled) before the next is tiled
    todo = [v("light", "mobile"), v("dark", "mobile"), v("light"), v("dark")]
    assert plan(todo, every) == [Step(0), Step(1, follows=0), Step(2), Step(3, follows=2)]


def test_the_widest_view_of_a_page_is_taken_last():
    todo = [v("light"), v("dark"), v("light", "mobile"), v("dark", "mobile")]
    assert plan(todo, every) == [Step(2), Step(3, follows=0), Step(0), Step(1, follows=2)]
    # pages keep the caller's order; only each page's views are sorted, widest last
    todo = [v("light", "desktop", "a.html"), v("light", "mobile", "b.html"), v("light", "desktop", "b.html"),
            v("light", "mobile", "a.html")]
    assert [s.index for s in plan(todo, every)] == [3, 0, 1, 2]


def test_a_view_in_one_scheme_is_taken_fresh_in_order():
    assert plan([v("light", "mobile"), v("light")], every) == [Step(0), Step(1)]
    todo = [v("light", page="a.html"), v("dark", page="a.html"), v("light", page="b.html"),
            v("dark", page="b.html"), v("light", page="c.html")]
    assert plan(todo, every) == [Step(0), Step(1, 0), Step(2), Step(3, 2), Step(4)]


def test_attr_schemes_and_unswitchable_variants_are_never_followed():
    todo = [v("light", "mobile"), v("dark", "mobile"), v("dark-attr", "mobile"), v("light"), v("dark")]
    steps = plan(todo, lambda x: x.data_theme is None)
    # the -attr variant is a run of its own after the mobile (light, dark)
    assert steps == [Step(0), Step(1, follows=0), Step(2), Step(3), Step(4, follows=3)]
    assert [s.follows for s in plan(todo[:2] + todo[3:], lambda x: x.scheme != "dark")] == [None] * 4


def test_the_same_scheme_twice_at_one_view_is_loaded_twice():
    assert plan([v("light", "mobile"), v("light", "mobile"), v("light"), v("light")], every) == [
        Step(0), Step(1), Step(2), Step(3)]


def test_every_variant_is_planned_once():
    todo = [v(s, vp, p) for p in ("a.html", "b.html") for vp in ("mobile", "desktop") for s in ("light", "dark")]
    steps = plan(todo, every)
    assert sorted(s.index for s in steps) == list(range(len(todo)))
    for place, step in enumerate(steps):
        if step.follows is not None:
            assert step.follows == place - 1
            before = todo[steps[step.follows].index]
            now = todo[step.index]
            assert (before.page, before.viewport) == (now.page, now.viewport) and before.scheme != now.scheme
    assert sum(s.follows is not None for s in steps) == 4
