"""Pure naming rules of the capture engine: variants, slugs, region names."""

from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from theme.capture import Variant, page_name, slug, variants
from theme.capture.naming import heading_bases, region_names, safe_segment
from theme.capture.model import Region
from theme.capture.regions import clip_box
from theme.config import VisualConfig
from theme.errors import ConfigError


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
