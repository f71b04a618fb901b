"""The review folder: Markdown summary (golden), JSON round trip, self-contained images."""

import json

import numpy as np
from PIL import Image

from theme.review import report

DIFF = {"diff_pixels": 1234, "ratio": 0.0012, "failed_rule": "1,234 pixels differ, more than max_diff_pixels = 0",
        "size_mismatch": False, "expected_size": [640, 200], "actual_size": [640, 200], "shifts": [], "boxes": []}


def sample(tmp_path):
    art = tmp_path / "art"
    art.mkdir(exist_ok=True)
    for kind in ("expected", "actual", "diff"):
        Image.fromarray(np.zeros((4, 4, 4), np.uint8)).save(art / f"{kind}.png")
    return report.Report((
        report.Entry(key="index/desktop-dark/note-box/memory.png", status="failed", page="index",
                     viewport="desktop", scheme="dark", region_key="note-box", region_name="memory",
                     heading="Memory", diff=DIFF,
                     images={k: str(art / f"{k}.png") for k in ("expected", "actual", "diff")}),
        report.Entry(key="index/desktop-dark/page.png", status="matched", page="index"),
        report.Entry(key="index/mobile-light/code/setup.png", status="created", page="index",
                     region_key="code", heading="Setup"),
        report.Entry(key="index/old/page.png", status="unused"),
    ), {"browser": "chromium"}, None)


def test_markdown_summary_golden(tmp_path):
    assert report.to_markdown(sample(tmp_path)).splitlines() == [
        "## Visual check",
        "",
        "**1** failed · **1** created · **1** unused · **1** matched",
        "",
        "**Failures by cause**",
        "",
        "1. 1 note-box: no style record to compare with (baselines made before records were; "
        "--update-snapshots=all records them)  ",
        "   `index/desktop-dark/note-box/memory.png`",
        "",
        "| status | image | where | difference | files |",
        "|---|---|---|---|---|",
        f"| failed | `index/desktop-dark/note-box/memory.png` | note-box in “Memory” | "
        f"1,234 pixels differ, more than max_diff_pixels = 0 | `{tmp_path}/art/expected.png` · "
        f"`{tmp_path}/art/actual.png` · `{tmp_path}/art/diff.png` |",
        "| created | `index/mobile-light/code/setup.png` | code in “Setup” |  |  |",
        "",
        "Unused baselines:",
        "- `index/old/page.png`",
        "",
    ]


def test_write_copies_images_and_round_trips(tmp_path):
    out = tmp_path / "visual-report"
    index = report.write(out, sample(tmp_path))
    assert index == out / "index.html" and index.is_file()
    back = report.from_json((out / "report.json").read_text())
    failed = next(e for e in back.entries if e.status == "failed")
    assert failed.images == {k: f"images/index/desktop-dark/note-box/memory.{k}.png"
                             for k in ("expected", "actual", "diff")}
    assert all((out / p).is_file() for p in failed.images.values())
    assert "`images/index/desktop-dark/note-box/memory.diff.png`" in (out / "summary.md").read_text()
    assert back.counts() == {"failed": 1, "matched": 1, "created": 1, "unused": 1}
    # the page carries its data inline: nothing to fetch
    html = index.read_text()
    assert "http://" not in html and "https://" not in html


def test_step_summary_appends_only_when_set(tmp_path):
    target = tmp_path / "summary"
    target.write_text("before\n")
    assert report.append_step_summary(sample(tmp_path), {"GITHUB_STEP_SUMMARY": str(target)})
    assert target.read_text().startswith("before\n## Visual check")
    assert report.append_step_summary(sample(tmp_path), {}) is False


def test_merge_keeps_one_entry_per_key(tmp_path):
    a = sample(tmp_path)
    b = report.Report((report.Entry(key="index/desktop-dark/page.png", status="failed"),), {}, None)
    merged = report.merge([a, b])
    assert {e.key: e.status for e in merged.entries}["index/desktop-dark/page.png"] == "failed"
    assert len(merged.entries) == 4
    json.loads(report.to_json(merged))


def test_markdown_counts_regions_that_matched_only_at_their_baselines_phase(tmp_path):
    entries = (
        report.Entry(key="index/desktop-light/code/a.png", status="matched", realigned=True),
        report.Entry(key="index/desktop-light/code/b.png", status="matched", realigned=True),
        report.Entry(key="index/desktop-light/code/c.png", status="matched"),
    )
    text = report.to_markdown(report.Report(entries, {}, None))
    assert "2 matched only at their baseline's sub-pixel position" in text
    assert "**3** matched" in text
    # and the flag survives the JSON a merged report is built from
    back = report.from_json(report.to_json(report.Report(entries, {}, None)))
    assert [e.realigned for e in back.entries] == [True, True, False]
    assert "sub-pixel" not in report.to_markdown(report.Report(entries[2:], {}, None))


def test_merged_shards_do_not_call_a_failed_render_unused():
    # Shard 1 checked index/desktop-light; shard 2's index/desktop-dark failed to render, so
    # none of its baselines were checked: they wait for a render that works, they are not unused.
    light = report.Report((report.Entry(key="index/desktop-light/page.png", status="matched"),),
                          collected=("index/desktop-light/page.png",), pages=("index",))
    dark = report.Report((), pages=("index",), unchecked=("index/desktop-dark",))
    shards = [report.from_json(report.to_json(r)) for r in (light, dark)]  # as the report folders hold them
    baselines = ["index/desktop-light/page.png", "index/desktop-light/box/gone.png",
                 "index/desktop-dark/page.png", "index/desktop-dark/box/a.png", "other/desktop-light/page.png"]
    merged = report.merge(shards, baselines)
    assert {e.key: e.status for e in merged.entries} == {
        "index/desktop-light/page.png": "matched", "index/desktop-light/box/gone.png": "unused"}
    assert merged.unchecked == ("index/desktop-dark",)


def test_a_focused_link_says_in_report_json_that_it_inherited_its_paragraphs_change():
    """Issue 49: an entry's `why` is written before the run's other failures are known; the
    report tells it with its group, so the card and report.json say where it came from."""
    page = report.Entry(key="index/mobile-light/page.png", status="failed", page="index", diff=DIFF,
                        style_changes=(("d-article > p", "line-height", "22.4px", "26.6px"),),
                        why="index/mobile-light/page.png: whole page: `d-article > p` line-height 22.4px → 26.6px")
    link = report.Entry(key="index/mobile-light/state/link-focus/focused/link.png", status="failed", page="index",
                        region_key="focused", heading="Introduction", diff=DIFF,
                        selector="body > d-article > p:nth-of-type(4) > span",
                        style_changes=(("a", "line-height", "22.4px", "26.6px"),),
                        why="focused in “Introduction”: `a` line-height 22.4px → 26.6px")
    written = json.loads(report.to_json(report.Report((page, link), {}, None)))
    whys = {e["key"]: e["why"] for e in written["entries"]}
    assert whys[link.key] == ("focused in “Introduction”: `a` line-height 22.4px → 26.6px, "
                              "inherited from `d-article > p`")
    assert whys[page.key] == page.why
    again = report.to_json(report.from_json(report.to_json(report.Report((page, link), {}, None))))
    assert json.loads(again)["entries"] == written["entries"]  # a report read back and written says it once


def test_pages_whose_baselines_predate_flow_records_are_said_once(tmp_path):
    """Issue 49: a failed page whose baseline was recorded before theme kept its text flow is
    told by rows; the run says so once, whatever the number of such pages, and says how to
    record them. A page with both records says nothing of it."""
    from theme.baselines import style_record as styles
    from theme.check.causes import unrecorded_flow
    from theme.check.entry import Styled

    flow = styles.from_page({"d-article > p": {"line-height": "27px", "count": "40", "sections": "3"}})
    assert Styled(None, flow).fields("index/desktop-light/page.png", None).get("flow_unrecorded") is True
    assert "flow_unrecorded" not in Styled(flow, flow).fields("index/desktop-light/page.png", None)

    pages = tuple(report.Entry(key=f"index/{v}/page.png", status="failed", page="index", diff=DIFF,
                               flow_unrecorded=True) for v in ("desktop-light", "mobile-light"))
    text = report.to_markdown(report.Report(pages, {}, None))
    line = unrecorded_flow(2)
    assert line.startswith("2 failed whole pages: their baselines were recorded before theme kept a page's "
                           "text-flow record") and "--update-snapshots=all" in line
    assert text.count("text-flow record") == 1 and line in text
    assert unrecorded_flow(0) == ""
