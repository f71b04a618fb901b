"""`theme tokens --check-contrast` and `--html` as a user runs them.

The first test checks the SHIPPED theme: it is how the contrast rule is part of
the README test command (`python3 -m pytest`)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def theme(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "theme", *args], cwd=cwd, capture_output=True, text=True)


@pytest.fixture
def project(tmp_path) -> Path:
    shutil.copytree(REPO / "scss", tmp_path / "scss")
    shutil.copytree(REPO / "theme/stylesheet/scss/theme", tmp_path / "scss/theme")  # a vendored copy: it wins
    (tmp_path / "pyproject.toml").write_text(
        '[tool.theme]\nentry = "scss/style.scss"\noutputs = ["out/style.css"]\n')
    return tmp_path


def test_the_shipped_palette_passes_every_declared_pair_in_both_schemes():
    run = theme("tokens", "--check-contrast", cwd=REPO)
    assert run.returncode == 0, run.stdout + run.stderr
    pairs = tomllib.loads((REPO / "scss/contrast-pairs.toml").read_text())["pair"]
    assert len(pairs) >= 20
    lines = run.stdout.splitlines()
    for scheme in ("light", "dark"):
        names = [p.get("name") or f"{p['foreground']} on {p['background']}" for p in pairs]
        for name in names:
            hit = [ln for ln in lines if ln.startswith(scheme) and f"  {name}  " in ln]
            assert len(hit) == 1, (scheme, name)
            assert hit[0].endswith("pass") and re.search(r"\d+\.\d\d:1", hit[0])
    # The brief's component list is covered.
    covered = " ".join(p["foreground"] + " " + p["background"] for p in pairs)
    for role in ("text-color", "heading-color", "link-color", "text-color-muted", "caption-color",
                 "note-box-title-color", "note-box-content-color", "note-box-background",
                 "code-color", "code-background", "toc-color", "aside-color",
                 "table-row-background-striped"):
        assert role in covered, role


def test_a_failing_palette_value_exits_1_and_prints_its_ratio(project):
    dark = project / "scss/theme/tokens/_dark.scss"
    dark.write_text(dark.read_text().replace('"caption-color": $gray-400', '"caption-color": $gray-750'))
    run = theme("tokens", "--check-contrast", cwd=project)
    assert run.returncode == 1, run.stdout + run.stderr
    failing = [ln for ln in run.stdout.splitlines() if ln.endswith("FAIL")]
    assert len(failing) == 1 and failing[0].startswith("dark") and "captions" in failing[0]
    # #30363d on #121519 is about 1.6:1; the line says so, and what was needed.
    assert re.search(r"\b1\.\d\d:1 \(needs 4\.5:1, text\)", failing[0]), failing[0]
    assert "1 of 58 checks fail" in run.stderr


def test_an_unknown_role_exits_2_with_file_and_line(project):
    pairs = project / "scss/contrast-pairs.toml"
    text = pairs.read_text().replace('foreground = "aside-color"', 'foreground = "asides-color"')
    pairs.write_text(text)
    line = text.splitlines().index('foreground = "asides-color"') + 1
    run = theme("tokens", "--check-contrast", cwd=project)
    assert run.returncode == 2
    assert run.stderr.startswith(f"theme: scss/contrast-pairs.toml:{line}:14: unknown role 'asides-color'")
    assert "did you mean 'aside-color'?" in run.stderr and "Traceback" not in run.stderr


def test_pairs_option_reads_another_file_and_a_missing_file_is_exit_2(project):
    other = project / "mine.toml"
    other.write_text('[[pair]]\nname = "faint"\nforeground = "border-color"\n'
                     'background = "page-background"\nkind = "text"\n')
    run = theme("tokens", "--check-contrast", "--pairs", "mine.toml", cwd=project)
    assert run.returncode == 1 and len(run.stdout.splitlines()) == 2  # one pair, two schemes
    missing = theme("tokens", "--check-contrast", "--pairs", "nope.toml", cwd=project)
    assert missing.returncode == 2 and missing.stderr.startswith("theme: nope.toml:1:1: cannot read")


def test_html_writes_the_token_page_atomically_and_deterministically(project):
    out = project / "docs/tokens.html"
    first = theme("tokens", "--html", "docs/tokens.html", cwd=project)
    assert first.returncode == 0, first.stderr
    page = out.read_bytes()
    assert page.startswith(b"<!DOCTYPE html>") and b"--theme-note-box-background" in page
    assert not [p for p in out.parent.iterdir() if p.name.endswith(".tmp")]
    assert theme("tokens", "--html", "docs/tokens.html", cwd=project).returncode == 0
    assert out.read_bytes() == page
    # A file where its folder should be: exit 2, one line, nothing written.
    (project / "blocked").write_text("x")
    bad = theme("tokens", "--html", "blocked/tokens.html", cwd=project)
    assert bad.returncode == 2 and "cannot write the token page" in bad.stderr
    assert "Traceback" not in bad.stderr


@pytest.fixture
def adopted(tmp_path) -> Path:
    """What `theme init --scss` writes for the hand-written fixture (the plan, without the
    render proof the visual tests make), as a project `theme tokens` runs in."""
    from theme.init.adopt import convert, parse

    css = (REPO / "tests/fixtures/adopt/long/style.css").read_text(encoding="utf-8")
    for path, text in convert.plan(parse.items(css), "style.css").files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.theme]\nentry = "scss/style.scss"\noutputs = ["style.css"]\n')
    return tmp_path


def test_tokens_lists_each_primitive_of_an_adopted_scale_with_its_readers(adopted):
    run = theme("tokens", cwd=adopted)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    small = [" ".join(line.split()) for line in lines if line.startswith("$font-size-1 ")]
    assert small == ["$font-size-1 12px (font sizes) read by: d-byline, d-code, d-contents, d-footnote, note-box"]
    assert any(line.startswith("$space-1 ") and "(spaces)" in line for line in lines)
    assert any(line.startswith("$blue-600 ") and "#1a5fb4  (palette) read by:" in line for line in lines)
    scale = json.loads(theme("tokens", "--json", cwd=adopted).stdout)["scale"]
    assert len([p for p in scale if p["ladder"] != "palette"]) < 40
    assert all(p["readers"] for p in scale)  # every primitive is read by some component


def test_the_token_page_shows_the_scale_as_ramps_bars_and_swatches(adopted):
    assert theme("tokens", "--html", "tokens.html", cwd=adopted).returncode == 0
    page = (adopted / "tokens.html").read_text(encoding="utf-8")
    assert '<h2 id="scale">Scale</h2>' in page
    assert '<tr class="primitive" id="font-size-1" data-primitive="$font-size-1">' in page
    assert 'style="font-size: 12px"' in page and 'class="bar" style="width: 4px"' in page
    assert 'class="swatch" style="background: #1a5fb4"' in page
