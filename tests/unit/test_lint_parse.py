"""Source positions on top of html5lib: every tag token knows its exact span in the original text."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theme.init.lint.parse import END, START, parse_text


def tag_positions(text):
    doc = parse_text(text)
    return [(t["type"], t["name"], doc.line_col(t["span"][0])) for t in doc.tokens if t["type"] in (START, END)]


@pytest.mark.parametrize("text, expected", [
    ("<p>a</p>", [(START, "p", (1, 1)), (END, "p", (1, 5))]),
    ("x\n  <em class='a'>y</em>", [(START, "em", (2, 3)), (END, "em", (2, 18))]),
    # CR LF and lone CR count as one line break each, as in the browser.
    ("a\r\n\r\n <b>c</b>\r<i>", [(START, "b", (3, 2)), (END, "b", (3, 6)), (START, "i", (4, 1))]),
    # Columns count characters, not UTF-8 bytes.
    ("📝é <br>", [(START, "br", (1, 4))]),
    # Raw-text elements: "<p>" inside a script is text, its end tag still has a position.
    ("<script>if (a<b) s='<p>'</script><hr>", [(START, "script", (1, 1)), (END, "script", (1, 25)),
                                               (START, "hr", (1, 34))]),
    ("<title>t</title>\n<textarea>\n<b></textarea>", [(START, "title", (1, 1)), (END, "title", (1, 9)),
                                                     (START, "textarea", (2, 1)), (END, "textarea", (3, 4))]),
])
def test_tag_positions(text, expected):
    assert tag_positions(text) == expected


def test_span_covers_the_whole_tag_including_attributes():
    text = '<div\n  class="note-box"\n  id=x>'
    doc = parse_text(text)
    start, end = doc.tokens[0]["span"]
    assert text[start:end] == text


def test_elements_map_to_their_start_tag():
    doc = parse_text("<body>\n<section>\n  <p id=q>x</p>\n</section>")
    p = next(el for el in doc.elements() if el.get("id") == "q")
    assert doc.where(p) == (3, 3)
    assert doc.where(doc.parent(p)) == (2, 1)


@pytest.mark.parametrize("text, p_at, breaker, breaker_at", [
    ("<p>lead\n<ul><li>a</li></ul>", (1, 1), "ul", (2, 1)),
    ("<div>\n  <p class=c>\n    <p>inner</p>", (2, 3), "p", (3, 5)),
    # In no-quirks mode only: without a doctype a <table> stays inside the <p> (spec quirk).
    ("<!DOCTYPE html><p>x <table><tr><td>1</td></tr></table>", (1, 16), "table", (1, 21)),
    ("<p>\n<h3>t</h3>", (1, 1), "h3", (2, 1)),
])
def test_splits_name_the_paragraph_and_the_breaking_tag(text, p_at, breaker, breaker_at):
    doc = parse_text(text)
    [split] = doc.splits
    assert doc.where(split.p) == p_at
    assert split.breaker["name"] == breaker
    assert doc.line_col(split.breaker["span"][0]) == breaker_at


@pytest.mark.parametrize("text", [
    "<p>a <em>b</em> <d-math>c</d-math> <d-code block language=python>d</d-code></p>",
    "<p>a</p><ul><li><p>b</p><ul><li>c</li></ul></li></ul>",
    "<div><p>x</div>",  # an end tag closing a <p> is legal (end tag omission), not a split
    "<p>a <button><div>the p is out of button scope</div></button></p>",
    "<p>quirks mode keeps <table><tr><td>1</td></tr></table> inside</p>",
])
def test_no_split_when_the_parser_keeps_paragraphs_whole(text):
    assert parse_text(text).splits == []


def test_end_p_before_any_element_is_ignored_by_the_parser_not_a_stray():
    assert parse_text("</p><p>x</p>").strays == []


def test_stray_end_p_is_recorded_where_it_is():
    doc = parse_text("<div>\n<p>a<ul></ul>b</p></div>")
    assert [doc.line_col(t["span"][0]) for t in doc.strays] == [(2, 15)]


names = st.sampled_from(["p", "div", "em", "span", "ul", "li", "d-math", "code", "br", "img"])
pieces = st.one_of(
    names.map(lambda n: f"<{n}>"),
    names.map(lambda n: f"</{n}>"),
    names.map(lambda n: f'<{n} class="a b"\n data-x=\'1\'>'),
    st.sampled_from(["text", " ", "\n", "\r\n", "\r", "é📝", "<!-- c -->", "&amp;", "a<b", "\t"]),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(pieces, max_size=40))
def test_every_tag_span_starts_at_its_own_name_in_the_original_text(parts):
    text = "".join(parts)
    doc = parse_text(text)
    for token in doc.tokens:
        start, end = token["span"]
        source = text[start:end]
        if token["type"] == START:
            assert re.match(rf"<{re.escape(token['name'])}[\s/>]", source, re.I), (source, token)
        elif token["type"] == END:
            assert source.lower().startswith(f"</{token['name']}"), (source, token)
        assert source.endswith(">")
