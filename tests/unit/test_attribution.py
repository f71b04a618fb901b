"""Attribution: a changed area is named by the elements under it."""

from dataclasses import dataclass

from theme.check.attribution import attribute, overlaps, resized


@dataclass(frozen=True)
class R:
    key: str
    name: str
    box: tuple
    heading: str
    selector: str = ".note-box"


MEMORY = R("note-box", "memory-usage", (100, 1000, 600, 194), "Memory usage")
CODE = R("code", "setup", (100, 3000, 600, 300), "Setup", "d-code[block]")


def test_growth_is_read_from_the_baseline_size():
    out = attribute([(100, 1150, 600, 60)], [MEMORY, CODE], {"note-box/memory-usage": [600, 180]})
    assert out == ["note-box in “Memory usage” grew 14 px"]


def test_region_without_size_change_is_named_with_its_selector():
    out = attribute([(150, 3100, 20, 20)], [MEMORY, CODE], {"code/setup": [600, 300]})
    assert out == ["code in “Setup” changed (d-code[block])"]


def test_change_outside_every_region_is_located():
    out = attribute([(0, 5, 30, 8)], [MEMORY, CODE])
    assert out == ["change outside any region at x=0 y=5 (30×8 px)"]


def test_resized_reports_both_dimensions_and_none_when_same():
    assert resized(MEMORY, [610, 200]) == "note-box in “Memory usage” shrank 6 px and narrowed 10 px"
    assert resized(MEMORY, [600, 194]) is None
    assert resized(MEMORY, None) is None


def test_overlap_is_strict_at_edges():
    assert overlaps((0, 0, 10, 10), (9, 9, 5, 5))
    assert not overlaps((0, 0, 10, 10), (10, 0, 5, 5))


def test_long_lists_are_capped():
    regions = [R("math", f"m{i}", (0, i * 10, 10, 10), "Maths") for i in range(20)]
    out = attribute([(0, 0, 10, 200)], regions, limit=5)
    assert len(out) == 6 and out[-1] == "… and 15 more"


def test_a_region_that_passed_its_own_check_claims_its_area_but_is_not_named():
    """A page card must not say "code … changed" when the code block's own check passed
    (at its sub-pixel phase): its changed area is claimed, so no "outside any region" line either."""
    changed = [(120, 3010, 50, 8), (120, 1010, 40, 8)]
    lines = attribute(changed, [MEMORY, CODE], {"note-box/memory-usage": [600, 180]},
                      passing=frozenset({"code/setup"}))
    assert lines == ["note-box in “Memory usage” grew 14 px"]
