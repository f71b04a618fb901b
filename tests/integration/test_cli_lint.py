"""`theme lint` from the command line: exit codes 0/1/2, output format, --fix, --diff, --strict, -C."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent.parent / "fixtures" / "lint"
CSS = ".note-box{}\n.note-box-title{}\n@media (max-width: 600px) {\n  .note-box-content{}\n}\n"
CLEAN = """<!DOCTYPE html>
<html lang="en"><body>
<div class="note-box">
  <p class="note-box-title">Note</p>
  <div class="note-box-content"><p>Fine.</p></div>
</div>
</body></html>
"""


@pytest.fixture(autouse=True)
def lint_cache(tmp_path_factory, monkeypatch):
    """Each test its own render cache (the subprocesses inherit the variable)."""
    folder = tmp_path_factory.mktemp("lint-cache")
    monkeypatch.setenv("THEME_LINT_CACHE", str(folder))
    return folder


def theme(*args, cwd):
    return subprocess.run([sys.executable, "-m", "theme", *args], cwd=cwd, capture_output=True, text=True)


@pytest.fixture
def project(tmp_path):
    """A project with built CSS in src/ and dist/ and one page in both."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.theme]\noutputs = ["article/src/style.css", "article/dist/style.css"]\n'
        '[tool.theme.visual]\nroot = "article/dist"\npages = ["index.html"]\n', encoding="utf-8")
    for side in ("src", "dist"):
        folder = tmp_path / "article" / side
        folder.mkdir(parents=True)
        (folder / "style.css").write_text(CSS, encoding="utf-8")
        (folder / "index.html").write_text(CLEAN, encoding="utf-8")
    return tmp_path


def put(project, text, sides=("src", "dist")):
    for side in sides:
        (project / "article" / side / "index.html").write_text(text, encoding="utf-8")


def test_clean_article_exits_0_and_prints_nothing(project):
    result = theme("lint", cwd=project)
    assert (result.returncode, result.stdout) == (0, "")


def test_problems_exit_1_with_relative_path_line_col_code(project):
    put(project, CLEAN.replace('<div class="note-box-content"><p>Fine.</p></div>',
                               '<p class="note-box-content">Fine:<ul><li>x</li></ul></p>'))
    result = theme("lint", cwd=project)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert "article/dist/index.html:5:3: TL001 <ul> at 5:36 closes this <p> early" in result.stdout
    assert any(line.startswith("article/dist/index.html:3:1: TL010 ") for line in lines)
    assert any(line.startswith("article/src/index.html:3:1: TL010 ") for line in lines)


def test_paths_and_C_option(project, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("cwd")
    page = project / "article" / "dist" / "index.html"
    page.write_text(CLEAN.replace('class="note-box-title"', 'class="note-box-titel"'), encoding="utf-8")
    result = theme("lint", "-C", str(project), "article/dist/index.html", cwd=elsewhere)
    assert result.returncode == 1
    assert "article/dist/index.html:4:13: TL020 class .note-box-titel is defined by none of the page's " \
        "stylesheets; did you mean .note-box-title?" in result.stdout.splitlines()


def test_src_and_dist_differ_points_at_first_differing_line(project):
    put(project, CLEAN.replace("Fine.", "Fine!"), sides=("src",))
    result = theme("lint", cwd=project)
    assert result.returncode == 1
    assert result.stdout == ("article/dist/index.html:5:40: TL040 differs from article/src/index.html:5:40 "
                             "(first difference); keep both copies byte-identical "
                             "(copy the edited one over the other)\n")


def test_missing_copy_in_src(project):
    (project / "article" / "src" / "index.html").unlink()
    result = theme("lint", cwd=project)
    assert result.returncode == 1
    assert result.stdout.startswith("article/dist/index.html:1:1: TL041 no copy at article/src/index.html")


def test_unused_theme_class_is_a_warning_exit_0_unless_strict(project):
    for side in ("src", "dist"):
        (project / "article" / side / "style.css").write_text(CSS + ".never-used { }\n", encoding="utf-8")
    result = theme("lint", cwd=project)
    assert result.returncode == 0
    assert result.stdout == ("article/src/style.css:6:1: TL021 warning: theme class .never-used is used by "
                             "no linted page or script; use it in the specimen or drop the rule\n")
    assert theme("lint", "--strict", cwd=project).returncode == 1


@pytest.mark.parametrize("setup, message", [
    (lambda p: (p / "article" / "dist" / "index.html").write_bytes(b"<p>\xff</p>"),
     "article/dist/index.html: not UTF-8 (byte 0xff at offset 3); save the file as UTF-8"),
    (lambda p: (p / "article" / "dist" / "index.html").unlink(),
     "index.html: cannot read: No such file or directory"),
])
def test_unreadable_input_exits_2_with_one_line(project, setup, message):
    setup(project)
    result = theme("lint", cwd=project)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_without_config_explicit_paths_still_lint(tmp_path):
    page = tmp_path / "page.html"
    page.write_text("<p>a<div>b</div></p>", encoding="utf-8")
    result = theme("lint", "page.html", cwd=tmp_path)
    assert result.returncode == 1
    assert "page.html:1:1: TL001 <div> at 1:5 closes this <p> early" in result.stdout
    assert "src/dist checks skipped" in result.stderr


def test_diff_shows_the_fix_and_exits_1_then_fix_makes_it_clean(project):
    before = (FIXTURES / "note_boxes_before.html").read_text(encoding="utf-8")
    put(project, before)
    diff = theme("lint", "--diff", cwd=project)
    assert diff.returncode == 1
    assert "--- a/article/dist/index.html\n+++ b/article/dist/index.html\n" in diff.stdout
    assert '-        <p class="note-box-content">\n+        <div class="note-box-content">\n' in diff.stdout
    assert (project / "article" / "dist" / "index.html").read_text(encoding="utf-8") == before  # --diff never writes

    fixed = theme("lint", "--fix", cwd=project)
    assert "fixed 6 note-box content(s) in article/dist/index.html" in fixed.stderr
    assert "TL001" not in fixed.stdout and "TL010" not in fixed.stdout
    after = (project / "article" / "dist" / "index.html").read_text(encoding="utf-8")
    assert after == (project / "article" / "src" / "index.html").read_text(encoding="utf-8")

    again = theme("lint", "--diff", cwd=project)
    assert (again.returncode, again.stdout) == (0, "")


def test_fix_and_diff_together_is_a_usage_error(project):
    assert theme("lint", "--fix", "--diff", cwd=project).returncode == 2


@pytest.mark.browser
@pytest.mark.slow
def test_the_specimen_article_and_theme_lint_clean():
    """The repository's own specimen (both copies) against the committed built CSS; --strict so an
    unused theme class fails here too. This puts the lint in the README's test command."""
    repo = Path(__file__).resolve().parents[2]
    result = theme("lint", "--strict", "-C", str(repo), cwd=repo)
    assert (result.returncode, result.stdout) == (0, "")


# ---------------------------------------------------------------- someone else's article

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "tests" / "fixtures" / "distill-example"
RUNTIME = REPO / "article" / "dist" / "assets" / "distill" / "template.v2.js"
HEADING = "    <h2>A Brief Survey of Techniques</h2>\n"
# Inserted after HEADING (line 68): a class no stylesheet defines, then the seeds' p-in-p note-box.
ADDED = ('    <p class="lede">Lead.</p>\n'
         '    <div class="note-box">\n'
         '      <p class="note-box-title">Note</p>\n'
         '      <p class="note-box-content">\n'
         '        <p>A paragraph inside the content paragraph.</p>\n'
         '      </p>\n'
         '    </div>\n')
NOTE_BOX_CSS = ".note-box { border: 1px solid }\n.note-box-title { font-weight: bold }\n.note-box-content { }\n"


@pytest.fixture
def distill(tmp_path):
    """The Distill example article as its authors ship it (the runtime beside index.html), in a
    folder with no pyproject.toml and no theme build output."""
    site = tmp_path / "article"
    shutil.copytree(EXAMPLE, site)
    shutil.copy(RUNTIME, site / "template.v2.js")
    assert not list(tmp_path.rglob("pyproject.toml")) and not list(tmp_path.rglob("*.css"))
    return site


@pytest.mark.browser
@pytest.mark.slow
def test_distill_example_is_clean_with_the_runtimes_classes(distill):
    result = theme("lint", "index.html", cwd=distill)
    assert (result.returncode, result.stdout) == (0, "")
    assert "index.html: classes from no stylesheet; rendered in Chromium:" in result.stderr
    assert "shadow root of <d-math>" in result.stderr


def test_without_rendering_the_runtimes_classes_are_unknown_until_css_adds_them(distill):
    result = theme("lint", "--no-render", "index.html", cwd=distill)
    assert result.returncode == 1
    assert [line.split(": TL020")[0] for line in result.stdout.splitlines()] == [
        "index.html:67:15", "index.html:88:15", "index.html:102:15"]
    assert "class .marker is defined by none of the page's stylesheets" in result.stdout
    assert "its scripts were not run (--no-render) and may define it" in result.stdout
    (distill / "runtime.css").write_text("d-article .marker { text-decoration: none }\n", encoding="utf-8")
    again = theme("lint", "--no-render", "--css", "runtime.css", "index.html", cwd=distill)
    assert (again.returncode, again.stdout) == (0, "")
    assert "index.html: classes from runtime.css; its scripts not run (--no-render)" in again.stderr


@pytest.mark.browser
@pytest.mark.slow
def test_distill_example_reports_an_undefined_class_and_the_p_in_p_note_box(distill):
    page = distill / "index.html"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace(HEADING, HEADING + ADDED, 1), encoding="utf-8")
    (distill / "note-box.css").write_text(NOTE_BOX_CSS, encoding="utf-8")
    result = theme("lint", "--css", "note-box.css", "index.html", cwd=distill)
    assert result.returncode == 1
    assert [line.split(" ")[0:2] for line in result.stdout.splitlines()] == [
        ["index.html:69:15:", "TL020"],  # .lede: defined nowhere, the runtime's sheets included
        ["index.html:70:5:", "TL010"],  # the note-box lost its content to the parser
        ["index.html:72:7:", "TL001"],  # <p class="note-box-content"> closed early by the inner <p>
        ["index.html:72:7:", "TL011"],  # (and a <p> cannot hold blocks at all)
        ["index.html:74:7:", "TL002"],  # the stray </p> that was meant for it
    ]
    assert "class .lede is defined by none of the page's stylesheets" in result.stdout
    without = theme("lint", "index.html", cwd=distill)
    assert "class .note-box-title is defined by none" in without.stdout  # --css is what defined them


SCRIPTED = """<!DOCTYPE html>
<html><head><script src="runtime.js"></script></head>
<body><p class="made">x</p></body></html>
"""
RUNTIME_JS = "document.head.appendChild(document.createElement('style')).textContent = '.%s { color: red }';\n"


@pytest.mark.browser
@pytest.mark.slow
def test_the_render_is_reused_until_a_file_the_page_loaded_changes(tmp_path):
    (tmp_path / "index.html").write_text(SCRIPTED, encoding="utf-8")
    (tmp_path / "runtime.js").write_text(RUNTIME_JS % "made", encoding="utf-8")
    first = theme("lint", "index.html", cwd=tmp_path)
    assert (first.returncode, first.stdout) == (0, "")
    assert "rendered in Chromium: 1 stylesheet(s) its scripts added (document)" in first.stderr
    second = theme("lint", "index.html", cwd=tmp_path)
    assert (second.returncode, second.stdout) == (0, "")
    assert "rendered in Chromium (an earlier render: no file it loaded has changed)" in second.stderr
    (tmp_path / "runtime.js").write_text(RUNTIME_JS % "other", encoding="utf-8")  # the script changed
    third = theme("lint", "index.html", cwd=tmp_path)
    assert third.returncode == 1 and "earlier render" not in third.stderr
    assert third.stdout.startswith("index.html:3:17: TL020 class .made is defined by none of the page's stylesheets")


CLOSED = """<!DOCTYPE html>
<html><head><script src="box.js"></script></head>
<body><x-box class="boxed">x</x-box></body></html>
"""
# A component that styles its host from a CLOSED shadow root (element.shadowRoot is null).
BOX_JS = """customElements.define('x-box', class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: '%s' }).innerHTML = '<style>:host(.boxed) { border: 1px solid }</style><slot></slot>';
  }
});
"""


@pytest.mark.browser
@pytest.mark.parametrize("mode", ["open", "closed"])
def test_a_class_styled_from_a_shadow_root_is_defined_open_or_closed(tmp_path, mode):
    (tmp_path / "index.html").write_text(CLOSED, encoding="utf-8")
    (tmp_path / "box.js").write_text(BOX_JS % mode, encoding="utf-8")
    result = theme("lint", "index.html", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "")
    assert "1 stylesheet(s) its scripts added (shadow root of <x-box>)" in result.stderr


SCRIPT_CLASSES = """<!DOCTYPE html>
<html><head><script src="https://cdn.example.com/lib.js"></script><script src="draw.js"></script></head>
<body><p class="drawn">x</p><p class="typo">y</p></body></html>
"""


@pytest.mark.browser
@pytest.mark.slow
def test_a_class_the_pages_script_writes_is_known_and_a_blocked_script_is_a_warning(tmp_path):
    """draw.js writes `<p class="drawn">` (it may also have drawn it): not TL020. The CDN script is
    blocked (no route), so the page did not run as published: one TL023, no TL020 at all; routed to
    a local copy, the typo is reported again."""
    (tmp_path / "index.html").write_text(SCRIPT_CLASSES, encoding="utf-8")
    (tmp_path / "draw.js").write_text("document.body.insertAdjacentHTML('beforeend', '<p class=\"drawn\">z</p>');\n",
                                      encoding="utf-8")
    blocked = theme("lint", "index.html", cwd=tmp_path)
    assert blocked.returncode == 0 and blocked.stdout.startswith(
        "index.html:2:13: TL023 warning: script https://cdn.example.com/lib.js did not load in the render "
        "(blocked: it is not on this machine and no [tool.theme.visual] route covers it)")
    assert len(blocked.stdout.splitlines()) == 1
    assert theme("lint", "--strict", "index.html", cwd=tmp_path).returncode == 1
    (tmp_path / "cdn").mkdir()
    (tmp_path / "cdn" / "lib.js").write_text("// the library\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.theme]\noutputs = []\n[tool.theme.visual]\nroot = "."\n'
                                             'pages = ["index.html"]\nroute = { "https://cdn.example.com/" = "cdn" }\n',
                                             encoding="utf-8")
    routed = theme("lint", cwd=tmp_path)
    assert routed.returncode == 1
    assert [line.split(" ")[:2] for line in routed.stdout.splitlines()] == [["index.html:3:39:", "TL020"]]
    assert "class .typo is defined by none" in routed.stdout


BUILT_SELECTOR = """<!DOCTYPE html>
<html><head><script src="pick.js"></script></head>
<body><div id="example-1"><img class="image-selector" alt=""></div><p class="image-selectr">x</p></body></html>
"""
# As the published article looks its images up (with d3's svg.select): a selector built by `+`.
PICK_JS = """function pick(example) {
  return document.querySelector("#example-" + example + " > .image-selector");
}
status = "Loading " + 2 + " examples, see .image-selectr";
"""


@pytest.mark.browser
@pytest.mark.slow
def test_a_class_in_a_selector_the_pages_script_builds_is_known(tmp_path):
    """pick.js looks `.image-selector` up in a selector it joins with `+`: not TL020. The typo
    beside it is still reported: its only mention is in a string of prose, which defines nothing."""
    (tmp_path / "index.html").write_text(BUILT_SELECTOR, encoding="utf-8")
    (tmp_path / "pick.js").write_text(PICK_JS, encoding="utf-8")
    result = theme("lint", "index.html", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert [line.split(" ")[:2] for line in result.stdout.splitlines()] == [["index.html:3:78:", "TL020"]]
    assert "class .image-selectr is defined by none" in result.stdout
    (tmp_path / "index.html").write_text(BUILT_SELECTOR.replace(' class="image-selectr"', ""), encoding="utf-8")
    fixed = theme("lint", "index.html", cwd=tmp_path)
    assert (fixed.returncode, fixed.stdout) == (0, ""), fixed.stderr
