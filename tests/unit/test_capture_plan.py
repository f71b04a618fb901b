"""The order capture_all takes variants in, and which may switch a loaded page's scheme."""

from __future__ import annotations

from theme.capture.naming import Variant
from theme.capture.schedule import Step, plan


def v(scheme: str, viewport: str = "desktop", page: str = "index.html") -> Variant:
    width, height = {"desktop": (1280, 800), "mobile": (390, 844)}[viewport]
    return Variant(page, viewport, width, height, scheme)


def every(_variant) -> bool:
    return True


def test_two_viewports_interleave_and_each_dark_follows_its_light_two_steps_back():
    todo = [v("light"), v("dark"), v("light", "mobile"), v("dark", "mobile")]
    assert plan(todo, every) == [Step(0), Step(2), Step(1, follows=0), Step(3, follows=1)]


def test_the_wider_view_is_taken_first():
    todo = [v("light", "mobile"), v("dark", "mobile"), v("light"), v("dark")]
    assert plan(todo, every) == [Step(2), Step(0), Step(3, follows=0), Step(1, follows=1)]


def test_a_run_without_a_partner_is_taken_fresh_in_order():
    # one viewport: the two variants load and tile side by side instead
    assert plan([v("light"), v("dark")], every) == [Step(0), Step(1)]
    todo = [v("light", page="a.html"), v("dark", page="a.html"), v("light", page="b.html"),
            v("dark", page="b.html"), v("light", page="c.html"), v("dark", page="c.html")]
    assert plan(todo, every) == [Step(0), Step(2), Step(1, 0), Step(3, 1), Step(4), Step(5)]


def test_attr_schemes_and_unswitchable_variants_are_never_followed():
    todo = [v("light", "mobile"), v("dark", "mobile"), v("dark-attr", "mobile"), v("light"), v("dark")]
    steps = plan(todo, lambda x: x.data_theme is None)
    # the -attr variant breaks the mobile run into (light, dark) and a run of its own
    assert steps == [Step(0), Step(1), Step(2), Step(3), Step(4)]
    assert [s.follows for s in plan(todo[:2] + todo[3:], lambda x: x.scheme != "dark")] == [None] * 4


def test_the_same_scheme_twice_at_one_view_is_loaded_twice():
    assert plan([v("light"), v("light"), v("light", "mobile"), v("light", "mobile")], every) == [
        Step(0), Step(1), Step(2), Step(3)]


def test_every_variant_is_planned_once():
    todo = [v(s, vp, p) for p in ("a.html", "b.html") for vp in ("mobile", "desktop") for s in ("light", "dark")]
    steps = plan(todo, every)
    assert sorted(s.index for s in steps) == list(range(len(todo)))
    for place, step in enumerate(steps):
        if step.follows is not None:
            assert step.follows == place - 2
            before = todo[steps[step.follows].index]
            now = todo[step.index]
            assert (before.page, before.viewport) == (now.page, now.viewport) and before.scheme != now.scheme
    assert sum(s.follows is not None for s in steps) == 4
