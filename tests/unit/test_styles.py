"""theme/baselines/style_record.py on real records: what computed_styles.js answered for regions of the
specimen, before and after one rule (tests/fixtures/styles/README.md says how they were made)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from theme.baselines import style_record as styles
from theme.core.errors import StoreError

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "styles" / "specimen.json"
RENDERS = json.loads(FIXTURE.read_text(encoding="utf-8"))


def record(render: str, region: str) -> styles.StyleRecord:
    return styles.from_page(RENDERS[render][region]["styles"])


def box(render: str, region: str) -> list[float]:
    return RENDERS[render][region]["box"]


def test_the_sides_fold_into_shorthands_and_what_draws_nothing_is_left_out():
    own = record("before", "note-box/0").elements[""]
    assert own["padding"] == "12px 16px 12px 16px"
    assert own["margin"] == "24px 0px 24px 0px"
    assert own["border-style"] == "none none none solid"
    assert own["border-width"] == "0px 0px 0px 4px"
    assert "text-decoration-color" not in own  # no decoration to colour
    title = record("before", "note-box/0").elements["p.note-box-title"]
    assert "border-color" not in title and "border-width" not in title  # no border on any side
    assert not any(k.startswith(("padding-", "margin-", "border-top")) for k in own)


def test_the_json_states_only_what_is_not_usual_or_inherited():
    compact = styles.to_json(record("before", "note-box/0"))
    own, content = compact[""], compact["div.note-box-content"]
    assert own["background-color"] == "rgb(241, 246, 254)"
    assert "opacity" not in own and "box-shadow" not in own and "display" not in own  # usual values
    assert content["font-size"] == "12px"  # differs from the note-box's 17.68px
    assert "font-family" not in content  # the same as the note-box it sits in
    # the paragraph inherits all its text properties from .note-box-content
    assert set(compact["div.note-box-content > p"]) <= {"width", "height", "margin"}


@pytest.mark.parametrize("render", ["before", "note13", "caption16"])
@pytest.mark.parametrize("region", ["note-box/0", "note-box/1", "figure/0", "figure/5", "code/0"])
def test_json_gives_the_record_back(render, region):
    whole = record(render, region)
    assert styles.from_json(json.loads(json.dumps(styles.to_json(whole)))) == whole


def test_the_text_is_the_same_bytes_for_the_same_records_one_region_a_line():
    records = {f"index/desktop-light/{k}.png": record("before", k) for k in RENDERS["before"]}
    text = styles.dumps(records)
    shuffled = dict(reversed(list(records.items())))
    assert styles.dumps(shuffled) == text
    lines = text.splitlines()
    assert lines[0] == "{" and lines[-1] == "}" and len(lines) == len(records) + 2
    assert lines[1].startswith('"index/desktop-light/code/0.png":{"":{')
    assert styles.loads(text) == records
    assert styles.dumps(styles.loads(text)) == text


def test_one_changed_region_is_one_changed_line():
    keys = list(RENDERS["before"])
    before = {k: record("before", k) for k in keys}
    after = {**before, "note-box/0": record("note13", "note-box/0")}
    old, new = styles.dumps(before).splitlines(), styles.dumps(after).splitlines()
    changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    assert changed == [sorted(keys).index("note-box/0") + 1]


def test_records_that_are_not_records_are_one_line_naming_the_file():
    with pytest.raises(StoreError, match=r"^snapshots/styles.json: not valid style records .*restore it"):
        styles.loads('{"a.png": {"": {"font-size": 12}}}', "snapshots/styles.json")
    with pytest.raises(StoreError, match="snapshots/styles.json"):
        styles.loads("{", "snapshots/styles.json")


def test_note_box_content_12_to_13px_is_named_once_not_for_every_paragraph():
    found = styles.changes(record("before", "note-box/1"), record("note13", "note-box/1"))
    causes = styles.style_changes(found)
    # a line-height of 1.6 is computed in px, so it follows the font size
    assert causes == [styles.StyleChange("div.note-box-content", "font-size", "12px", "13px"),
                      styles.StyleChange("div.note-box-content", "line-height", "19.2px", "20.8px")]
    # its paragraph and list items inherit it: their sizes changed, not their own styles
    assert {c.prop for c in found if c.selector != "div.note-box-content"} <= {"height", "width"}


def test_the_sentence_names_the_property_its_values_and_the_height():
    found = styles.changes(record("before", "note-box/0"), record("note13", "note-box/0"))
    line = styles.sentence("note-box in “Why count”", found, box("before", "note-box/0"), box("note13", "note-box/0"))
    assert line == ("note-box in “Why count”: `.note-box-content` font-size 12px → 13px, "
                    "line-height 19.2px → 20.8px; height 89.56 → 92.78 px")


def test_without_boxes_the_own_elements_recorded_height_stands_in():
    found = styles.changes(record("before", "figure/0"), record("caption16", "figure/0"))
    line = styles.sentence("figure", found)
    assert line.startswith("figure: `figcaption` font-size 14px → 16px")
    assert "; height " in line and " px" in line


def test_a_colour_change_names_the_old_and_new_colour_and_no_height():
    before = record("before", "note-box/0")
    own = dict(before.elements[""], **{"background-color": "rgb(18, 27, 43)"})
    after = styles.StyleRecord({**before.elements, "": own})
    line = styles.sentence("note-box in “Why count”", styles.changes(before, after),
                           box("before", "note-box/0"), box("before", "note-box/0"))
    assert line == "note-box in “Why count”: background-color rgb(241, 246, 254) → rgb(18, 27, 43)"


def test_pixels_that_changed_with_no_style_say_so():
    same = record("before", "figure/5")
    line = styles.sentence("figure in “Checklist”", styles.changes(same, same), box("before", "figure/5"),
                           box("before", "figure/5"))
    assert line == ("figure in “Checklist”: pixels changed, no computed style or text did: "
                    "an image, a canvas or a font file")


def test_a_size_change_with_no_style_change_says_no_style_changed():
    before = record("before", "figure/5")
    b = box("before", "figure/5")
    line = styles.sentence("figure", styles.changes(before, before), b, [b[0], b[1], b[2], b[3] + 4])
    assert line == "figure: no computed style or text changed; height 83 → 87 px"


def test_an_element_that_appears_is_named_and_a_long_list_is_cut():
    before = record("before", "note-box/0")
    extra = {**before.elements, "div.note-box-content > ul": before.elements["div.note-box-content > p"]}
    found = styles.changes(before, styles.StyleRecord(extra))
    assert found == [styles.StyleChange("div.note-box-content > ul", "", None, "present")]
    assert styles.phrase(found) == "`.note-box-content > ul` appeared"
    many = [styles.StyleChange("", p, "1px", "2px") for p in ("a", "b", "c", "d", "e", "f")]
    assert styles.phrase(many) == "a 1px → 2px, b 1px → 2px, c 1px → 2px, d 1px → 2px (+2 more)"


def test_a_shadow_roots_text_is_named_by_its_class():
    assert styles.shown("#shadow-root > pre > code.language-python") == "#shadow-root > pre > .language-python"
    assert styles.shown("div.note-box-content > p:nth-of-type(2)") == ".note-box-content > p:nth-of-type(2)"


# ------------------------------------------------------------------ text

CAPTION = ("Figure 4. Four stages, four micro-batches, a backward pass taking twice a forward pass. Both "
           "schedules end at the same moment, so their bubbles (grey) are equal; 1F1B wins on memory.")


def texted(render: str, region: str, texts: dict[str, str]) -> styles.StyleRecord:
    """A fixture region's record as computed_styles.js now answers: each element with its text."""
    raw = RENDERS[render][region]["styles"]
    return styles.from_page({sel: {**props, "text": texts.get(sel, "")} for sel, props in raw.items()})


def test_a_changed_word_is_named_with_the_words_around_it():
    before = texted("before", "figure/0", {"figcaption": CAPTION})
    after = texted("before", "figure/0", {"figcaption": CAPTION.replace("on memory", "on peak memory")})
    found = styles.changes(before, after)
    assert found == [styles.StyleChange("figcaption", "text", CAPTION, CAPTION.replace("on memory", "on peak memory"))]
    line = styles.sentence("figure in “Pipelines”", found, box("before", "figure/0"), box("before", "figure/0"))
    assert line == ("figure in “Pipelines”: `figcaption` text “…equal; 1F1B wins on memory.” → "
                    "“…equal; 1F1B wins on peak memory.”")


def test_text_is_kept_whitespace_collapsed_and_a_long_one_by_its_start_and_digest():
    record = texted("before", "figure/0", {"figcaption": "  Final\n   output "})
    assert record.elements["figcaption"]["text"] == "Final output"
    assert record.elements[""]["text"] == ""  # the figure's own element draws no text of its own here
    long = "word " * 300
    kept = texted("before", "figure/0", {"figcaption": long}).elements["figcaption"]["text"]
    assert re.fullmatch(r"(word ){80}… \(1499 characters, sha256 [0-9a-f]{16}\)", kept)
    assert len(kept) < styles.TEXT_LIMIT + 60
    changed = texted("before", "figure/0", {"figcaption": long + "more"}).elements["figcaption"]["text"]
    assert changed != kept and changed[:styles.TEXT_LIMIT] == kept[:styles.TEXT_LIMIT]
    sentence = styles.text_change(kept, changed)
    assert sentence == f"text changed after its first {styles.TEXT_LIMIT} characters (1499 → 1504 characters)"


def test_the_json_keeps_the_own_elements_text_even_empty_and_round_trips():
    record = texted("before", "figure/0", {"": "", "figcaption": "Final output"})
    compact = styles.to_json(record)
    assert compact[""]["text"] == "" and compact["figcaption"]["text"] == "Final output"
    assert styles.from_json(json.loads(json.dumps(compact))) == record
    wrapper = texted("before", "note-box/0", {"p.note-box-title": "Why count"})
    compact = styles.to_json(wrapper)
    assert "text" not in compact["div.note-box-content"]  # no words of its own: implied
    assert styles.from_json(compact) == wrapper and styles.has_text(styles.from_json(compact))


def test_a_baseline_recorded_before_text_compares_without_it_and_says_words_may_have_changed():
    old = record("before", "figure/5")  # as the baselines of earlier versions hold it
    now = texted("before", "figure/5", {"": "Checklist"})
    assert not styles.has_text(old) and styles.has_text(now)
    assert styles.changes(old, now) == []  # not "text — → “Checklist”"
    line = styles.sentence("figure in “Checklist”", [], box("before", "figure/5"), box("before", "figure/5"),
                           texts=False)
    assert line == f"figure in “Checklist”: {styles.PIXELS_UNTEXTED}"
    assert "--update-snapshots=all" in styles.PIXELS_UNTEXTED


def test_a_changed_image_file_is_named_and_files_round_trip():
    def recorded(files: str) -> styles.StyleRecord:
        raw = RENDERS["before"]["figure/0"]["styles"]
        return styles.from_page({sel: {**props, "text": "", "files": files if sel == "" else ""}
                                 for sel, props in raw.items()})

    before = recorded("assets/chart.svg 06b0010efd2b\nassets/old.png 111111111111\nx.png missing")
    after = recorded("assets/chart.svg 4aea484ca758\nassets/new.png 222222222222\nx.png 333333333333")
    assert styles.from_json(json.loads(json.dumps(styles.to_json(after)))) == after
    line = styles.sentence("figure in “Bubble”", styles.changes(before, after))
    assert line == ("figure in “Bubble”: file assets/chart.svg changed (sha256 06b0010efd2b → 4aea484ca758), "
                    "file assets/new.png added, file assets/old.png gone, file x.png now found")
    texted_only = styles.from_page({sel: {**props, "text": ""}
                                    for sel, props in RENDERS["before"]["figure/0"]["styles"].items()})
    assert styles.has_text(texted_only) and "files" not in texted_only.elements[""]
    assert styles.changes(texted_only, after) == []  # a record made before files were: compared without them


def test_a_figure_a_script_drew_anew_is_named_by_its_shapes_and_not_as_pixels():
    """Issue 48, item 4: script-drawn SVG geometry (computed_styles.js's `drawing`) is said as
    such: which attributes of which shapes changed, or how many there are now; a record made
    before drawings were compares without it."""
    def drawn(drawing: str) -> styles.StyleRecord:
        raw = RENDERS["before"]["figure/0"]["styles"]
        return styles.from_page({sel: {**props, "text": "", "files": "", "drawing": drawing if sel == "" else ""}
                                 for sel, props in raw.items()})

    before = drawn("circle 12 cx=0a0a0a0a cy=1b1b1b1b r=2c2c2c2c\npath 3 d=3d3d3d3d")
    moved = drawn("circle 12 cx=4e4e4e4e cy=5f5f5f5f r=2c2c2c2c\npath 3 d=60606060")
    more = drawn("circle 14 cx=4e4e4e4e cy=5f5f5f5f r=2c2c2c2c\npath 3 d=3d3d3d3d")
    assert styles.from_json(json.loads(json.dumps(styles.to_json(moved)))) == moved
    assert styles.sentence("figure in “Scatter”", styles.changes(before, moved)) == (
        "figure in “Scatter”: drawing: circle cx cy, path d changed")
    assert styles.sentence("figure in “Scatter”", styles.changes(before, more)) == (
        "figure in “Scatter”: drawing: 12 circles → 14")
    older = styles.from_page({sel: {**props, "text": "", "files": ""}
                              for sel, props in RENDERS["before"]["figure/0"]["styles"].items()})
    assert styles.changes(older, moved) == []  # recorded before drawings were: compared without them


def test_a_translucent_own_background_says_the_page_behind_may_be_what_changed():
    raw = RENDERS["before"]["note-box/0"]["styles"]

    def with_background(colour: str) -> styles.StyleRecord:
        return styles.from_page({sel: {**props, "text": "", **({"background-color": colour} if sel == "" else {})}
                                 for sel, props in raw.items()})

    panel = with_background("rgba(250, 250, 250, 0.95)")  # the Distill runtime's hover box
    assert styles.translucent(panel) == "rgba(250, 250, 250, 0.95)"
    assert styles.translucent(with_background("rgba(0, 0, 0, 0)")) == ""  # transparent: a figure in the flow
    assert styles.translucent(with_background("rgb(241, 246, 254)")) == ""  # opaque: a note-box
    line = styles.sentence("hover-box in “Inference”", styles.changes(panel, panel), texts=True,
                           through=styles.translucent(panel))
    assert line == ("hover-box in “Inference”: pixels changed, no computed style or text did: the page behind its "
                    "translucent background (rgba(250, 250, 250, 0.95)), an image, a canvas or a font file")


def test_a_border_colour_that_only_followed_color_is_not_a_cause_of_its_own():
    """`d-article a { color: #c00 }`: the link's underline is currentColor, so its border-color
    changed on the sides it has, from the old colour to the new. The cause is `color` alone; a
    border-color set by a rule of its own (another value) stays a cause."""
    old, new = "rgba(0, 0, 0, 0.8)", "rgb(204, 0, 0)"
    colour = styles.StyleChange("d-article a", "color", old, new)
    underline = styles.StyleChange("d-article a", "border-color", f"{old} {old} rgba(0, 0, 0, 0.4) {old}",
                                   f"{new} {new} rgba(0, 0, 0, 0.4) {new}")
    assert styles.style_changes([underline, colour]) == [colour]
    own = styles.StyleChange("d-article a", "border-color", f"{old} {old} {old} {old}", "rgb(0, 0, 204) " * 3 + new)
    assert styles.style_changes([own, colour]) == [own, colour]
    alone = styles.StyleChange("", "border-color", old, new)  # no color change beside it
    assert styles.style_changes([alone]) == [alone]
    assert styles.phrase(styles.style_changes([underline, colour])) == f"`d-article a` color {old} → {new}"


def flow(kinds: dict[str, dict[str, str]]) -> styles.StyleRecord:
    return styles.from_page({k: {"count": "1", "sections": "1", **v} for k, v in kinds.items()})



def test_a_landmarks_font_size_is_told_as_its_own_and_inherited_by_its_text():
    """Issue 49: `d-article { font-size }` reaches every paragraph. The flow record keeps each
    landmark as a kind of its own (flow_record.js), so the change is d-article's, once, and
    the paragraphs and list items are named as inheriting it, the most numerous first; a heading
    with its own size is not."""
    def record(article: str, h3: str) -> styles.StyleRecord:
        return flow({"d-article": {"font-size": article, "within": "body", "count": "90"},
                     "d-article > p": {"font-size": article, "within": "d-article", "count": "60"},
                     "d-article li": {"font-size": article, "within": "d-article", "count": "20"},
                     "d-article > h3": {"font-size": h3, "within": "d-article"}})

    found, inherited = styles.flow_changes(record("17.68px", "22.1px"), record("18.7px", "23.375px"))
    assert [(c.selector, c.prop, c.before, c.after) for c in found] == [
        ("d-article", "font-size", "17.68px", "18.7px"), ("d-article > h3", "font-size", "22.1px", "23.375px")]
    assert inherited == {"d-article": ["d-article > p", "d-article li"]}


def test_a_flow_record_from_before_landmark_kinds_is_compared_without_them():
    """A baseline recorded before landmarks were kinds: the new record's landmarks are no change
    ("present"), nor is the `within` their text now names; the paragraphs' change is told."""
    old = flow({"d-article > p": {"font-size": "17.68px", "within": ""}})
    new = flow({"d-article": {"font-size": "18.7px", "within": "body"}, "body": {"font-size": "17px", "within": ""},
                "d-article > p": {"font-size": "18.7px", "within": "d-article"}})
    found, inherited = styles.flow_changes(old, new)
    assert [(c.selector, c.prop, c.before, c.after) for c in found] == [
        ("d-article > p", "font-size", "17.68px", "18.7px")]
    assert inherited == {}
    assert styles.is_landmark("d-article") and styles.is_landmark("body") and not styles.is_landmark("d-article > p")
