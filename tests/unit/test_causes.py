"""theme/check/causes.py: failures grouped by cause, on the style changes of real specimen
records (tests/fixtures/styles/) spread over the images a long article has."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from theme.baselines import style_record as styles
from theme.check import causes
from theme.check.causes import Cause, Failed

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "styles" / "specimen.json"
RENDERS = json.loads(FIXTURE.read_text(encoding="utf-8"))
FOLDERS = ("index/desktop-light", "index/desktop-dark", "index/mobile-light", "index/mobile-dark")


def found(after: str, region: str) -> tuple[styles.StyleChange, ...]:
    """What changed in a specimen region's record between the specimen and `after`'s render."""
    before = styles.from_page(RENDERS["before"][region]["styles"])
    return tuple(styles.changes(before, styles.from_page(RENDERS[after][region]["styles"])))


def box(y: float, h: float) -> causes.Box:
    return (290.0, y, 680.0, h)


def note_boxes(n: int = 36) -> list[Failed]:
    """The specimen with `.note-box-content` 12 → 13 px: every note-box grew by its own amount."""
    out = []
    for i in range(n):
        region = ("note-box/0", "note-box/1")[i % 2]
        y, h = 1000.0 + 900 * i, 80.0 + i
        out.append(Failed(f"{FOLDERS[i % 3]}/note-box/box-{i:02}.png", "note-box", f"Section {i}",
                          found("note13", region), box(y, h), box(y + 3 * i, h + 3 + (i % 4))))
    return out


def figures_moved_pixels_pages() -> list[Failed]:
    """A CTC-like article with `figcaption` 14 → 16 px: 38 figures grew (+2 to +27 px), 60 regions
    below them only moved, one image changed with no style change, and the four whole pages."""
    out = []
    for i in range(38):
        region = ("figure/0", "figure/5")[i % 2]
        y, h = 500.0 + 1000 * i, 300.0
        out.append(Failed(f"{FOLDERS[i % 4]}/figure/fig-{i:02}.png", "figure", f"Figure {i}",
                          found("caption16", region), box(y, h), box(y, h + 2 + (25 * i) // 37)))
    for i in range(60):
        key = ("note-box", "code", "math")[i % 3]
        y = 1200.0 + 700 * i
        out.append(Failed(f"{FOLDERS[i % 4]}/{key}/below-{i:02}.png", key, f"Part {i}", (),
                          box(y, 120), box(y + 3 + i, 120)))
    same = styles.from_page(RENDERS["before"]["figure/5"]["styles"])
    out.append(Failed("index/desktop-light/figure/gif.png", "figure", "Alignment",
                      tuple(styles.changes(same, same)), box(40000, 83), box(40000, 83)))
    out.extend(Failed(f"{folder}/page.png") for folder in FOLDERS)
    return out


def test_every_note_box_is_in_one_group_that_names_the_rule():
    groups = causes.group(note_boxes())
    assert len(groups) == 1
    (g,) = groups
    assert (g.number, g.cause, g.count) == (1, Cause.STYLE, 36)
    assert g.summary == ("36 note-boxes: `.note-box-content` font-size 12px → 13px, "
                         "line-height 19.2px → 20.8px, heights +3 to +6 px")
    for item in g.items:
        assert "`.note-box-content` font-size 12px → 13px" in causes.explain(item, groups)


def test_figures_moved_regions_a_pixel_change_and_pages_are_four_groups_causes_first():
    groups = causes.group(figures_moved_pixels_pages())
    assert [(g.cause, g.count) for g in groups] == [(Cause.STYLE, 38), (Cause.PIXELS, 1), (Cause.MOVED, 60),
                                                    (Cause.PAGE, 4)]
    figures, pixels, moved, pages = groups
    assert figures.summary == ("38 figures: `figcaption` font-size 14px → 16px, line-height 21px → 24px, "
                               "heights +2 to +27 px")
    assert pixels.summary == ("1 figure: pixels changed, no computed style or text did: "
                              "an image, a canvas or a font file")
    assert moved.summary == ("60 regions (20 codes, 20 maths, 20 note-boxes) only moved by +3 to +62 px: "
                             "content above them changed (group 1)")
    assert moved.pushed_by == (1,) and pages.pushed_by == (1, 2)
    assert pages.summary == "4 whole pages: the groups above, seen on the whole page (groups 1 and 2)"


def test_a_region_that_only_moved_says_so_and_points_at_the_group_that_moved_it():
    groups = causes.group(figures_moved_pixels_pages())
    item = next(i for i in groups[2].items if i.id == "index/desktop-light/note-box/below-00.png")
    assert causes.explain(item, groups) == ("note-box in “Part 0” only moved +3 px: "
                                            "content above it changed (group 1)")
    gif = groups[1].items[0]
    assert causes.explain(gif, groups) == ("figure in “Alignment”: pixels changed, no computed style or text did: "
                                           "an image, a canvas or a font file")


def test_what_a_render_from_the_baselines_own_inputs_shows_is_never_told_as_a_change():
    """Issue 48, item 4: the same items from a re-render of unchanged inputs (unsteady): one
    group, saying the page does not hold still, never "only moved" nor "a canvas or a font file"."""
    import dataclasses

    items = [dataclasses.replace(i, unsteady=True) for i in figures_moved_pixels_pages()
             if i.folder == "index/desktop-light"]
    groups = causes.group(items)
    assert [(g.cause, g.count) for g in groups] == [(Cause.UNSTEADY, len(items))]
    assert groups[0].summary.startswith(f"{len(items)} images (")
    assert groups[0].summary.endswith(f"1 whole page): {causes.UNSTEADY}")
    for item in items:
        said = causes.explain(item, groups)
        assert said.endswith(causes.UNSTEADY) and "only moved" not in said and "font file" not in said


def test_a_region_at_the_top_of_its_page_was_not_moved_by_what_is_below_it():
    top = Failed("index/desktop-light/code/intro.png", "code", "Intro", (), box(10, 50), box(12, 50))
    grew = Failed("index/desktop-light/figure/a.png", "figure", "A", found("caption16", "figure/0"),
                  box(900, 300), box(900, 309))
    groups = causes.group([top, grew])
    assert groups[1].cause is Cause.MOVED and groups[1].pushed_by == ()
    assert causes.explain(top, groups) == "code in “Intro” only moved +2 px: content above it changed"


def test_the_same_failures_in_any_order_give_the_same_groups():
    items = figures_moved_pixels_pages() + note_boxes()
    expected = causes.group(items)
    random.Random(30).shuffle(items)
    assert causes.group(items) == expected
    assert [g.ids for g in expected] == [tuple(sorted(g.ids)) for g in expected]


def test_equal_groups_are_ordered_by_their_first_id():
    a = [Failed(f"index/desktop-light/figure/b{i}.png", "figure", "", found("caption16", "figure/0")) for i in range(3)]
    b = [Failed(f"index/desktop-light/note-box/a{i}.png", "note-box", "", found("note13", "note-box/0"))
         for i in range(3)]
    assert [g.items[0].region for g in causes.group(a + b)] == ["figure", "note-box"]
    assert [g.items[0].region for g in causes.group(a + b[:2])] == ["figure", "note-box"]
    assert [g.items[0].region for g in causes.group(a[:2] + b)] == ["note-box", "figure"]


def test_the_place_of_an_element_among_its_siblings_does_not_split_a_group():
    first = (styles.StyleChange("div.note-box-content > p:nth-of-type(1)", "margin", "0px 0px 8px 0px",
                                "0px 0px 12px 0px"),)
    second = (styles.StyleChange("div.note-box-content > p:nth-of-type(2)", "margin", "0px 0px 8px 0px",
                                 "0px 0px 12px 0px"),)
    groups = causes.group([Failed("index/desktop-light/note-box/a.png", "note-box", "", first),
                           Failed("index/desktop-light/note-box/b.png", "note-box", "", second)])
    assert len(groups) == 1
    assert groups[0].summary == "2 note-boxes: `.note-box-content > p` margin 0px 0px 8px 0px → 0px 0px 12px 0px"


def test_a_colour_change_keeps_the_heights_and_different_values_are_different_groups():
    def recoloured(colour: str) -> tuple[styles.StyleChange, ...]:
        return (styles.StyleChange("", "background-color", "rgb(241, 246, 254)", colour),)

    items = [Failed(f"index/desktop-dark/note-box/n{i}.png", "note-box", "", recoloured("rgb(18, 27, 43)"),
                    box(100 * i, 90), box(100 * i, 90)) for i in range(5)]
    items.append(Failed("index/desktop-dark/figure/f.png", "figure", "", recoloured("rgb(0, 0, 0)"),
                        box(0, 90), box(0, 90)))
    groups = causes.group(items)
    assert [g.summary for g in groups] == [
        "5 note-boxes: background-color rgb(241, 246, 254) → rgb(18, 27, 43), heights unchanged",
        "1 figure: background-color rgb(241, 246, 254) → rgb(0, 0, 0), heights unchanged"]


def test_regions_resized_with_no_style_change_are_one_group_apart_from_pixel_only_ones():
    same = styles.from_page(RENDERS["before"]["figure/5"]["styles"])
    taller = styles.StyleRecord({**same.elements, "": {**same.elements[""], "height": "87px"}})
    items = [Failed("index/desktop-light/figure/a.png", "figure", "A", tuple(styles.changes(same, taller)),
                    box(100, 83), box(100, 87)),
             Failed("index/desktop-light/figure/b.png", "figure", "B", (), box(900, 83), box(900, 90)),
             Failed("index/desktop-light/figure/c.png", "figure", "C", (), box(2000, 83), box(2000, 83))]
    groups = causes.group(items)
    assert [(g.cause, g.ids) for g in groups] == [
        (Cause.RESIZED, ("index/desktop-light/figure/a.png", "index/desktop-light/figure/b.png")),
        (Cause.PIXELS, ("index/desktop-light/figure/c.png",))]
    assert groups[0].summary == "2 figures: resized, no computed style or text changed, heights +4 to +7 px"
    assert causes.explain(items[0], groups) == "figure in “A”: no computed style or text changed; height 83 → 87 px"


def test_one_cause_in_several_kinds_of_region_is_one_group_naming_each_kind():
    change = (styles.StyleChange("p", "font-size", "16px", "17px"),)
    items = [Failed(f"index/desktop-light/{key}/{i}.png", key, "", change)
             for key, n in (("note-box", 3), ("figure", 2)) for i in range(n)]
    (g,) = causes.group(items)
    assert g.summary == "5 regions (3 note-boxes, 2 figures): `p` font-size 16px → 17px"


def test_the_terminal_gets_a_header_two_lines_a_group_and_the_way_to_every_item():
    lines = causes.terminal_lines(causes.group(figures_moved_pixels_pages()))
    assert lines[0] == "103 failed images in 4 groups by cause:"
    assert lines[1] == ("  1. 38 figures: `figcaption` font-size 14px → 16px, line-height 21px → 24px, "
                        "heights +2 to +27 px")
    assert lines[2] == ("       index/desktop-dark/figure/fig-01.png, index/desktop-dark/figure/fig-05.png, "
                        "index/desktop-dark/figure/fig-09.png and 35 more")
    assert lines[4] == "       index/desktop-light/figure/gif.png"
    assert lines[-1] == "-rf or -v lists every failed image"
    assert len(lines) == 10


@pytest.mark.parametrize("budget", [24, 25])
@pytest.mark.parametrize("kinds", [1, 11, 12, 40, 500])
def test_any_number_of_failures_fits_the_line_budget(kinds, budget):
    items = [Failed(f"index/desktop-light/figure/k{k:03}-{i}.png", "figure", "",
                    (styles.StyleChange("figcaption", "font-size", "14px", f"{15 + k}px"),))
             for k in range(kinds) for i in range(k % 5 + 2)]
    groups = causes.group(items)
    lines = causes.terminal_lines(groups, budget)
    assert len(lines) <= budget
    assert lines[0] == f"{len(items)} failed images in {kinds} group{'s' if kinds > 1 else ''} by cause:"
    listed = [line for line in lines[1:] if line[:5].strip().rstrip(".").isdigit()]
    hidden = len(groups) - len(listed)
    if hidden:
        n = sum(g.count for g in groups[len(listed):])
        assert lines[-2] == f"  … {hidden} more group{'s' if hidden > 1 else ''} of {n} images"
    else:
        assert all(not line.startswith("  …") for line in lines)
    assert len(listed) == min(kinds, 11 if kinds <= 11 or budget == 25 else 10)


def test_a_budget_too_small_for_one_group_is_refused():
    with pytest.raises(ValueError, match="budget of 3 lines"):
        causes.terminal_lines(causes.group(note_boxes(2)), budget=3)
    assert causes.terminal_lines([]) == []


def test_one_rule_at_other_depths_from_other_values_is_one_group():
    # What `figcaption { font-size: 14px }` did to a published Distill article: captions at
    # three depths in their figures, 13px on desktop and 12px on mobile before, and one
    # caption whose em padding followed. Before, that read as 10 groups for one rule.
    def caption(path: str, before: str, lh: str, padding: bool = False) -> tuple[styles.StyleChange, ...]:
        out = [styles.StyleChange(path, "font-size", before, "14px"),
               styles.StyleChange(path, "line-height", lh, "21px")]
        if padding:
            out.append(styles.StyleChange(path, "padding", f"{before} 0px 0px 0px", "14px 0px 0px 0px"))
        return tuple(out)

    failed = []
    for folder, before, lh in (("index/desktop-light", "13px", "19.5px"), ("index/mobile-light", "12px", "18px")):
        for n, path in enumerate(("figcaption", "div > figcaption", "div > div > figcaption")):
            failed.append(Failed(f"{folder}/figure/f{n}.png", "figure", "", caption(path, before, lh),
                                 box(100.0 * n, 50.0), box(100.0 * n, 53.0)))
        failed.append(Failed(f"{folder}/figure/padded.png", "figure", "", caption("div > figcaption", before, lh, True),
                             box(900.0, 50.0), box(900.0, 56.0)))
    # Another rule in the same change stays its own group.
    failed.append(Failed("index/desktop-light/note-box/a.png", "note-box", "",
                         (styles.StyleChange(".note-box-title", "color", "rgb(0, 0, 0)", "rgb(9, 9, 9)"),)))
    groups = causes.group(failed)
    assert [(g.cause, g.count) for g in groups] == [(Cause.STYLE, 8), (Cause.STYLE, 1)]
    assert groups[0].summary == ("8 figures: `figcaption` font-size 12px or 13px → 14px, "
                                 "line-height 18px or 19.5px → 21px, heights +3 to +6 px")


def test_one_token_read_by_several_kinds_of_element_is_one_group():
    """The seeds' small text: note-box title, note-box content and d-code read one 12px token;
    raised to 13px, each kind of element changes from 12px to 13px: one change, one story."""
    def changed(selector: str, line: tuple[str, str]) -> tuple[styles.StyleChange, ...]:
        return (styles.StyleChange(selector, "font-size", "12px", "13px"),
                styles.StyleChange(selector, "line-height", *line))

    items = [Failed(f"index/desktop-light/note-box/n{i}.png", "note-box", "",
                    changed(".note-box-title", ("18px", "19.5px")) + changed(".note-box-content", ("18px", "19.5px")))
             for i in range(3)]
    items += [Failed(f"index/desktop-light/code/c{i}.png", "code", "", changed("", ("19.2px", "20.8px")))
              for i in range(2)]
    items.append(Failed("index/desktop-light/figure/f.png", "figure", "",
                        (styles.StyleChange("figcaption", "font-size", "13px", "14px"),)))
    first, second = causes.group(items)
    assert first.summary == ("5 regions (3 note-boxes, 2 codes): `.note-box-content, .note-box-title, <code>` "
                             "font-size 12px → 13px"), first.summary
    assert second.summary == "1 figure: `figcaption` font-size 13px → 14px"


def test_one_caption_reworded_is_one_group_of_its_figures_in_every_variant():
    raw = RENDERS["before"]["figure/0"]["styles"]

    def record(caption: str) -> styles.StyleRecord:
        return styles.from_page({sel: {**p, "text": caption if sel == "figcaption" else ""} for sel, p in raw.items()})

    change = tuple(styles.changes(record("Final output"), record("Final result")))
    items = [Failed(f"{folder}/figure/ctc.png", "figure", "Sequence Modeling With CTC", change,
                    box(900, 300), box(900, 300)) for folder in FOLDERS]
    untexted = Failed("index/desktop-light/figure/gif.png", "figure", "Alignment", (), box(40000, 83),
                      box(40000, 83), texts=False)
    groups = causes.group([*items, untexted])
    assert [(g.cause, g.count) for g in groups] == [(Cause.STYLE, 4), (Cause.PIXELS, 1)]
    assert groups[0].summary == "4 figures: `figcaption` text “Final output” → “Final result”, heights unchanged"
    assert causes.explain(items[0], groups) == ("figure in “Sequence Modeling With CTC”: `figcaption` text "
                                                "“Final output” → “Final result”")
    assert groups[1].summary == f"1 figure: {styles.PIXELS_UNTEXTED}"


def test_a_hover_box_over_changed_text_says_the_page_behind_it_shows_through():
    through = "rgba(250, 250, 250, 0.95)"
    boxes = [Failed(f"{folder}/state/cite-hover/hover-box/ctc.png", "hover-box", "Inference", (), box(0, 120),
                    box(0, 120), through=through) for folder in FOLDERS[:2]]
    opaque = Failed("index/desktop-light/figure/gif.png", "figure", "Alignment", (), box(4000, 83), box(4000, 83))
    groups = causes.group([*boxes, opaque])
    assert [(g.cause, g.count) for g in groups] == [(Cause.PIXELS, 3)]
    assert groups[0].summary == f"3 regions (2 hover-boxes, 1 figure): {styles.PIXELS_ONLY}"  # not said of all
    alone = causes.group(boxes)
    assert alone[0].summary == f"2 hover-boxes: {styles.PIXELS_THROUGH.format(through)}"
    assert causes.explain(boxes[0], alone) == f"hover-box in “Inference”: {styles.PIXELS_THROUGH.format(through)}"
    assert causes.explain(opaque, groups) == f"figure in “Alignment”: {styles.PIXELS_ONLY}"


def test_the_group_of_a_page_whose_text_flow_changed_comes_first():
    """Issue 49: a change to body text reads first, however few images it has. Here 36
    note-boxes grew from their own rule, and the two whole pages show `d-article p`'s
    line-height in their text flow, which no region holds: the pages' group is group 1."""
    flow = (styles.StyleChange("d-article > p", "line-height", "27.2px", "32.3px"),)
    pages = [Failed(f"{folder}/page.png", changes=flow) for folder in FOLDERS[:2]]
    groups = causes.group([*note_boxes(), *pages])
    assert [len(g.items) for g in groups] == [2, 36]
    assert groups[0].cause is Cause.STYLE and {i.id for i in groups[0].items} == {p.id for p in pages}
    assert "line-height 27.2px → 32.3px" in groups[0].summary, groups[0].summary


def test_a_page_joins_only_the_groups_whose_elements_lie_in_its_changed_rows():
    """Issue 49: a whole page is in a group for a reason. Its changed rows cover the first
    note-box; a figure far below it changed too (its own group), and a reader state's hover
    box of the same variant (an image taken apart from the page) changed: the page names
    the note-boxes' group alone, in the terminal and in `theme why`."""
    boxes = [b for b in note_boxes(4) if b.folder == "index/desktop-light"]
    colour = (styles.StyleChange("figure > figcaption", "color", "rgb(0, 0, 0)", "rgb(9, 9, 9)"),)
    figure = Failed("index/desktop-light/figure/far.png", "figure", "Far", colour, box(90000, 300), box(90000, 300))
    tint = (styles.StyleChange("d-hover-box .panel", "background-color", "rgb(1, 1, 1)", "rgb(2, 2, 2)"),)
    state = Failed("index/desktop-light/state/cite-hover/hover-box/panel.png", "hover-box", "", tint,
                   box(100, 50), box(100, 50))
    page = Failed("index/desktop-light/page.png", rows=((990, 1090),))
    groups = causes.group([*boxes, figure, state, page])
    (mine,) = [g for g in groups if page in g.items]
    (noted,) = [g for g in groups if boxes[0] in g.items]
    assert mine.cause is Cause.PAGE and mine.pushed_by == (noted.number,)
    assert causes.explain(page, groups) == f"index/desktop-light/page.png: whole page (group {noted.number})"


def test_a_page_whose_changed_rows_hold_no_groups_element_says_where_it_changed():
    colour = (styles.StyleChange("figure > figcaption", "color", "rgb(0, 0, 0)", "rgb(9, 9, 9)"),)
    figure = Failed("index/desktop-light/figure/far.png", "figure", "Far", colour, box(90000, 300), box(90000, 300))
    page = Failed("index/desktop-light/page.png", rows=((5120, 6784), (7000, 7010)))
    groups = causes.group([figure, page])
    assert groups[-1].summary == "1 whole page: changed outside every region at y=5120–6784 and 1 more band"
    assert causes.explain(page, groups) == ("index/desktop-light/page.png: whole page, changed outside every "
                                           "region at y=5120–6784 and 1 more band")


def test_a_pages_changed_boxes_are_kept_as_few_row_ranges():
    from theme.check.entry import merged_rows

    assert merged_rows([(0, 5120, 1280, 100), (300, 5150, 20, 200), (0, 5350, 10, 10), (0, 9000, 5, 5)]) == (
        (5120, 5360), (9000, 9005))
    assert merged_rows([]) == ()


def test_one_body_text_rule_at_two_widths_is_one_group_of_both_pages():
    """Issue 49: `d-article p { line-height: 1.9 }` is 28.832px on the desktop page and 22.4px on
    the phone's: other values, one rule. The two whole pages are one group that says both."""
    desktop = Failed("index/desktop-light/page.png",
                     changes=(styles.StyleChange("d-article > p", "line-height", "28.832px", "32.224px"),))
    mobile = Failed("index/mobile-light/page.png",
                    changes=(styles.StyleChange("d-article > p", "line-height", "22.4px", "26.6px"),))
    (only,) = causes.group([desktop, mobile])
    assert only.cause is Cause.STYLE and only.count == 2
    assert only.summary.startswith(
        "2 whole pages: `d-article > p` line-height 22.4px or 28.832px → 26.6px or 32.224px"), only.summary


def test_one_rule_the_flow_records_at_two_depths_names_both_selectors():
    """`d-article p { line-height: 1.9 }` on the published CTC article: the flow record names most
    paragraphs `d-article > p` and three inside other elements `d-article p`. The group says
    both, not the bare `p` they share, which is no rule anyone wrote."""
    def page(key: str, before: str, after: str) -> Failed:
        return Failed(key, changes=tuple(styles.StyleChange(sel, "line-height", before, after)
                                         for sel in ("d-article > p", "d-article p")))
    (only,) = causes.group([page("index/desktop-light/page.png", "28.832px", "32.224px"),
                            page("index/mobile-light/page.png", "22.4px", "26.6px")])
    assert only.summary == ("2 whole pages: `d-article > p or d-article p` line-height 22.4px or 28.832px → "
                            "26.6px or 32.224px"), only.summary


def test_two_rules_on_whole_pages_alone_are_both_said():
    """Two rules no region holds, in one change: a colour, the same at both widths, and a
    letter-spacing in em, 1.8px on the desktop page and 1.2px on the phone's. The one group of
    both pages names both, not only the change whose new value every page shares."""
    colour = ("d-article a", "color", "rgba(0, 0, 0, 0.8)", "rgb(204, 0, 0)")
    desktop = Failed("index/desktop-light/page.png", changes=(
        styles.StyleChange(*colour), styles.StyleChange("d-article > h2", "letter-spacing", "normal", "1.8px")))
    mobile = Failed("index/mobile-light/page.png", changes=(
        styles.StyleChange(*colour), styles.StyleChange("d-article > h2", "letter-spacing", "normal", "1.2px")))
    (only,) = causes.group([desktop, mobile])
    assert only.summary == ("2 whole pages: `d-article a` color rgba(0, 0, 0, 0.8) → rgb(204, 0, 0); "
                            "`d-article > h2` letter-spacing normal → 1.2px or 1.8px"), only.summary


def test_a_rule_only_the_pages_show_is_said_beside_the_regions_rule():
    """Two rules in one change: captions (in figures, regions) and the body text's line-height
    (no region holds a paragraph), 1.9 times each width's font size. The figures and both pages
    are one group; it names the captions' rule and the paragraphs' with both its values."""
    caption = styles.StyleChange("figure > figcaption", "font-size", "13px", "14px")
    figure = Failed("index/desktop-light/figure/one.png", "figure", "One", (caption,), box(600, 300), box(600, 310))
    desktop = Failed("index/desktop-light/page.png", changes=(
        styles.StyleChange("d-article figure > figcaption", "font-size", "13px", "14px"),
        styles.StyleChange("d-article > p", "line-height", "28.832px", "32.224px")))
    mobile = Failed("index/mobile-light/page.png", changes=(
        styles.StyleChange("d-article figure > figcaption", "font-size", "12px", "14px"),
        styles.StyleChange("d-article > p", "line-height", "22.4px", "26.6px")))
    (only,) = causes.group([figure, desktop, mobile])
    assert only.summary.startswith(
        "3 images (2 whole pages, 1 figure): `figure > figcaption` font-size 13px → 14px; "
        "`d-article > p` line-height 22.4px or 28.832px → 26.6px or 32.224px"), only.summary


def test_a_kind_only_one_flow_record_has_beside_one_that_changed_is_grouped():
    """A page whose flow lost one kind of element (after: None) and gained another of the same
    last step (after: a value): their facets meet in a sort. It raised TypeError on the t-SNE
    article with `dt-article p { line-height: 2 }`."""
    page = Failed("index/desktop-light/page.png", changes=(
        styles.StyleChange("dt-article > ul > li", "", "", None),
        styles.StyleChange("dt-article li", "", None, ""),
        styles.StyleChange("dt-article > p", "line-height", "26.35px", "34px")))
    (only,) = causes.group([page])
    assert "line-height 26.35px → 34px" in only.summary, only.summary


def test_a_focused_link_whose_line_height_came_from_its_paragraph_says_inherited():
    """Issue 49: `d-article p { line-height: 1.9 }` reaches a focused link (a reader state's
    image) through inheritance: it joins the paragraphs' group and says where its change came
    from; a hover box whose colour changed on its own says nothing of the kind, and the same
    change on another variant's page is not its source."""
    rule = styles.StyleChange("d-article > p", "line-height", "22.4px", "26.6px")
    page = Failed("index/mobile-light/page.png", changes=(rule,))
    other = Failed("index/desktop-light/page.png",
                   changes=(styles.StyleChange("d-article > p", "line-height", "28.832px", "32.224px"),))
    own = (styles.StyleChange("", "line-height", "22.4px", "26.6px"),)  # the region's element: the link
    link = Failed("index/mobile-light/state/link-focus/focused/link.png", "focused", "Introduction", own,
                  box(10, 20), box(10, 24), selector="body > d-article > p:nth-of-type(2) > a")
    far = Failed("index/desktop-light/state/link-focus/focused/link.png", "focused", "Introduction", own,
                 box(10, 20), box(10, 24), selector="body > d-article > p:nth-of-type(2) > a")
    # a link outside any paragraph whose line-height changed by as much (its own rule) says nothing
    alone = Failed("index/mobile-light/state/link-focus/focused/title.png", "focused", "", own,
                   box(10, 20), box(10, 24), selector="body > d-title > a")
    tint = Failed("index/mobile-light/state/cite-hover/hover-box/panel.png", "hover-box", "",
                  (styles.StyleChange("d-hover-box .panel", "color", "rgb(1, 1, 1)", "rgb(2, 2, 2)"),),
                  box(100, 50), box(100, 50))
    groups = causes.group([page, other, link, far, tint, alone])
    (mine,) = [g for g in groups if link in g.items]
    assert page in mine.items and mine.number == 1
    assert causes.explain(link, groups) == ("focused in “Introduction”: line-height 22.4px → 26.6px, "
                                           "inherited from `d-article > p`; height 20 → 24 px")
    assert causes.explain(far, groups).endswith("height 20 → 24 px"), causes.explain(far, groups)
    assert "inherited" not in causes.explain(tint, groups) and "inherited" not in causes.explain(alone, groups)


def test_regions_whose_own_element_changed_are_named_by_the_pages_kind():
    """Issue 49: `d-article a { color: #c00 }` fails two whole pages and the focused link (a
    region whose element is the link: its change has no selector of its own). The group's line
    names the rule's kind, `d-article a`, as the pages' text flow has it."""
    flow = (styles.StyleChange("d-article a", "color", "rgba(0, 0, 0, 0.8)", "rgb(204, 0, 0)"),)
    pages = [Failed(f"index/{v}-light/page.png", changes=flow) for v in ("desktop", "mobile")]
    own = (styles.StyleChange("", "color", "rgba(0, 0, 0, 0.8)", "rgb(204, 0, 0)"),)
    links = [Failed(f"index/{v}-light/state/link-focus/focused/gist.png", "focused", "Inference", own,
                    box(10, 20), box(10, 20), selector="body > d-article > p > a") for v in ("desktop", "mobile")]
    (only,) = causes.group([*pages, *links])
    assert only.summary == ("4 images (2 focused, 2 whole pages): `d-article a` color rgba(0, 0, 0, 0.8) → "
                            "rgb(204, 0, 0), heights unchanged"), only.summary
    assert "inherited" not in causes.explain(links[0], [only])  # the link's own rule
