"""Closing the review loop without a re-run: accept from a report, merge sharded reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tiny_article import outcomes, run, set_box_colour

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def theme(project: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "theme", *args, "-C", str(project)],
                          capture_output=True, text=True)


def test_accept_round_trip_and_fingerprint_refusal(project: Path) -> None:
    assert run(project, "--update-snapshots").returncode == 0
    set_box_colour(project, "#cc3333")
    assert run(project).returncode == 1
    report = project / "visual-report"

    # a report made in another environment is refused, and nothing is written
    data = json.loads((report / "report.json").read_text())
    pristine = json.dumps(data)
    data["environment"]["browser"]["version"] = "999.0.0.0"
    (report / "report.json").write_text(json.dumps(data))
    before = (project / "snapshots/index/desktop-light/box/alpha.png").read_bytes()
    refused = theme(project, "accept", str(report))
    assert refused.returncode == 2
    assert "refusing to accept: environment drift" in refused.stderr and "--force" in refused.stderr
    assert (project / "snapshots/index/desktop-light/box/alpha.png").read_bytes() == before
    (report / "report.json").write_text(pristine)

    only = theme(project, "accept", str(report), "--only", "*/box/alpha.png")
    assert only.returncode == 0 and only.stdout.splitlines()[0] == "accepted  index/desktop-light/box/alpha.png"
    assert "1 baseline(s) accepted" in only.stdout
    partial = run(project)
    failed = {i for i, o in outcomes(partial).items() if o == "FAILED"}
    assert "index[desktop-light]::box/alpha" not in failed and "index[desktop-light]::box/beta" in failed

    rest = theme(project, "accept", str(report))
    assert rest.returncode == 0
    # an accepted region baseline keeps its CSS box, as one written by --update-snapshots does
    boxes = {e["key"]: e.get("box") for e in data["entries"]}
    manifest = json.loads((project / "snapshots/manifest.json").read_text())["baselines"]
    assert boxes["index/desktop-light/box/beta.png"] is not None
    assert manifest["index/desktop-light/box/beta.png"]["box"] == boxes["index/desktop-light/box/beta.png"]
    assert run(project).returncode == 0  # fail -> accept -> pass, with no re-capture in between


def test_shards_merge_into_one_report_that_finds_unused(project: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('["light"]', '["light", "dark"]'))
    assert run(project, "--update-snapshots").returncode == 0
    stray = project / "snapshots/index/desktop-light/box/gone.png"
    stray.write_bytes((project / "snapshots/index/desktop-light/box/alpha.png").read_bytes())
    set_box_colour(project, "#cc3333")
    shards = []
    for i in (1, 2):
        out = project / f"shard-{i}"
        proc = run(project, "--visual-only", "--visual-shard", f"{i}/2", "--visual-report", str(out))
        assert len(outcomes(proc)) == 5  # one of the two variants each, page + 4 regions
        assert "unused-baseline check skipped: partial run" in proc.stdout  # shards never judge unused
        shards.append(out)
    merged = theme(project, "report", "merge", *map(str, shards), "--out", str(project / "merged"))
    assert merged.returncode == 1
    data = json.loads((project / "merged/report.json").read_text())
    statuses = {e["key"]: e["status"] for e in data["entries"]}
    assert statuses["index/desktop-light/box/gone.png"] == "unused"
    assert statuses["index/desktop-light/box/alpha.png"] == "failed"
    assert statuses["index/desktop-light/card/alpha.png"] == "matched"
    assert (project / "merged/index.html").is_file()
