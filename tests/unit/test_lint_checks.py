"""Each lint check: a failing snippet with the exact line:col it reports, and a passing twin."""

from pathlib import Path

import pytest

from theme.init.lint import checks
from theme.init.lint.css import ClassDef
from theme.init.lint.parse import parse_text

CSS = Path("style.css")
DEFINED = {name: ClassDef(name, CSS, 1, 1) for name in
           ("note-box", "note-box-title", "note-box-content", "subtitle", "known")}

NOTE_OK = ('<div class="note-box">\n  <p class="note-box-title">T</p>\n'
           '  <div class="note-box-content"><p>x</p></div>\n</div>')

# code, failing snippet, [(line, col) of that code], passing snippet
CASES = [
    ("TL001", "<p>Lead-in:\n<ul><li>a</li></ul></p>", [(1, 1)],
     "<p>Lead-in:</p>\n<ul><li>a</li></ul>"),
    ("TL001", '<div>\n  <p class="known">\n    <p>inner</p>\n  </p>\n</div>', [(2, 3)],
     '<div>\n  <div class="known">\n    <p>inner</p>\n  </div>\n</div>'),
    ("TL001", "<p>one\n<p>two</p>", [(1, 1)], "<p>one</p>\n<p>two</p>"),
    ("TL002", "<div>\n  <ul><li>a</li></ul></p>\n</div>", [(2, 22)], "<div>\n  <ul><li>a</li></ul>\n</div>"),
    ("TL010", '<div class="note-box">\n  <div class="note-box-content"><p>x</p></div>\n</div>', [(1, 1)], NOTE_OK),
    ("TL010", '<main>\n <div class="note-box"><div class="note-box-content">x</div>'
              '<p class="note-box-title">T</p></div></main>', [(2, 2)], NOTE_OK),
    ("TL010", '<div class="note-box"><p class="note-box-title">T</p>\n'
              '<div class="note-box-content">x</div>stray words</div>', [(1, 1)], NOTE_OK),
    ("TL011", '<div class="note-box">\n  <p class="note-box-title">T</p>\n'
              '  <span class="note-box-content">x</span>\n</div>', [(3, 3)], NOTE_OK),
    ("TL012", '<section>\n  <p class="note-box-title">T</p>\n</section>', [(2, 3)], NOTE_OK),
    ("TL020", '<p class="known\n   unknwn">x</p>', [(2, 4)], '<p class="known\n   subtitle">x</p>'),
    ("TL020", "<h1 class=Known>x</h1>", [(1, 11)], "<h1 class=known>x</h1>"),  # classes are case-sensitive
    ("TL030", "<p>\n  <d-math> </d-math></p>", [(2, 3)], "<p>\n  <d-math>x^2</d-math></p>"),
    ("TL031", '<p>see <d-code language="python"></d-code></p>', [(1, 8)],
     '<p>see <d-code language="python">f(x)</d-code></p>'),
    ("TL032", '<d-code block language="pyhton">\nx = 1\n</d-code>', [(1, 1)],
     '<d-code block language="python">\nx = 1\n</d-code>'),
    ("TL033", "<d-code block>\nx = 1\n</d-code>", [(1, 1)], '<d-code block language="js">\nx = 1\n</d-code>'),
    ("TL034", "<p><d-math>a <b> c</d-math></p>", [(1, 14)], "<p><d-math>a &lt;b&gt; c</d-math></p>"),
    ("TL034", '<d-code block language="python">\nif a<b:\n  pass</d-code>', [(2, 5)],
     '<d-code block language="python">\nif a &lt; b:\n  pass</d-code>'),
]


def codes_at(text, code):
    problems = checks.check_document(parse_text(text), DEFINED)
    return [(p.line, p.col) for p in problems if p.code == code]


@pytest.mark.parametrize("code, bad, where, good", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_check_fails_at_exact_position_and_passes_on_the_fixed_form(code, bad, where, good):
    assert codes_at(bad, code) == where
    assert checks.check_document(parse_text(good), DEFINED) == []


def test_split_message_names_the_breaking_tag_and_its_position():
    [problem] = [p for p in checks.check_document(parse_text("<!DOCTYPE html>\n<p>a\n  <table></table></p>"), DEFINED)
                 if p.code == "TL001"]
    assert "<table> at 3:3" in problem.message


def test_unknown_class_suggests_the_nearest_theme_class():
    [problem] = checks.check_document(parse_text('<p class="note-box-titel">x</p>'), DEFINED)
    assert "did you mean .note-box-title?" in problem.message


def test_note_box_message_lists_what_the_parser_made_of_it():
    text = ('<div class="note-box"><p class="note-box-title">T</p>'
            '<p class="note-box-content">a<ul><li>b</li></ul>c</p></div>')
    [problem] = [p for p in checks.check_document(parse_text(text), DEFINED) if p.code == "TL010"]
    assert "[p.note-box-title, p.note-box-content, ul, text, p]" in problem.message


def test_class_checks_are_skipped_without_theme_css():
    assert checks.check_document(parse_text('<p class="anything">x</p>'), None) == []


def test_unused_theme_classes_are_warnings_and_scripts_count_as_use():
    defined = {n: ClassDef(n, CSS, i + 1, 3) for i, n in enumerate(("used", "tok-kw", "tok-str", "ghost"))}
    problems = checks.check_unused_classes(defined, {"used"}, ["el.className = 'tok-kw';"])
    assert [(p.code, p.line, p.col, p.severity) for p in problems] == [
        ("TL021", 3, 3, "warning"), ("TL021", 4, 3, "warning")]
    assert "tok-str" in problems[0].message  # "tok-kw" in the script does not count for "tok-str"


@pytest.mark.parametrize("a, b, where", [
    ("<p>same</p>\n", "<p>same</p>\n", []),
    ("<p>one</p>\n<p>two</p>\n", "<p>one</p>\n<p>twice</p>\n", [(2, 6)]),
    ("<p>x</p>\n", "<p>x</p>\n<p>more</p>\n", [(2, 1)]),
    ("<p>x</p>\n", "<p>x</p>\r\n", [(1, 9)]),  # line endings count: the copies must be byte-identical
])
def test_copies_differ_at_first_differing_line_and_column(a, b, where):
    problems = checks.check_copies(parse_text(a, Path("dist/index.html")), parse_text(b, Path("src/index.html")))
    assert [(p.line, p.col) for p in problems] == where
    assert all(p.code == "TL040" and "src/index.html" in p.message for p in problems)


def test_a_class_the_pages_scripts_use_is_known_but_never_offered_as_a_hint():
    """Distill's byline writes `.name` and `.affiliation`, which no sheet styles: not TL020. A
    typo is still reported, and its hint comes from the stylesheets only."""
    page = parse_text('<p class="affiliation">A</p>\n<p class="affiliatoin">B</p>')
    defined = {**DEFINED, "affiliations": ClassDef("affiliations", CSS, 9, 1)}
    problems = checks.check_document(page, defined, known={"affiliation", "name"})
    assert [(p.code, p.line, p.col) for p in problems] == [("TL020", 2, 11)]
    assert "did you mean .affiliations?" in problems[0].message
    [before] = checks.check_document(parse_text('<p class="affiliation">A</p>'), defined)
    assert "did you mean .affiliations?" in before.message  # what the issue saw without `known`


BLOCKED_PAGE = ('<!doctype html>\n<head>\n  <script src="https://distill.pub/template.v2.js"></script>\n'
                '  <script src="//cdn.example.com/x.js"></script>\n  <script src="local.js"></script>\n</head>')


def test_a_blocked_script_of_the_page_is_a_warning_at_its_element_naming_url_and_route():
    doc = parse_text(BLOCKED_PAGE)
    blocked = {"https://distill.pub/template.v2.js": "blocked: no route covers it",
               "http://cdn.example.com/x.js": "blocked: no route covers it",
               "https://distill.pub/third-party/katex/katex.min.js": "blocked"}  # not the page's own
    problems = checks.check_blocked_scripts(doc, "http://127.0.0.1/index.html", blocked)
    assert [(p.code, p.line, p.col, p.severity) for p in problems] == [
        ("TL023", 3, 3, "warning"), ("TL023", 4, 3, "warning")]
    assert "script https://distill.pub/template.v2.js did not load in the render (blocked: no route" in \
        problems[0].message
    assert "TL020 is skipped" in problems[0].message and "[tool.theme.visual] route" in problems[0].message
    assert checks.check_blocked_scripts(doc, "http://127.0.0.1/index.html", {}) == []
