"""theme/capture/js/computed_styles.js in a real Chromium: the style record of regions on a
small page with the shapes articles have (a note-box with a title and its content's
paragraphs, a d-code-like element that draws its text in a shadow root, a figure whose
caption holds the text), read back as the browser computes it."""

from __future__ import annotations

import pytest

from theme.capture import scripts

pytestmark = pytest.mark.browser

SCRIPT = scripts.COMPUTED_STYLES  # as linked: with the property list it uses (js/record_props.js)

PAGE = """<!doctype html><html><head><style>
body { font: 16px/1.5 serif; margin: 0; color: #111; }
.note-box { margin: 24px 0; padding: 12px 16px; border-left: 4px solid #1f5fbf;
            border-radius: 0 6px 6px 0; background: #f1f6fe; }
.note-box-title { margin: 0; font-size: 12px; font-weight: 600; }
.note-box-content { margin-top: 8px; font-size: 12px; color: #24292f; }
.note-box-content p { margin: 0 0 8px; }
figure { margin: 16px 0; }
figcaption { font-size: 12px; color: #555555; }
</style></head><body>
<div class="note-box" id="memory"><p class="note-box-title">Note</p>
  <div class="note-box-content"><p>One <em>two</em></p><p>Three</p><style>p {}</style><p hidden>Hidden</p></div>
</div>
<x-code block>zeros = np.zeros(shape)</x-code>
<figure><img width="40" height="20" alt="" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
  <figcaption><strong>Figure 1.</strong> Model state per GPU.</figcaption></figure>
<section class="styled-only"><x-badge></x-badge><p>Text</p></section>
<ul class="many">LI</ul>
<script>
customElements.define('x-code', class extends HTMLElement { constructor() { super();
  const root = this.attachShadow({mode: 'open'});
  root.innerHTML = '<style>:host { display: block } code { font-size: 15px; color: #444444 }</style>'
                 + '<pre><code class="language-python"></code></pre>';
  root.querySelector('code').textContent = this.textContent; } });
customElements.define('x-badge', class extends HTMLElement { constructor() { super();
  this.attachShadow({mode: 'open'}).innerHTML = '<style>:host { display: block; height: 4px }</style>'; } });
const ul = document.querySelector('ul.many'); ul.textContent = '';
for (let i = 0; i < 12; i++) { const li = document.createElement('li'); li.textContent = 'item ' + i; ul.append(li); }
</script></body></html>"""

REGIONS = [{"key": "note-box/memory", "selector": "body > div.note-box#memory"},
           {"key": "code/intro", "selector": "x-code[block]"},
           {"key": "figure/model-state", "selector": "figure"},
           {"key": "list", "selector": "ul"},
           {"key": "section", "selector": "section.styled-only"},
           {"key": "figure/second", "selector": "figure", "index": 1}]


@pytest.fixture(scope="module")
def page(plain_chromium):
    page = plain_chromium.new_page(viewport={"width": 800, "height": 600})
    page.set_content(PAGE)
    yield page
    page.context.close()


@pytest.fixture(scope="module")
def record(page):
    return page.evaluate(SCRIPT, {"regions": REGIONS, "masks": []})


def test_a_note_box_records_itself_its_title_its_content_and_the_content_paragraphs(record):
    note = record["note-box/memory"]
    # the hidden paragraph and the <style> draw nothing; the <em> is part of its paragraph's text
    assert list(note) == ["", "p.note-box-title", "div.note-box-content",
                          "div.note-box-content > p:nth-of-type(1)", "div.note-box-content > p:nth-of-type(2)"]
    own = note[""]
    assert own["background-color"] == "rgb(241, 246, 254)"
    assert (own["border-left-width"], own["border-left-style"], own["border-left-color"]) == (
        "4px", "solid", "rgb(31, 95, 191)")
    assert own["border-top-style"] == "none"
    assert own["border-radius"] == "0px 6px 6px 0px"
    assert (own["padding-top"], own["padding-left"], own["margin-top"]) == ("12px", "16px", "24px")
    assert own["font-size"] == "16px" and own["display"] == "block"
    assert note["p.note-box-title"]["font-weight"] == "600"
    content = note["div.note-box-content"]
    assert (content["font-size"], content["color"], content["line-height"]) == ("12px", "rgb(36, 41, 47)", "18px")
    # resolved width and height are the used sizes in px
    assert own["width"] == "764px" and float(own["height"].removesuffix("px")) > 0


def test_a_shadow_host_is_recorded_through_what_its_shadow_root_draws(record):
    code = record["code/intro"]
    assert list(code) == ["", "#shadow-root > pre", "#shadow-root > pre > code.language-python"]
    assert code["#shadow-root > pre > code.language-python"]["font-size"] == "15px"
    assert code["#shadow-root > pre > code.language-python"]["color"] == "rgb(68, 68, 68)"
    assert code["#shadow-root > pre"]["font-family"] == "monospace"


def test_a_figure_records_its_caption_not_its_image(record):
    figure = record["figure/model-state"]
    assert list(figure) == ["", "figcaption"]
    assert (figure["figcaption"]["font-size"], figure["figcaption"]["color"]) == ("12px", "rgb(85, 85, 85)")
    assert figure[""]["margin-left"] == "0px"


def test_text_holders_are_capped_in_tree_order(record):
    assert list(record["list"])[1:] == [f"li:nth-of-type({i})" for i in range(1, 9)]


def test_a_shadow_root_with_only_a_stylesheet_holds_no_text(record):
    assert list(record["section"]) == ["", "p"]


def test_an_element_not_there_is_null(record):
    assert record["figure/second"] is None


def test_every_value_is_the_computed_string_of_every_property(page, record):
    names = set(record["figure/model-state"]["figcaption"])
    assert {"font-family", "font-size", "line-height", "color", "background-color", "color-scheme",
            "border-top-width", "padding-left", "margin-bottom", "width", "height"} <= names
    extras = ("text", "files", "drawing")
    css = [v for r in record.values() if r for e in r.values() for k, v in e.items() if k not in extras]
    assert all(isinstance(v, str) and v for v in css)


def test_each_element_has_the_words_drawn_in_it_and_the_files_it_draws(record):
    note, code, figure = record["note-box/memory"], record["code/intro"], record["figure/model-state"]
    # the hidden paragraph and the <style> draw nothing; a wrapper's words are its paragraphs'
    assert {k: e["text"] for k, e in note.items()} == {
        "": "", "p.note-box-title": "Note", "div.note-box-content": "",
        "div.note-box-content > p:nth-of-type(1)": "One two", "div.note-box-content > p:nth-of-type(2)": "Three"}
    assert code["#shadow-root > pre > code.language-python"]["text"] == "zeros = np.zeros(shape)"
    assert code[""]["text"] == ""  # its light text is not slotted: the shadow root draws it
    assert figure["figcaption"]["text"] == "Figure 1. Model state per GPU."
    assert figure[""]["files"] == ["data:image/gif;base64,R0lGODlhAQABAAAAACw="]  # its image, not its caption's
    assert figure["figcaption"]["files"] == []


def test_the_same_page_gives_the_same_record(page, record):
    asked = {"regions": REGIONS, "masks": []}
    assert page.evaluate(SCRIPT, asked) == record
    page.reload()  # set_content's page reloads as about:blank; lay the page out again
    page.set_content(PAGE)
    assert page.evaluate(SCRIPT, asked) == record


def test_svg_shapes_are_summed_up_by_kind_with_a_digest_of_each_geometry_attribute(page):
    """Issue 48, item 4: a figure's SVG as `drawing`, one line a kind of shape: its count, and
    per geometry attribute a digest of its values; a shape moved changes that attribute's alone,
    and one that draws nothing (display: none) is not counted."""
    svg = ('<figure id="f"><svg width="100" height="50"><g><circle cx="{x}" cy="5" r="3"></circle>'
           '<circle cx="20" cy="5" r="3"></circle></g><path d="M0 0L10 10"></path>'
           '<rect width="4" height="4" style="display: none"></rect></svg><figcaption>Two</figcaption></figure>')
    other = page.context.browser.new_page()
    try:
        drawn = []
        for x in (1, 2):
            other.set_content(svg.format(x=x))
            got = other.evaluate(SCRIPT, {"regions": [{"key": "f", "selector": "#f"}], "masks": []})
            drawn.append(got["f"][""]["drawing"].splitlines())
    finally:
        other.close()
    first, moved = drawn
    assert [line.split(" ")[:2] for line in first] == [["circle", "2"], ["path", "1"]]
    assert [a.split("=")[0] for a in first[0].split(" ")[2:]] == ["cx", "cy", "r"]
    changed = {a.split("=")[0] for a in set(first[0].split(" ")) ^ set(moved[0].split(" "))}
    assert changed == {"cx"} and first[1] == moved[1]
