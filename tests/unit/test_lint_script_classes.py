"""The classes a script gives a meaning to (theme/init/lint/script_classes.py), read from its text."""

from pathlib import Path

import pytest

from theme.init.lint.script_classes import classes_in_script

RUNTIME = Path(__file__).resolve().parents[2] / "article" / "dist" / "assets" / "distill" / "template.v2.js"


@pytest.mark.parametrize("script, expected", [
    # markup a script writes: template literals, strings, escaped quotes
    ('el.innerHTML = `<a class="name" href="${url}">${name}</a>`;', {"name"}),
    ("html = '<p class=\"author grid\">' + who + '</p>';", {"author", "grid"}),
    ('css = "<span class=\\"affiliation\\">";', {"affiliation"}),
    ("x = `<div class='a ${b} c'>`;", {"a"}),  # what follows code is not a whole literal value
    ("x = '<div class=\"' + cls + '\">';", set()),
    ("x = '<div class=\"tok-' + kind + '\">';", set()),  # "tok-" is part of a longer name
    ("x = '<div class=\"one ' + kind + '\">';", {"one"}),
    # the DOM's and d3's ways of setting classes
    ("el.className = 'references';", {"references"}),
    ("el.className = 'language-' + language;", set()),
    ("el.className = `language-${lang}`;", set()),
    ("el.classList.add('focus', \"active\"); el.classList.toggle(`open`);", {"focus", "active", "open"}),
    ('a.setAttribute("class", "footnote-backlink");', {"footnote-backlink"}),
    ('g.attr("class", "tick major").classed("hidden", true);', {"tick", "major", "hidden"}),
    # the classes it looks elements up by
    ("document.querySelectorAll('d-article .note-box > p'); el.closest('.card');", {"note-box", "card"}),
    ('document.getElementsByClassName("toc-entry");', {"toc-entry"}),
    ('d3.select("#chart").selectAll(".bar");', {"bar"}),
    # the classes of a selector it builds: a string joined by `+` or a template's text parts
    ('svg.select("#example-" + example + " > .image-selector");', {"image-selector"}),
    ('rows = d3.selectAll(".row " + tag); s += " .more";', {"row", "more"}),
    ("el.querySelector(`${a} .bar`); q = `#fig-${n} .caption > .label`;", {"bar", "caption", "label"}),
    ('sel = "g.tick text.label, d-figure .note " + rest;', {"tick", "label", "note"}),
    # ... but not a name the code around it may lengthen or join onto, nor a file's suffix
    ('a = ".item-" + i; b = `.item-${i}`; c = ".open" + state; d = "#fig" + n + ".active";', set()),
    ('img.src = "images/" + name + ".png"; f = name + ".json"; g = "a.pdf " + x;', set()),
    # ... nor prose, nor a stylesheet a script builds
    ('msg = "Loading " + n + " items. Please wait."; e = "e.g. " + x;', set()),
    ('err = name + " must end in .yml or .yaml";', set()),
    ("css = `.foo { color: ${c} }`;", set()),
    # words that are no class
    ("const name = 'affiliation'; if (a.className) b();", set()),
    ("fetch('data.json'); console.log('.not-a-selector');", set()),
])
def test_classes_a_script_writes_or_looks_up(script, expected):
    assert classes_in_script(script) == expected


def test_the_distill_runtime_knows_its_bylines_classes():
    """The vendored v2 runtime's byline (bylineTemplate) writes .name and .affiliation, which no
    stylesheet styles (its sheet has `.affiliations`); both are read from its text."""
    found = classes_in_script(RUNTIME.read_text(encoding="utf-8"))
    assert {"name", "affiliation", "author", "authors-affiliations", "byline"} <= found
    assert "affiliations" not in found and not any(c.endswith("-") for c in found)
