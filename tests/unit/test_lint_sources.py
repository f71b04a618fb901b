"""The stylesheets a page loads, read without a browser: links, <style>, @import, and what is missing."""

from pathlib import Path

from theme.init.lint import has_scripts
from theme.init.lint.parse import parse_file, parse_text
from theme.init.lint.sources import page_sources


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_links_styles_and_imports_resolve_as_the_browser_would(tmp_path):
    site = tmp_path / "site"
    write(site / "css" / "main.css", '@import "parts/box.css";\n.main { }\n')
    write(site / "css" / "parts" / "box.css", "\n  .box { }\n@import url(../../root.css);\n")
    write(site / "root.css", ".from-root { }\n")
    write(site / "abs.css", ".absolute { }\n")
    page = write(site / "posts" / "page.html",
                 '<!doctype html>\n<link rel="stylesheet" href="../css/main.css?v=2">\n'
                 '<link rel="preload stylesheet" href="/abs.css">\n'
                 '<style>\n  p { }\n    .inline { }\n</style>\n<p class="x">a</p>\n')
    found = page_sources(parse_file(page), site)
    where = {name: (d.path.relative_to(site).as_posix(), d.line, d.col) for name, d in found.defined.items()}
    assert where == {
        "main": ("css/main.css", 2, 1), "box": ("css/parts/box.css", 2, 3), "from-root": ("root.css", 1, 1),
        "absolute": ("abs.css", 1, 1), "inline": ("posts/page.html", 6, 5),  # the <style> line in the page
    }
    assert found.problems == [] and found.not_read == []


def test_a_style_block_on_the_tag_line_keeps_its_column(tmp_path):
    page = write(tmp_path / "p.html", "<p>x</p><style>.a{} .b{}</style>")
    found = page_sources(parse_file(page), tmp_path)
    assert [(d.line, d.col) for d in found.defined.values()] == [(1, 16), (1, 21)]


def test_missing_link_and_missing_import_are_reported_where_they_are_written(tmp_path):
    write(tmp_path / "a.css", ".a { }\n\n@import 'gone.css';\n")
    page = write(tmp_path / "p.html", '<head>\n  <link rel=stylesheet href="a.css">\n'
                 '  <link rel="stylesheet" href="style.css">\n</head>')
    found = page_sources(parse_file(page), tmp_path)
    assert sorted((p.path.name, p.line, p.col, p.code) for p in found.problems) == [
        ("a.css", 3, 1, "TL022"), ("p.html", 3, 3, "TL022")]
    assert "stylesheet style.css is missing" in next(p.message for p in found.problems if p.path == page)
    assert list(found.defined) == ["a"]


def test_remote_sheets_are_listed_not_read_and_import_cycles_end(tmp_path):
    write(tmp_path / "a.css", "@import 'b.css';\n.a{}\n")
    write(tmp_path / "b.css", "@import 'a.css';\n.b{}\n")
    page = write(tmp_path / "p.html", '<link rel="stylesheet" href="https://cdn.example/x.css">'
                 '<link rel="stylesheet" href="//cdn.example/y.css"><link rel="stylesheet" href="a.css">')
    found = page_sources(parse_file(page), tmp_path)
    assert found.not_read == ["https://cdn.example/x.css", "//cdn.example/y.css"]
    assert set(found.defined) == {"a", "b"} and found.problems == []


def test_extra_stylesheets_add_classes_after_the_pages_own(tmp_path):
    write(tmp_path / "own.css", ".shared{}\n")
    extra = write(tmp_path / "extra.css", ".shared{}\n.more{}\n")
    page = write(tmp_path / "p.html", '<link rel="stylesheet" href="own.css">')
    found = page_sources(parse_file(page), tmp_path, [extra])
    assert (found.defined["shared"].path.name, found.defined["more"].path.name) == ("own.css", "extra.css")
    assert [Path(label).name for label in found.read] == ["own.css", "extra.css"]


def test_only_scripts_that_run_count():
    front_matter = '<script type="text/json">{"title": "x"}</script>'
    assert not has_scripts(parse_text(front_matter + "<p>x</p>"))
    assert has_scripts(parse_text('<script src="template.v2.js"></script>'))
    assert has_scripts(parse_text("<script>document.body.className = 'x';</script>"))
    assert has_scripts(parse_text('<script type="module">import "./a.js";</script>'))


def test_a_routed_remote_sheet_is_read_from_its_local_copy(tmp_path):
    vendored = write(tmp_path / "vendor" / "katex" / "katex.min.css", ".katex{}\n@import 'fonts.css';\n")
    write(vendored.parent / "fonts.css", ".katex-font{}\n")
    page = write(tmp_path / "site" / "p.html",
                 '<link rel="stylesheet" href="https://cdn.example/katex/katex.min.css">\n'
                 '<link rel="stylesheet" href="https://other.example/x.css">')
    found = page_sources(parse_file(page), tmp_path / "site", route={"https://cdn.example/katex/": vendored.parent})
    assert {n: d.path.name for n, d in found.defined.items()} == {"katex": "katex.min.css", "katex-font": "fonts.css"}
    assert found.not_read == ["https://other.example/x.css"]
