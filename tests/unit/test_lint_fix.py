"""`--fix`: broken note-box content -> <div class="note-box-content"> with whole paragraphs,
compared as parsed DOM; only tags change; a second pass changes nothing."""

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theme.init.lint import checks, fix_text
from theme.init.lint.fix import fix_file, matching_end
from theme.init.lint.parse import parse_text

FIXTURES = Path(__file__).parent.parent / "fixtures" / "lint"
BEFORE = (FIXTURES / "note_boxes_before.html").read_text(encoding="utf-8")
AFTER = (FIXTURES / "note_boxes_after.html").read_text(encoding="utf-8")
STRUCTURE_CODES = {"TL001", "TL002", "TL010", "TL011", "TL012"}


def shape(element):
    """An element as (tag, classes, children) with text whitespace-collapsed and blank text dropped."""
    out = []
    if (element.text or "").strip():
        out.append(" ".join(element.text.split()))
    for child in element:
        if isinstance(child.tag, str):
            out.append(shape(child))
        if (child.tail or "").strip():
            out.append(" ".join(child.tail.split()))
    return (element.tag, tuple(checks.classes_of(element)), tuple(out))


def note_boxes(text):
    doc = parse_text(text)
    return [shape(el) for el in doc.elements() if "note-box" in checks.classes_of(el)]


def structure_problems(text):
    return [p for p in checks.check_document(parse_text(text), None) if p.code in STRUCTURE_CODES]


def without_tags(text):
    return re.sub(r"<[^>]*>", "", text)


def test_fixture_really_is_broken_the_way_the_seeds_were():
    codes = {p.code for p in structure_problems(BEFORE)}
    assert {"TL001", "TL002", "TL010", "TL011"} <= codes
    assert note_boxes(BEFORE) != note_boxes(AFTER)


def test_fix_gives_the_expected_note_box_dom():
    fixed, count = fix_text(BEFORE)
    assert count == 6  # boxes A-F; G is already right
    assert note_boxes(fixed) == note_boxes(AFTER)
    assert structure_problems(fixed) == []


def test_fix_is_idempotent():
    once, _ = fix_text(BEFORE)
    twice, count = fix_text(once)
    assert (twice, count) == (once, 0)


def _box_spans(text):
    """(start, end) source offsets of each .note-box element, outermost tag to tag."""
    doc = parse_text(text)
    index = {id(t): k for k, t in enumerate(doc.tokens)}
    spans = []
    for el in doc.elements():
        if "note-box" in checks.classes_of(el):
            start_token = doc.origin[el]
            end_token = doc.tokens[matching_end(doc.tokens, index[id(start_token)])]
            spans.append((start_token["span"][0], end_token["span"][1]))
    return spans


def _outside(text, spans):
    edges = [0] + [x for span in spans for x in span] + [len(text)]
    return [text[a:b] for a, b in zip(edges[::2], edges[1::2], strict=True)]


def test_bytes_outside_the_note_boxes_are_untouched():
    fixed, _ = fix_text(BEFORE)
    assert _outside(fixed, _box_spans(fixed)) == _outside(BEFORE, _box_spans(BEFORE))


def test_only_tags_change_every_text_byte_and_whitespace_is_kept():
    fixed, _ = fix_text(BEFORE)
    assert without_tags(fixed) == without_tags(BEFORE)


def test_box_g_already_correct_is_byte_identical():
    fixed, _ = fix_text(BEFORE)
    g = BEFORE.index("<!-- G:")
    assert fixed[fixed.index("<!-- G:"):] == BEFORE[g:]


@pytest.mark.parametrize("content, expected", [
    # the list-in-paragraph form, on one line
    ("<p class='note-box-content'>a<ul><li>b</li></ul>c</p>",
     "<div class='note-box-content'><p>a</p><ul><li>b</li></ul><p>c</p></div>"),
    # nested paragraph, outer closing tag turned into </div>
    ('<p class="note-box-content"><p>a</p></p>', '<div class="note-box-content"><p>a</p></div>'),
    # nested paragraph with attributes keeps them; the unclosed outer gets its </div>
    ('<P class="note-box-content" id=n><p class=lead>a</p>',
     '<div class="note-box-content" id=n><p class=lead>a</p></div>'),
    # three line breaks are one paragraph break; a single <br> stays a line break
    ('<p class="note-box-content">a<br>b<br><br><br>c</p>',
     '<div class="note-box-content"><p>a<br>b</p><p>c</p></div>'),
    # paragraph closed before a table in standards mode
    ('<p class="note-box-content">a<table><tr><td>1</td></tr></table></p>',
     '<div class="note-box-content"><p>a</p><table><tr><td>1</td></tr></table></div>'),
])
def test_fix_one_liners(content, expected):
    wrap = '<!DOCTYPE html><div class="note-box"><p class="note-box-title">T</p>{}</div>'
    fixed, count = fix_text(wrap.format(content))
    assert (fixed, count) == (wrap.format(expected), 1)


def test_crlf_file_keeps_its_line_endings(tmp_path):
    text = BEFORE.replace("\n", "\r\n")
    fixed, _ = fix_text(text)
    assert "\r\n" in fixed and re.search(r"(?<!\r)\n", fixed) is None
    assert note_boxes(fixed) == note_boxes(AFTER)


def test_fix_file_writes_atomically_only_when_changed(tmp_path):
    page = tmp_path / "index.html"
    page.write_text(BEFORE, encoding="utf-8")
    before, after, count = fix_file(page)
    assert count == 6 and page.read_text(encoding="utf-8") == after != before
    mtime = page.stat().st_mtime_ns
    assert fix_file(page)[2] == 0 and page.stat().st_mtime_ns == mtime
    assert [p.name for p in tmp_path.iterdir()] == ["index.html"]  # no temp file left behind


parts = st.lists(st.sampled_from([
    "words here", " ", "\n    ", "<em>inline</em>", "<d-math>x</d-math>", "<code>c</code>",
    "<ul><li>item</li></ul>", "<ol><li>one</li></ol>", "<p>", "</p>", "<br>", "<br>\n<br>",
    "<!-- note -->", "<blockquote>q</blockquote>",
]), max_size=14)


@settings(max_examples=150, deadline=None)
@given(parts, st.booleans())
def test_any_broken_content_fixes_to_a_clean_idempotent_box(pieces, as_div):
    tag = "div" if as_div else "p"
    text = (f'<!DOCTYPE html><body>\n<div class="note-box"><p class="note-box-title">T</p>'
            f'<{tag} class="note-box-content">{"".join(pieces)}</{tag}></div>\n<p>after</p>')
    fixed, _ = fix_text(text)
    assert fix_text(fixed) == (fixed, 0)
    assert without_tags(fixed) == without_tags(text)
    if not as_div or any(p.code in ("TL001", "TL002") for p in structure_problems(text)):
        assert structure_problems(fixed) == []
    box_text = lambda t: " ".join("".join(parse_text(t).root.itertext()).split())  # noqa: E731
    assert box_text(fixed) == box_text(text)
