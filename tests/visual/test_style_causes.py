"""Failures explained in CSS terms and grouped by cause, end to end: the specimen (article/dist,
copied) checked by pytest in a real Chromium with its baselines and style records, then with one
rule changed and one caption reworded, then with a colour changed, a font file swapped and a
figure's image file redrawn; `theme why` on a failure.

Desktop only (light and dark): each pytest run captures two variants. The runs are shared by
the tests of this module: one baseline run, one refresh, two changed runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from subrun import PYTEST
from theme.baselines.style_record import PIXELS_ONLY

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
DIST = REPO / "article" / "dist"
BROWSER = os.environ.get("THEME_BROWSER", "/usr/bin/chromium")
PYPROJECT = """\
[tool.theme.visual]
root = "dist"
pages = ["index.html"]
viewports = { desktop = [1280, 800] }
color_schemes = ["light", "dark"]
full_page = true
regions = { note-box = ".note-box", code = "d-code[block]", math = "d-math[block]", figure = "figure" }
offline = true
route = { "https://distill.pub/third-party/katex/" = "dist/assets/katex" }
"""
BIGGER = "\n.note-box-content { font-size: 13px; }\n"  # the specimen's is 12px
REWORDED = ("1F1B wins on memory,", "1F1B wins on peak memory,")  # in Figure 4's caption
# far enough for pixelmatch's threshold (0.1) to see it on every dark note-box
DARK_BACKGROUND = ("--theme-note-box-background: #121b2b;", "--theme-note-box-background: #5a1b2b;")
FONTS = DIST / "assets" / "fonts"
CHART = "assets/images/bubble-fraction.svg"  # Figure 5's image, under “How big is the bubble”
RECOLOURED_LINE = ('fill="#d9822b"', 'fill="#b9422b"')  # one of its four curves' colour
BODY_TEXT = "\nd-article p { line-height: 1.9; }\n"  # issue 49: the body text, which no region covers
SCALED = "\nd-article { font-size: 1.1em; }\n"  # the seeds' first change, the other way: the specimen's is 1.04em


def pytest_run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    return subprocess.run([*PYTEST, "--visual-only", *args],
                          cwd=project, env=env, capture_output=True, text=True)


def theme(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "theme", *args], cwd=project, env=env, capture_output=True, text=True)


def failed_entries(project: Path) -> dict[str, dict]:
    rep = json.loads((project / "visual-report" / "report.json").read_text(encoding="utf-8"))
    return {e["key"]: e for e in rep["entries"] if e["status"] == "failed"}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The specimen's copy with baselines made, then refreshed with --update-snapshots=all;
    styles.json after each run is kept beside it (styles.1.json, styles.2.json)."""
    if not Path(BROWSER).exists():
        pytest.skip(f"no browser at {BROWSER}; set THEME_BROWSER or run `theme setup`")
    root = tmp_path_factory.mktemp("specimen")
    shutil.copytree(DIST, root / "dist")
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    for n, flag in enumerate(("--update-snapshots", "--update-snapshots=all"), 1):
        done = pytest_run(root, flag)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        said = next(line for line in done.stdout.splitlines() if line.startswith("theme: "))
        assert "failed" in said and "updated" not in said, said  # reading styles changed no pixel
        shutil.copyfile(root / "snapshots" / "styles.json", root / f"styles.{n}.json")
    return root


@pytest.fixture(scope="module")
def bigger(project: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, dict]]:
    """One run with `.note-box-content` at 13px and a few words of Figure 4's caption changed:
    its terminal output and its failed entries."""
    css, html = project / "dist" / "style.css", project / "dist" / "index.html"
    original, page = css.read_text(encoding="utf-8"), html.read_text(encoding="utf-8")
    assert page.count(REWORDED[0]) == 1
    css.write_text(original + BIGGER, encoding="utf-8")
    html.write_text(page.replace(*REWORDED), encoding="utf-8")
    try:
        done = pytest_run(project, "-rf")
        assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
        return done, failed_entries(project)
    finally:  # at once: the next run starts from the specimen as it is
        css.write_text(original, encoding="utf-8")
        html.write_text(page, encoding="utf-8")


@pytest.fixture(scope="module")
def recoloured(project: Path, bigger) -> dict[str, dict]:
    """One run with the dark note-box background changed, JetBrains Mono's regular file
    swapped for its bold one (same metrics, other glyphs) and one curve of Figure 5's chart
    redrawn in another colour: its failed entries."""
    css = project / "dist" / "style.css"
    regular = project / "dist" / "assets" / "fonts" / "jetbrains-mono-latin-400-normal.woff2"
    chart = project / "dist" / CHART
    original, drawn = css.read_text(encoding="utf-8"), chart.read_text(encoding="utf-8")
    assert original.count(DARK_BACKGROUND[0]) == 2  # the media query and [data-theme="dark"]
    css.write_text(original.replace(*DARK_BACKGROUND), encoding="utf-8")
    shutil.copyfile(FONTS / "jetbrains-mono-latin-700-normal.woff2", regular)
    chart.write_text(drawn.replace(*RECOLOURED_LINE), encoding="utf-8")
    try:
        done = pytest_run(project)
        assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
        return failed_entries(project)
    finally:
        css.write_text(original, encoding="utf-8")
        shutil.copyfile(FONTS / "jetbrains-mono-latin-400-normal.woff2", regular)
        chart.write_text(drawn, encoding="utf-8")


def test_the_style_record_is_byte_identical_across_two_captures_of_the_unchanged_specimen(project):
    """Region records and the pages' text-flow records (issue 49) alike."""
    first = (project / "styles.1.json").read_bytes()
    assert first == (project / "styles.2.json").read_bytes()
    records = json.loads(first)
    manifest = json.loads((project / "snapshots" / "manifest.json").read_text(encoding="utf-8"))
    regions = {k for k in manifest["baselines"] if not k.endswith("/page.png")}
    pages = {k for k in manifest["baselines"] if k.endswith("/page.png")}
    assert set(records) == regions | pages and len(regions) > 40  # every baseline has its record
    assert len(first.decode().splitlines()) == len(regions) + len(pages) + 2  # one image a line
    flow = records["index/desktop-light/page.png"]  # the body text by kinds, counted
    assert int(flow["d-article p"]["count"]) > 20 and int(flow["d-article p"]["sections"]) > 5
    assert int(flow["d-article div.note-box-content > p"]["count"]) >= 12  # in the note-boxes, apart


def test_every_note_box_failure_names_the_rule_and_one_group_holds_them_all(project, bigger):
    done, failed = bigger
    boxes = {k: e for k, e in failed.items() if e["region_key"] == "note-box"}
    assert len(boxes) >= 12  # every note-box of both schemes
    assert all("`.note-box-content` font-size 12px → 13px" in e["why"] for e in boxes.values()), \
        [e["why"] for e in boxes.values()]
    assert all(e["why"] in e["message"] for e in boxes.values())  # the FAILURES block says it too
    groups = json.loads((project / "visual-report" / "report.json").read_text(encoding="utf-8"))["groups"]
    holding = [g for g in groups if set(g["ids"]) & set(boxes)]
    # The whole pages too (issue 49): their text flow shows the same rule, in the note-boxes' text.
    pages = {"index/desktop-dark/page.png", "index/desktop-light/page.png"}
    assert len(holding) == 1 and set(holding[0]["ids"]) == set(boxes) | pages and holding[0]["number"] == 1
    summary = (project / "visual-report" / "summary.md").read_text(encoding="utf-8")
    assert summary.index("**Failures by cause**") < summary.index("| status | image |")
    assert (f"1. {len(boxes) + 2} images ({len(boxes)} note-boxes, 2 whole pages): `.note-box-content` font-size "
            "12px → 13px") in summary


def test_a_reworded_caption_names_its_words_not_an_image(project, bigger):
    """Text is part of the record: the figure whose caption changed says which words, in one
    group of its own (light and dark), and is not put down to an image, a canvas or a font."""
    _, failed = bigger
    figures = {k: e for k, e in failed.items() if e["region_key"] == "figure" and e["style_changes"]}
    words = ("`figcaption` text “…equal; 1F1B wins on memory, because each GPU…” → "
             "“…equal; 1F1B wins on peak memory, because each GPU…”")
    assert sorted(figures) == ["index/desktop-dark/figure/two-schedules.png",
                               "index/desktop-light/figure/two-schedules.png"], sorted(figures)
    assert all(words in e["why"] for e in figures.values()), [e["why"] for e in figures.values()]
    groups = json.loads((project / "visual-report" / "report.json").read_text(encoding="utf-8"))["groups"]
    mine = [g for g in groups if set(g["ids"]) & set(figures)]
    assert len(mine) == 1 and set(mine[0]["ids"]) == set(figures) and mine[0]["cause"] == "style"
    assert mine[0]["summary"].startswith(f"2 figures: {words}")
    assert not any(PIXELS_ONLY in e["why"] for e in failed.values() if e["region_key"])


def test_the_terminal_groups_them_in_at_most_25_lines_and_keeps_every_failed_line(bigger):
    done, failed = bigger
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if " groups by cause:" in line)
    end = lines.index("-rf or -v lists every failed image")
    assert end - start + 1 <= 25
    assert lines[start].startswith(f"{len(failed)} failed images in ")
    assert "note-boxes, 2 whole pages): `.note-box-content` font-size 12px → 13px" in lines[start + 1]
    failed_lines = {line.split(" - ")[0] for line in lines if line.startswith("FAILED ")}
    assert len(failed_lines) == len(failed)  # pytest's own line for every item, as always
    assert "FAILED index[desktop-dark]::page" in failed_lines
    # More than 10 visual failures: each FAILURES block is its first line and its why.
    section = next(i for i, x in enumerate(lines) if " theme snapshots " in x)
    blocks = "\n".join(lines[next(i for i, x in enumerate(lines) if "= FAILURES =" in x) + 1:section])
    bodies = [b.strip().splitlines() for b in re.split(r"^_{3,} .+ _{3,}$", blocks, flags=re.M)[1:]]
    assert len(bodies) == len(failed) and all(len(b) <= 2 for b in bodies), bodies[:3]
    note_box = next(b for b in bodies if "/note-box/" in b[0])
    assert note_box[1].strip().startswith("why: note-box in “") and "font-size 12px → 13px" in note_box[1]


def test_theme_why_explains_one_failure(project, bigger):
    _, failed = bigger
    key = min(k for k, e in failed.items() if e["region_key"] == "note-box")
    folder, variant, kind, name = key[:-4].split("/")
    done = theme(project, "why", f"{folder}[{variant}]::{kind}/{name}")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0] == f"{folder}[{variant}]::{kind}/{name}  ({key})"
    assert "style:  `.note-box-content` font-size 12px → 13px" in out
    assert any(line.startswith("box:    ") and "height" in line for line in out)
    assert any(line.startswith("group:  1 of ") for line in out)
    assert any(line.startswith("diff:    ") and Path(line.split(None, 1)[1]).is_file() for line in out)
    unknown = theme(project, "why", "index[desktop-dark]::note-box/no-such-box")
    assert unknown.returncode == 2 and len(unknown.stderr.strip().splitlines()) == 1
    assert "theme why --list" in unknown.stderr


def failing_run_with(project: Path, rule: str) -> tuple[subprocess.CompletedProcess[str], dict[str, dict]]:
    """One run with `rule` appended to the specimen's style.css (taken out after): its output,
    which must fail, and its failed entries."""
    css = project / "dist" / "style.css"
    original = css.read_text(encoding="utf-8")
    css.write_text(original + rule, encoding="utf-8")
    try:
        done = pytest_run(project)
        assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
        return done, failed_entries(project)
    finally:
        css.write_text(original, encoding="utf-8")


@pytest.fixture(scope="module")
def flowed(project: Path, recoloured) -> tuple[subprocess.CompletedProcess[str], dict[str, dict]]:
    """One run with the body text's line height changed (issue 49): its output and failed entries."""
    return failing_run_with(project, BODY_TEXT)


def test_a_change_to_body_text_is_told_by_its_kind_of_element_first(project, flowed):
    """Issue 49: `d-article p { line-height: 1.9 }` reaches no region of its own. The first group
    names the paragraphs' line height, old and new; both whole pages are in it, each saying how
    far the change reached and what inherited it; no line of coordinates stands in for it."""
    done, failed = flowed
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if " by cause:" in line)
    assert lines[start + 1].startswith("  1. ") and "`d-article p` line-height 30.056px → 33.592px" in lines[start + 1]
    assert lines.index("-rf or -v lists every failed image") - start + 1 <= 25
    pages = {k: e for k, e in failed.items() if k.endswith("/page.png")}
    assert sorted(pages) == ["index/desktop-dark/page.png", "index/desktop-light/page.png"]
    for e in pages.values():
        assert e["why"].startswith("whole page: `d-article p` line-height 30.056px → 33.592px"), e["why"]
        assert re.search(r"\(`d-article p`: \d+ elements, in \d+ sections", e["why"]), e["why"]
        assert "inherited from `d-article p` by " in e["why"] and "outside any region" not in e["message"]
    groups = json.loads((project / "visual-report" / "report.json").read_text(encoding="utf-8"))["groups"]
    assert groups[0]["number"] == 1 and set(pages) <= set(groups[0]["ids"])


@pytest.fixture(scope="module")
def scaled(project: Path, flowed) -> tuple[subprocess.CompletedProcess[str], dict[str, dict]]:
    """One run with the article's font scale changed (issue 49): its output and failed entries."""
    return failing_run_with(project, SCALED)


def test_the_articles_font_scale_is_one_group_and_says_how_far_the_page_grew(project, scaled):
    """Issue 49: `d-article { font-size }` is the whole text flow, not a component. Every failed
    image, both whole pages and each block of maths that scales with the text, is in one group,
    which names d-article's font size, old and new (a landmark is a kind of its own in the
    page's flow record); each page says how many elements the change reached, how tall the page
    grew and that the paragraphs inherited it, never a line of coordinates."""
    done, failed = scaled
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if " by cause:" in line)
    assert lines[start].endswith(f"{len(failed)} failed images in 1 group by cause:"), lines[start]
    assert re.match(r"  1\. \d+ images \(\d+ maths, 2 whole pages\): `d-article` font-size 17\.68px → 18\.7px",
                    lines[start + 1]), lines[start + 1]
    pages = {k: e for k, e in failed.items() if k.endswith("/page.png")}
    assert sorted(pages) == ["index/desktop-dark/page.png", "index/desktop-light/page.png"]
    for e in pages.values():
        grew = re.search(r"height (\d+) → (\d+) px \(`d-article`: (\d+) elements, in (\d+) sections", e["why"])
        assert grew and int(grew[2]) > int(grew[1]) and int(grew[3]) > 20, e["why"]
        assert re.search(r"inherited from `d-article` by [^;]*`d-article (> )?p`", e["why"]), e["why"]
        assert "outside any region" not in e["message"]
    assert {e["region_key"] for k, e in failed.items() if k not in pages} == {"math"}
    groups = json.loads((project / "visual-report" / "report.json").read_text(encoding="utf-8"))["groups"]
    assert len(groups) == 1 and set(groups[0]["ids"]) == set(failed), [g["summary"] for g in groups]


def test_a_colour_change_names_background_color_and_no_height(recoloured):
    dark = {k: e for k, e in recoloured.items() if e["region_key"] == "note-box" and "-dark/" in k}
    assert len(dark) >= 12  # every note-box of the dark scheme
    for e in dark.values():
        assert "background-color rgb(18, 27, 43) → rgb(90, 27, 43)" in e["why"], e["why"]
        assert "height" not in e["why"] and e["expected_box"][3] == e["box"][3]


def test_a_redrawn_image_file_is_named_with_both_digests(recoloured):
    """The record names the files a region draws from with their digests: the chart's figure
    says which file changed, in both schemes, and no other region names it."""
    def digest(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]

    drawn = (DIST / CHART).read_text(encoding="utf-8")
    said = f"file {CHART} changed (sha256 {digest(drawn)} → {digest(drawn.replace(*RECOLOURED_LINE))})"
    naming = {k for k, e in recoloured.items() if CHART in e["why"]}
    assert naming == {"index/desktop-dark/figure/how-big-is-the-bubble.png",
                      "index/desktop-light/figure/how-big-is-the-bubble.png"}, naming
    assert all(recoloured[k]["why"].endswith(f"“How big is the bubble”: {said}") for k in naming), \
        [recoloured[k]["why"] for k in naming]


def test_a_swapped_font_file_is_pixels_with_no_computed_style_changed(recoloured):
    light = {k: e for k, e in recoloured.items() if e["region_key"] and "-light/" in k and CHART not in e["why"]}
    assert light, "the bold glyphs under the regular name change the light note-boxes' inline code"
    assert all(e["why"].endswith(PIXELS_ONLY) and e["style_changes"] == [] for e in light.values()), \
        [e["why"] for e in light.values()]
