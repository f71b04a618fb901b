"""Failures explained and grouped where users read them: a region's entry (its sentence), the
pytest terminal summary (at most 25 lines), summary.md and report.json (groups first), from
real style records of the specimen (tests/fixtures/styles/specimen.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from theme.baselines import style_record as styles
from theme.capture.model import Region
from theme.check import causes
from theme.check.entry import Entry, Styled, cause_groups
from theme.review import report
from theme.review.runs.suite import Options, VisualRun

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "styles" / "specimen.json"
DIFF = {"diff_pixels": 900, "ratio": 0.01, "failed_rule": "900 pixels differ", "boxes": []}


@pytest.fixture(scope="module")
def data() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def entry(data: dict, region: str, after: str, key: str, *, recorded: bool = True) -> Entry:
    """A failed region's entry as the pipeline makes it: its records and boxes on both sides."""
    kind = region.split("/")[0]
    before, now = data["before"][region], data[after][region]
    styled = Styled(styles.from_page(before["styles"]) if recorded else None, styles.from_page(now["styles"]),
                    tuple(before["box"]), tuple(now["box"]))
    r = Region(kind, key.rsplit("/", 1)[1][:-4], (0, 0, 1, 1), "Why count", now["selector"], tuple(now["box"]))
    return Entry(key=key, status="failed", region_key=kind, heading="Why count", diff=DIFF, box=r.css_box,
                 **styled.fields(key, r))


def test_a_failed_note_box_says_its_rule_and_its_growth(data):
    e = entry(data, "note-box/0", "note13", "index/desktop-light/note-box/why-count.png")
    assert e.why == ("note-box in “Why count”: `.note-box-content` font-size 12px → 13px, "
                     "line-height 19.2px → 20.8px; height 89.56 → 92.78 px")
    assert ("div.note-box-content", "font-size", "12px", "13px") in e.style_changes
    back = Entry.from_json(json.loads(json.dumps(e.__dict__, default=list)))  # through report.json
    assert (back.style_changes, back.expected_box, back.failed()) == (e.style_changes, e.expected_box, e.failed())


def test_a_baseline_without_a_record_says_so_not_pixels(data):
    e = entry(data, "note-box/0", "note13", "index/desktop-light/note-box/why-count.png", recorded=False)
    assert e.why == "" and e.style_changes == ()
    [g] = cause_groups([e])
    assert g.cause is causes.Cause.UNRECORDED and "no style record" in g.summary


def many(data: dict, n: int) -> list[Entry]:
    """n note-box and figure failures of one change, and one page per variant."""
    out = []
    for i in range(n):
        folder = ("index/desktop-light", "index/desktop-dark", "index/mobile-light")[i % 3]
        region = ("note-box/0", "note-box/1", "figure/0")[i % 3]
        out.append(entry(data, region, "note13", f"{folder}/{region.split('/')[0]}/r-{i:03}.png"))
    out += [Entry(key=f"index/{v}/page.png", status="failed", diff=DIFF) for v in ("desktop-light", "desktop-dark")]
    return out


def test_the_terminal_shows_groups_in_at_most_25_lines_however_many_failed(data, tmp_path):
    run = VisualRun(None, tmp_path, Options())
    for e in many(data, 300):
        run.record(e.key, "failed", json.loads(json.dumps(e.__dict__, default=list)))
    lines = [text for text, _ in run.summary()]
    start = next(i for i, t in enumerate(lines) if "groups by cause" in t)
    block = lines[start:lines.index("-rf or -v lists every failed image") + 1]
    assert 3 < len(block) <= causes.BUDGET
    assert block[0] == "302 failed images in 3 groups by cause:"
    assert "200 note-boxes: `.note-box-content` font-size 12px → 13px" in block[1]
    assert block[3].endswith("2. 100 figures only moved by +9.66 px: content above them changed")
    assert lines[-1].startswith("theme: 0 matched, 302 failed")


def test_summary_md_and_report_json_put_the_groups_first(data):
    rep = report.Report(tuple(many(data, 9)), {}, None)
    md = report.to_markdown(rep).splitlines()
    first = md.index("**Failures by cause**")
    assert first == 4  # the title, the counts, then the story (issue 49): a PR comment's first screen
    assert first < md.index("| status | image | where | difference | files |")
    assert md[first + 2].startswith("1. 6 note-boxes: `.note-box-content` font-size 12px → 13px")
    groups = json.loads(report.to_json(rep))["groups"]
    assert [(g["cause"], g["count"]) for g in groups] == [("style", 6), ("moved", 3), ("page", 2)]
    assert groups[2]["pushed_by"] == [1]


def test_theme_why_explains_one_failure_of_a_written_report_and_refuses_an_unknown_id(data, tmp_path):
    from click.testing import CliRunner

    from theme.cli import main

    report.write(tmp_path / "visual-report", report.Report(tuple(many(data, 9)), {}, None))
    run = CliRunner().invoke(main, ["why", "index[desktop-light]::note-box/r-000", "--report",
                                    str(tmp_path / "visual-report")])
    assert run.exit_code == 0, run.output
    lines = run.output.splitlines()
    assert lines[0] == "index[desktop-light]::note-box/r-000  (index/desktop-light/note-box/r-000.png)"
    assert "style:  `.note-box-content` font-size 12px → 13px" in lines
    assert "box:    height 89.56 → 92.78 px" in lines
    assert any(line.startswith("group:  1 of 3: 6 note-boxes: ") for line in lines)
    listed = CliRunner().invoke(main, ["why", "--list", "--report", str(tmp_path / "visual-report")])
    assert "index[desktop-dark]::page" in listed.output.splitlines()
    unknown = CliRunner().invoke(main, ["why", "index[desktop-light]::nope", "--report",
                                        str(tmp_path / "visual-report")])
    assert unknown.exit_code == 2
    assert unknown.output.strip().endswith("list them with `theme why --list`")
