"""Pure naming rules of the capture engine: variants, slugs, region names."""

from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from theme.capture import Variant, page_name, scripts, slug, variants
from theme.capture.model import Region
from theme.capture.naming import (
    TITLE,
    element_names,
    heading_bases,
    naming_heading,
    own_base,
    region_names,
    safe_segment,
)
from theme.capture.regions import clip_box, regions
from theme.core.config import VisualConfig
from theme.core.errors import ConfigError


def visual(**kw) -> VisualConfig:
    return VisualConfig(root=Path("article/dist"), **kw)


def test_variant_names_and_folder():
    v = Variant("index.html", "desktop", 1280, 800, "dark")
    assert v.page_name == "index"
    assert v.id == "desktop-dark"
    assert v.folder == PurePosixPath("index/desktop-dark")


def test_nested_page_keeps_its_folders():
    assert page_name("guide/intro.html") == "guide/intro"


@pytest.mark.parametrize("page", ["../secret.html", "a/../../b.html", ""])
def test_page_outside_root_is_a_config_error(page):
    with pytest.raises(ConfigError, match="inside root"):
        page_name(page)


def test_variants_follow_config_order_page_viewport_scheme():
    cfg = visual(pages=("b.html", "a.html"), viewports={"wide": (1440, 900), "narrow": (390, 844)},
                 color_schemes=("dark", "light"))
    got = [(v.page, v.viewport, v.scheme) for v in variants(cfg)]
    assert got == [
        ("b.html", "wide", "dark"), ("b.html", "wide", "light"),
        ("b.html", "narrow", "dark"), ("b.html", "narrow", "light"),
        ("a.html", "wide", "dark"), ("a.html", "wide", "light"),
        ("a.html", "narrow", "dark"), ("a.html", "narrow", "light"),
    ]
    assert variants(cfg)[2].width == 390 and variants(cfg)[2].height == 844


@pytest.mark.parametrize("scheme, media, attr", [
    ("light", "light", None), ("dark", "dark", None),
    # the -attr schemes fight the media query, so they prove <html data-theme> wins
    ("light-attr", "dark", "light"), ("dark-attr", "light", "dark"),
])
def test_attr_schemes_emulate_the_opposite_preference(scheme, media, attr):
    v = Variant("index.html", "desktop", 1280, 800, scheme)
    assert (v.media_scheme, v.data_theme) == (media, attr)


@pytest.mark.parametrize("text, expected", [
    ("Memory usage", "memory-usage"),
    ("  Über   Grüße! ", "uber-grusse"),
    ("📝 Note", "note"),
    ("a/../b", "a-b"),
    ("🎉", "section"),
    ("", "section"),
])
def test_slug(text, expected):
    assert slug(text) == expected


@given(st.text())
def test_slug_is_always_a_safe_segment(text):
    s = slug(text)
    assert s and "/" not in s and "\\" not in s and s not in (".", "..")
    assert len(s) <= 60 and s == s.strip("-")


@given(st.text())
def test_safe_segment_never_leaves_the_folder(text):
    s = safe_segment(text)
    assert s and "/" not in s and s.strip(".") != ""
    assert PurePosixPath("snapshots", s).parent == PurePosixPath("snapshots")


def test_region_names_count_within_each_heading():
    bases = heading_bases(["Alpha", "Beta"])
    assert region_names([None, 0, 0, 1, 0], bases) == ["top", "alpha", "alpha-2", "beta", "alpha-3"]


def test_inserting_a_region_in_one_section_renames_nothing_in_another():
    bases = heading_bases(["A", "B", "C"])
    before = region_names([0, 1, 1, 2], bases)
    after = region_names([0, 0, 1, 1, 2], bases)  # a new note-box in section A
    assert before[1:] == after[2:]


def test_repeated_heading_text_gets_distinct_bases():
    assert heading_bases(["Example", "Other", "Example"]) == ["example", "other", "example-h2"]
    # 2nd region under the first "Example" and the first under the second differ
    bases = heading_bases(["Example", "Example"])
    assert region_names([0, 0, 1], bases) == ["example", "example-2", "example-h2"]


def test_heading_ending_in_a_number_never_collides():
    bases = heading_bases(["Step", "Step 2"])
    names = region_names([0, 0, 1], bases)
    assert len(set(names)) == 3 and names[:2] == ["step", "step-2"]


def test_region_path_is_key_then_name():
    r = Region("note-box", "memory-usage-2", (0, 0, 1, 1), "Memory usage", "div.note-box")
    assert r.path == PurePosixPath("note-box/memory-usage-2.png")
    evil = Region("../../etc", "x", (0, 0, 1, 1), "", "")
    assert ".." not in evil.path.parts


@pytest.mark.parametrize("box, expected", [
    ([10.2, 20.7, 30.1, 5.0], (10, 20, 31, 6)),  # whole pixels covering the box
    ([-5, -5, 20, 20], (0, 0, 15, 15)),  # clipped to the image
    ([90, 90, 50, 50], (90, 90, 10, 10)),
    ([200, 0, 10, 10], None),  # entirely outside
])
def test_clip_box(box, expected):
    assert clip_box(box, 100, 100) == expected


# ---------------------------------------------------------------- before the article's first heading

# Where each heading of a Distill page stands (scripts.REGIONS `placed`): the title,
# the byline's four (chrome element 0), the body's two, the appendix's (chrome 1).
HEADINGS = ["Sequence Modeling", "Authors", "Affiliations", "Published", "DOI", "Introduction", "Method",
            "Notes"]
PLACED = [TITLE, 0, 0, 0, 0, None, None, 1]


@pytest.mark.parametrize("preceding, inside, expected", [
    (None, (), None),  # nothing precedes it
    (0, (), None),  # in the title block: the title heading does not name by nearness
    (4, (), None),  # after the byline's "DOI", before the body's first heading
    (5, (), 5),  # after "Introduction"
    (7, (), 6),  # after the appendix's "Notes" but outside the appendix: the body's last heading
    (7, (1,), 7),  # inside the appendix, after its "Notes"
    (4, (0,), 4),  # inside the byline: its own heading
])
def test_the_naming_heading_passes_over_chrome_and_the_title(preceding, inside, expected):
    assert naming_heading(preceding, PLACED, inside) == expected


@pytest.mark.parametrize("args, expected", [
    (("teaser", "A caption", "The Title"), "teaser"),  # its own id first
    (("", "How CTC collapsing works", "The Title"), "how-ctc-collapsing-works"),  # then its caption
    (("", "  ", "Sequence Modeling With CTC"), "sequence-modeling-with-ctc"),  # then the title
    (("", "", None), "top"),  # then nothing to go by
    (("🎉", "", None), "top"),  # an id with no letters slugs to the same fallback
])
def test_own_base_is_id_then_caption_then_title(args, expected):
    assert own_base(*args) == expected


def test_regions_before_the_first_heading_are_named_by_their_own_base_and_counted_per_base():
    bases = heading_bases(HEADINGS)
    own = ["sequence-modeling", "teaser", "sequence-modeling", "", ""]
    names = region_names([None, None, None, 5, 5], bases, own)
    assert names == ["sequence-modeling", "teaser", "sequence-modeling-2", "introduction", "introduction-2"]
    assert not any(name.startswith("doi") for name in names)


def test_an_own_base_equal_to_a_heading_base_never_collides():
    bases = heading_bases(["Introduction"])
    assert region_names([None, 0], bases, ["introduction", ""]) == ["introduction", "introduction-2"]


def test_the_specimen_layout_names_regions_in_the_body_as_before():
    """Regions after the body's first heading keep the name of the nearest heading."""
    bases = heading_bases(HEADINGS)
    before = region_names([5, 6, 6], bases)
    heading_of = [naming_heading(h, PLACED) for h in (5, 6, 6)]
    assert region_names(heading_of, bases, ["", "", ""]) == before == ["introduction", "method", "method-2"]


def test_regions_from_a_measured_page():
    """regions.regions() on what scripts.REGIONS returns: names and the section heading shown in messages."""
    box = [0, 0, 10, 10]
    found = {"headings": HEADINGS, "placed": PLACED, "title": "Sequence Modeling", "regions": {"figure": [
        {"box": box, "heading": 0, "selector": "d-title > figure", "inside": [], "id": "", "caption": ""},
        {"box": box, "heading": 4, "selector": "d-article > figure", "inside": [], "id": "", "caption": "Teaser"},
        {"box": box, "heading": 5, "selector": "d-article > figure:nth-of-type(2)", "inside": []},
    ]}}
    got = [(r.name, r.heading) for r in regions(found, {"figure": "figure"}, 100, 100)]
    assert got == [("sequence-modeling", "Sequence Modeling"), ("teaser", "Sequence Modeling"),
                   ("introduction", "Introduction")]


def test_a_states_elements_are_named_as_the_pages_regions_never_after_the_byline():
    """element_names on what js/state_regions.js measures for a reader state: a cite's hover box
    whose d-cite follows the byline's "DOI" (and no article heading yet) is named after the
    title, or its figure's caption, as a region there would be; not "doi" (issue 50). One after
    "Introduction" keeps that heading's name, one in the appendix its own heading's."""
    found = [
        {"heading": 4, "inside": [], "id": "", "caption": ""},  # a d-cite in the opening paragraph
        {"heading": 4, "inside": [], "id": "", "caption": "How CTC collapsing works"},  # in a figure's caption
        {"heading": 4, "inside": [], "id": "", "caption": ""},
        {"heading": 5, "inside": []},
        {"heading": 7, "inside": [1]},
        {"heading": None, "inside": [], "id": "", "caption": ""},  # a page without headings or title
    ]
    assert element_names(found, HEADINGS, PLACED, "Sequence Modeling With CTC") == [
        ("sequence-modeling-with-ctc", None), ("how-ctc-collapsing-works", None),
        ("sequence-modeling-with-ctc-2", None), ("introduction", 5), ("notes", 7),
        ("sequence-modeling-with-ctc-3", None)]
    assert [name for name, _ in element_names(found[:1], HEADINGS, PLACED)] == ["top"]  # no title to go by


def test_state_regions_measures_what_the_page_regions_are_named_by():
    """Both page scripts read the same facts (js/naming_of.js), so the rules cannot drift apart."""
    assert "namingOf" in scripts.parts("state_regions")[1] and "namingOf" in scripts.parts("regions")[1]
