"""Class selectors of the built CSS, read with tinycss2, with their first position."""

from pathlib import Path

import pytest

from theme.core.errors import LintError
from theme.init.lint.css import classes_in_css, classes_in_files

CSS = """/* .in-a-comment { } */
.note-box, d-article > .subtitle { margin: .5em 0 }
@media (prefers-color-scheme: dark) {
  :root:not([data-theme=light]) .note-box-title { color: #ddd }
  @supports (display: grid) { .byline-grid { display: grid } }
}
@font-face { font-family: "X"; src: url(a.woff2) }
@keyframes fade { from { opacity: 0 } 50% { opacity: .5 } }
a[href$=".pdf"]::after { content: ".not-a-class" }
.theme-toggle:is(.tok-kw, .tok-str) { }
"""


def test_classes_with_positions_including_media_supports_and_pseudo_arguments():
    found = classes_in_css(CSS, Path("s.css"))
    assert {n: (d.line, d.col) for n, d in found.items()} == {
        "note-box": (2, 1), "subtitle": (2, 24), "note-box-title": (4, 33), "byline-grid": (5, 31),
        "theme-toggle": (10, 1), "tok-kw": (10, 18), "tok-str": (10, 27),
    }


def test_union_over_outputs_first_file_wins(tmp_path):
    a, b = tmp_path / "a.css", tmp_path / "b.css"
    a.write_text(".x{}\n", encoding="utf-8")
    b.write_text("\n.y{} .x{}\n", encoding="utf-8")
    found = classes_in_files([a, b])
    assert (found["x"].path, found["y"].path, found["y"].line) == (a, b, 2)


def test_missing_stylesheet_names_it(tmp_path):
    with pytest.raises(LintError, match=r"style\.css: stylesheet not found; check the path"):
        classes_in_files([tmp_path / "style.css"])
