"""theme.stylesheet.build on temporary copies of the real scss/: bad input, determinism,
source maps, --check, the post-compile guard and the watch loop."""

from __future__ import annotations

import json
import re
import shutil
import threading
from pathlib import Path

import pytest

from theme.core import config
from theme.core.errors import BuildError
from theme.stylesheet import build

REPO = Path(__file__).resolve().parents[2]
OUTPUTS = ["article/src/style.css", "article/dist/style.css"]
POSITION = re.compile(r"^(?P<path>[^\s:]+):(?P<line>\d+):(?P<col>\d+): \S")


def make_project(root: Path, extra: str = "") -> config.Config:
    shutil.copytree(REPO / "scss", root / "scss")
    shutil.copytree(REPO / "theme/stylesheet/scss/theme", root / "scss/theme")  # a vendored copy: it wins
    (root / "pyproject.toml").write_text(
        '[project]\nname = "specimen"\n\n[tool.theme]\nentry = "scss/style.scss"\n'
        f"outputs = {json.dumps(OUTPUTS)}\n{extra}"
    )
    return config.load(root / "pyproject.toml")


@pytest.fixture
def project(tmp_path, monkeypatch) -> config.Config:
    monkeypatch.chdir(tmp_path)  # messages show paths relative to the current folder
    return make_project(tmp_path)


def outputs_bytes(cfg) -> dict[Path, bytes | None]:
    return {p: p.read_bytes() if p.is_file() else None for p in cfg.build.outputs}


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


# ------------------------------------------------------------ good builds


def test_build_writes_identical_deterministic_bytes_to_every_output(project):
    result = build.build(project)
    first, second = (p.read_bytes() for p in project.build.outputs)
    assert first == second and result.written == project.build.outputs
    assert not first.startswith(b"\xef\xbb\xbf") and b"\r" not in first
    assert first.endswith(b"}\n") and not first.endswith(b"\n\n")
    assert str(project.project_dir).encode() not in first  # no absolute paths
    assert build.compile_theme(project).css == first  # a second compile: same bytes


def test_second_build_leaves_current_outputs_untouched(project):
    build.build(project)
    stamps = [p.stat().st_mtime_ns for p in project.build.outputs]
    result = build.build(project)
    assert result.written == () and result.unchanged == project.build.outputs
    assert [p.stat().st_mtime_ns for p in project.build.outputs] == stamps


def test_compressed_style_is_smaller_and_keeps_the_seed_values(project):
    expanded = build.compile_theme(project).css
    compressed = build.compile_theme(project, style="compressed").css
    assert len(compressed) < len(expanded) and b"\n  " not in compressed
    assert b"d-article{font-size:1.04em" in compressed.replace(b"\n", b"")


def test_source_map_sources_are_relative_to_each_output(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    make_project(tmp_path)
    cfg = config.parse({"entry": "scss/style.scss", "outputs": ["site/style.css", "deep/er/main.css"]},
                       source=tmp_path / "pyproject.toml")
    build.build(cfg, source_map=True)
    for out in cfg.build.outputs:
        css = out.read_text()
        assert css.rstrip().endswith(f"/*# sourceMappingURL={out.name}.map */")
        data = json.loads(out.with_name(out.name + ".map").read_text())
        assert data["file"] == out.name
        assert str(tmp_path) not in json.dumps(data)
        resolved = {(out.parent / s).resolve() for s in data["sources"]}
        assert tmp_path / "scss/style.scss" in resolved
        assert tmp_path / "scss/theme/components/_note-box.scss" in resolved
        assert all(p.is_file() and not Path(s).is_absolute() for s, p in
                   zip(data["sources"], ((out.parent / s).resolve() for s in data["sources"]), strict=True))


# ------------------------------------------------------------------ check


def test_check_is_empty_when_outputs_are_current(project):
    build.build(project)
    assert build.check(project) == []


def test_check_names_each_stale_output_with_a_diff(project):
    build.build(project)
    edit(project.project_dir / "scss/theme/tokens/_typography.scss",
         "$article-font-size: 1.04em", "$article-font-size: 1.1em")
    before = outputs_bytes(project)
    stale = build.check(project)
    assert [s.path for s in stale] == list(project.build.outputs)
    for item in stale:
        assert "--- article/" in item.diff and "-  font-size: 1.04em;" in item.diff
        assert "+  font-size: 1.1em;" in item.diff
    assert outputs_bytes(project) == before  # check never writes


def test_check_reports_a_missing_output(project):
    stale = build.check(project)
    assert len(stale) == 2 and "(missing)" in stale[0].diff


# -------------------------------------------------------------- bad input


def _break_syntax(root: Path):
    edit(root / "scss/theme/components/_note-box.scss", "margin: 0;\n", "margin 0 {;\n")
    return "scss/theme/components/_note-box.scss"


def _undefined_variable(root: Path):
    edit(root / "scss/theme/components/_note-box.scss", "$note-box-title-font-size", "$note-box-title-size")
    return "scss/theme/components/_note-box.scss"


def _missing_import(root: Path):
    edit(root / "scss/style.scss", '@import "theme/all";', '@import "theme/al";')
    return "scss/style.scss"


def _missing_entry(root: Path):
    (root / "scss/style.scss").unlink()
    return "pyproject.toml"


def _unwritable_output(root: Path):
    # As root, permissions do not stop a write; a file where the folder should be does.
    shutil.rmtree(root / "article/dist")
    (root / "article/dist").write_text("not a folder")
    return "pyproject.toml"


def _output_is_a_folder(root: Path):
    # The temp file is created fine; the final rename fails. The first output,
    # already renamed by then, must get its old bytes back.
    (root / "article/dist/style.css").unlink()
    (root / "article/dist/style.css").mkdir()
    return "pyproject.toml"


def _use_rule(root: Path):
    edit(root / "scss/theme/components/_math.scss", "d-math {", '@use "sass:math";\nd-math {')
    return "article/src/style.css"


def _variable_in_custom_property(root: Path):
    edit(root / "scss/theme/_root.scss", "color-scheme: light;", "color-scheme: light;\n  --theme-gap: $space-2;")
    return "article/src/style.css"


BAD_INPUTS = {
    "syntax error": (_break_syntax, "fix the SCSS"),
    "undefined variable": (_undefined_variable,
                           "undefined variable $note-box-title-size (did you mean $note-box-title-font-size?)"),
    "missing import": (_missing_import, 'cannot find the import "theme/al"'),
    "missing entry": (_missing_entry, "entry file scss/style.scss does not exist"),
    "unwritable output": (_unwritable_output, "cannot write article/dist/style.css"),
    "output is a folder": (_output_is_a_folder, "cannot write article/dist/style.css"),
    "@use passed through": (_use_rule, '@use "sass:math" in the compiled CSS (from scss/theme/components/_math.scss:'),
    "$variable in custom property": (_variable_in_custom_property,
                                     "custom property --theme-gap holds the Sass variable $space-2 "
                                     "in the compiled CSS (from scss/theme/_root.scss:"),
}


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_bad_input_is_one_positioned_line_and_loses_nothing(project, case):
    build.build(project)
    edit(project.project_dir / "scss/theme/tokens/_typography.scss",  # so a build WOULD change outputs
         "$article-font-size: 1.04em", "$article-font-size: 1.1em")
    breaker, expected = BAD_INPUTS[case]
    where = breaker(project.project_dir)
    before = {p: (p.read_bytes() if p.is_file() else None) for p in project.build.outputs}
    with pytest.raises(BuildError) as info:
        build.build(project)
    first_line = str(info.value).splitlines()[0]
    m = POSITION.match(first_line)
    assert m, first_line
    assert m["path"] == where and int(m["line"]) >= 1 and int(m["col"]) >= 1
    assert expected in first_line
    after = {p: (p.read_bytes() if p.is_file() else None) for p in project.build.outputs}
    assert after == before
    leftovers = [p for p in project.project_dir.rglob(".style.css.*.tmp")]
    assert leftovers == []


def test_compile_errors_carry_a_source_excerpt_with_a_caret(project):
    _undefined_variable(project.project_dir)
    with pytest.raises(BuildError) as info:
        build.build(project)
    lines = str(info.value).splitlines()
    line, col = map(int, POSITION.match(lines[0]).group("line", "col"))
    assert lines[-2].startswith(f"{line} | ") and "$note-box-title-size" in lines[-2]
    caret = lines[-1]
    assert caret.index("^") - caret.index("|") - 2 == col - 1
    assert lines[-2][lines[-2].index("|") + 2 + col - 1] == "$"


@pytest.mark.parametrize("css, bad", [
    ('/* @use "x"; and --a: $b in a comment */\n.a { --b: "$not-a-var"; }\n', False),
    ('.a {\n  --b: 1px $c; }\n', True),
    ('@forward "x";\n', True),
    ('.a { content: "$x"; width: 1px; }\n', False),
])
def test_guard_ignores_comments_and_strings(project, css, bad):
    if bad:
        with pytest.raises(BuildError, match=r"^article/src/style\.css:\d+:\d+: "):
            build.guard(css.encode(), project.build.outputs[0], project)
    else:
        build.guard(css.encode(), project.build.outputs[0], project)


def test_guard_position_is_line_and_column_in_the_css(project):
    css = b".a {\n  color: red; }\n\n.b {\n  --gap: $space; }\n"
    with pytest.raises(BuildError) as info:
        build.guard(css, project.build.outputs[0], project)
    assert str(info.value).startswith("article/src/style.css:5:10: custom property --gap")


@pytest.mark.parametrize("name, candidates, expected", [
    ("note-font-size", ["note-box-font-size", "gray-50"], "note-box-font-size"),
    ("space_4", ["space-4", "space-5"], "space-4"),
    ("zzz", ["gray-50"], None),
])
def test_closest_name(name, candidates, expected):
    assert build.closest_name(name, candidates) == expected


# ------------------------------------------------------------------ watch


def test_watch_rebuilds_on_a_partial_change_and_survives_an_error(project):
    """A real file change in a temp dir: watchfiles must see it and rebuild."""
    events: list = []
    changed = threading.Condition()

    def report(item):
        with changed:
            events.append(item)
            changed.notify_all()

    def wait_for(predicate, what):
        # A hang guard, not a speed check: generous, and only fails if nothing came.
        with changed:
            assert changed.wait_for(lambda: predicate(events), timeout=60), f"{what}: {events}"

    stop, watching = threading.Event(), threading.Event()
    thread = threading.Thread(target=build.watch, args=(project,),
                              kwargs={"report": report, "stop_event": stop, "debounce_ms": 50,
                                      "ready": watching.set})
    thread.start()
    try:
        assert watching.wait(timeout=60), "the watcher never started"  # hang guard only
        wait_for(lambda ev: len(ev) == 1, "initial build")
        assert isinstance(events[0], build.BuildResult)
        note_box = project.project_dir / "scss/theme/components/_note-box.scss"
        edit(note_box, "font-weight: 600;", "font-weight: $nope;")
        wait_for(lambda ev: any(isinstance(e, BuildError) for e in ev), "error after a bad edit")
        err = next(e for e in events if isinstance(e, BuildError))
        assert str(err).startswith("scss/theme/components/_note-box.scss:")
        edit(note_box, "font-weight: $nope;", "font-weight: 700;")
        edit(project.project_dir / "scss/theme/tokens/_typography.scss",
             "$article-font-size: 1.04em", "$article-font-size: 1.2em")
        wait_for(lambda ev: "1.2em" in project.build.outputs[1].read_text(), "rebuild after a fix")
    finally:
        stop.set()
        thread.join()
    assert not thread.is_alive()
