"""A render is checked before it is trusted (issue 29), end to end in real pytest
subprocesses with a real Chromium: a page whose script, stylesheet or web font did not
load, that is wider than its viewport, or past the size budget fails its own variant,
in the update run and in the check run, names what and where, and never becomes a
baseline; the other variants go on. Also: the report is rewritten by every run that
checked images, pytest's collection count is true, and "partial run" means one.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from subrun import PYTEST

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PYPROJECT = """
[tool.theme.visual]
root = "site"
pages = [{pages}]
viewports = {{ {viewport} = [{width}, 360] }}
color_schemes = ["light"]
regions = {{ box = ".box" }}
{extra}
"""

STYLE = """body { margin: 0; font: 16px/1.4 sans-serif; }
.box { background: #3366cc; width: 120px; height: 40px; margin: 8px; }
"""

PAGE = """<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="style.css">
{head}</head>
<body><h2>Alpha</h2><div class="box"></div>{body}</body></html>
"""


def make(tmp_path: Path, pages: dict[str, tuple[str, str]], extra: str = "", style: str = STYLE,
         viewport: tuple[str, int] = ("desktop", 480)) -> Path:
    """A project whose site/ holds `pages`: name -> (extra head markup, extra body markup)."""
    (tmp_path / "site").mkdir(parents=True)
    (tmp_path / "site/style.css").write_text(style)
    for name, (head, body) in pages.items():
        (tmp_path / "site" / name).write_text(PAGE.format(head=head, body=body))
    listed = ", ".join(f'"{name}"' for name in pages)
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.format(pages=listed, extra=extra, viewport=viewport[0],
                                                              width=viewport[1]))
    return tmp_path


def run(project: Path, *args: str) -> subprocess.CompletedProcess:
    """pytest in `project`, not quiet: its header says how many items it collected."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_STEP_SUMMARY", "PYTEST_ADDOPTS")}
    return subprocess.run([*PYTEST, "-rA", *args],
                          cwd=project, env=env, capture_output=True, text=True)


def outcomes(proc: subprocess.CompletedProcess) -> dict[str, str]:
    return dict((m.group(2), m.group(1)) for m in
                re.finditer(r"^(PASSED|FAILED|ERROR) (\S+)", proc.stdout, re.MULTILINE))


def baselines(project: Path) -> list[str]:
    folder = project / "snapshots"
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.png")) if folder.exists() else []


def failure_text(proc: subprocess.CompletedProcess, item: str) -> str:
    """The failure section pytest printed for `item` (its one-line message)."""
    m = re.search(rf"_+ {re.escape(item)} _+\n(.*?)\n(?:_{{3,}}|-{{3,}})", proc.stdout, re.DOTALL)
    assert m, proc.stdout[-3000:]
    return m.group(1)


BLOCKED = '<script src="https://cdn.example.invalid/lib/runtime.js"></script>'


def test_a_blocked_script_fails_update_and_check_and_writes_nothing(tmp_path):
    project = make(tmp_path, {"index.html": (BLOCKED, "")})
    update = run(project, "--update-snapshots")
    assert update.returncode == 1, update.stdout[-2000:]
    assert outcomes(update) == {"index[desktop-light]::page": "FAILED"}
    text = failure_text(update, "index[desktop-light]::page")
    assert "https://cdn.example.invalid/lib/runtime.js" in text
    assert f"{project / 'site/index.html'}:3:9" in text  # the <script src> that asked for it
    assert "route" in text and "allow_blocked" in text
    assert baselines(project) == []  # never a baseline from such a render
    check = run(project)
    assert check.returncode == 1 and outcomes(check) == {"index[desktop-light]::page": "FAILED"}
    assert "collected 1 item" in check.stdout
    assert "partial run" not in check.stdout  # nothing was deselected
    assert "1 variant(s) not checked: their render failed (index/desktop-light)" in check.stdout


def test_allow_blocked_names_a_request_blocked_on_purpose(tmp_path):
    project = make(tmp_path, {"index.html": (BLOCKED, "")},
                   extra='allow_blocked = ["https://cdn.example.invalid/lib/"]')
    update = run(project, "--update-snapshots")
    assert update.returncode == 0, update.stdout[-2000:]
    assert baselines(project) == ["index/desktop-light/box/alpha.png", "index/desktop-light/page.png"]
    assert "aborted external request in index[desktop-light]: https://cdn.example.invalid/lib/runtime.js" \
        in update.stdout  # still listed
    assert run(project).returncode == 0


def test_a_blocked_web_font_fails_naming_its_font_face_rule(tmp_path):
    style = STYLE + ('@font-face { font-family: "Brand"; src: url("https://fonts.example.invalid/brand.woff2") '
                     'format("woff2"); }\nh2 { font-family: "Brand", serif; }\n')
    project = make(tmp_path, {"index.html": ("", "")}, style=style)
    proc = run(project, "--update-snapshots")
    text = failure_text(proc, "index[desktop-light]::page")
    assert "the page's web font https://fonts.example.invalid/brand.woff2 did not load" in text
    assert f'@font-face "Brand" in {project / "site/style.css"}:3:' in text
    assert baselines(project) == []


def test_a_missing_local_stylesheet_fails_with_its_http_status(tmp_path):
    project = make(tmp_path, {"index.html": ('<link rel="stylesheet" href="gone.css">', "")})
    proc = run(project, "--update-snapshots")
    text = failure_text(proc, "index[desktop-light]::page")
    assert "the page's stylesheet /gone.css did not load: it failed (HTTP 404)" in text
    assert f"{project / 'site/index.html'}:3:" in text and f"add gone.css under {project / 'site'}" in text
    assert baselines(project) == []


def test_a_route_without_the_file_says_where_to_put_it(tmp_path):
    """A route of the user's: init leaves it as it is, so running init is no help (issue 50)."""
    vendor = tmp_path / "vendor/lib"
    vendor.mkdir(parents=True)
    project = make(tmp_path, {"index.html": (BLOCKED, "")},
                   extra=f'route = {{ "https://cdn.example.invalid/lib/" = "{vendor}" }}')
    text = failure_text(run(project, "--update-snapshots"), "index[desktop-light]::page")
    assert "its `route` has no such file" in text and f"put runtime.js in {vendor}" in text
    assert "theme init" not in text


THREE = "".join(f'<script src="https://cdn.example.invalid/lib/{name}.js"></script>\n' for name in "abc")


def test_a_pages_blocked_scripts_are_named_once_in_a_run_of_two_variants(tmp_path):
    """Three scripts blocked, light and dark: one list of the three, each on a line of its own
    (never "(and 2 more)"), said once for the page; the other variant points at it. init has
    run (vendor/VENDORED.md) and could not help, so the hint does not send the user back to it."""
    project = make(tmp_path, {"index.html": (THREE, "")})
    config = project / "pyproject.toml"
    config.write_text(config.read_text().replace('color_schemes = ["light"]', 'color_schemes = ["light", "dark"]'))
    (project / "vendor").mkdir()
    (project / "vendor/VENDORED.md").write_text("# Vendored by theme init\n")
    update = run(project, "--update-snapshots")
    assert update.returncode == 1
    assert outcomes(update) == {"index[desktop-light]::page": "FAILED", "index[desktop-dark]::page": "FAILED"}
    light = failure_text(update, "index[desktop-light]::page")
    dark = failure_text(update, "index[desktop-dark]::page")
    urls = [f"https://cdn.example.invalid/lib/{name}.js" for name in "abc"]
    for n, url in enumerate(urls):
        assert light.count(url) == 1 and update.stdout.count(url) == 1, update.stdout[-3000:]
        assert f"  - the page's script {url} did not load: it was blocked" in light
        assert f"a <script src> at {project / 'site/index.html'}:{3 + n}:9" in light
    assert "more)" not in update.stdout and "and 2 more" not in update.stdout
    assert dark == ("index.html (desktop-dark): not checked, no baseline written: the same 3 resources the page "
                    "needs did not load, named with what to do at index.html (desktop-light)")
    assert '`route = { "https://cdn.example.invalid/lib/" = "FOLDER" }`' in light and "allow_blocked" in light
    assert "theme init" not in update.stdout
    assert baselines(project) == []
    # `-k dark` deselects the light page's item, which named them at render: the dark one does.
    dark_only = run(project, "--update-snapshots", "-k", "dark")
    assert outcomes(dark_only) == {"index[desktop-dark]::page": "FAILED"}, dark_only.stdout[-3000:]
    said = failure_text(dark_only, "index[desktop-dark]::page")
    assert all(f"  - the page's script {url} did not load: it was blocked" in said for url in urls), said
    assert "named with what to do at" not in dark_only.stdout
    assert baselines(project) == []


def test_one_broken_page_fails_alone_and_the_others_are_written(tmp_path):
    project = make(tmp_path, {"broken.html": (BLOCKED, ""), "index.html": ("", "")})
    proc = run(project, "--update-snapshots")
    assert outcomes(proc) == {"broken[desktop-light]::page": "FAILED", "index[desktop-light]::page": "PASSED",
                              "index[desktop-light]::box/alpha": "PASSED"}
    assert baselines(project) == ["index/desktop-light/box/alpha.png", "index/desktop-light/page.png"]
    # Once the page is fixed, its own baselines are made; the other page's are not unused.
    (project / "site/broken.html").write_text(PAGE.format(head="", body=""))
    fixed = run(project, "--update-snapshots")
    assert fixed.returncode == 0, fixed.stdout[-2000:]
    assert "broken/desktop-light/page.png" in baselines(project)


def test_a_page_wider_than_its_viewport_fails_naming_the_widest_element(tmp_path):
    wide = '<div id="strip" style="width:3000px;height:20px;background:#c33"></div>'
    project = make(tmp_path, {"index.html": ("", wide)}, viewport=("mobile", 390))
    proc = run(project, "--update-snapshots")
    text = failure_text(proc, "index[mobile-light]::page")
    assert "the page is 3000 px wide in a 390 px viewport" in text
    assert "div#strip reaches x=3000 (3000 px wide)" in text and "allow_overflow" in text
    assert baselines(project) == []
    allowed = make(tmp_path / "allowed", {"index.html": ("", wide)}, extra='allow_overflow = ["index.html"]',
                   viewport=("mobile", 390))
    assert run(allowed, "--update-snapshots").returncode == 0


def test_a_page_past_the_size_budget_says_so_before_its_tiles(tmp_path):
    tall = '<div style="height:5000px"></div>'
    project = make(tmp_path, {"index.html": ("", tall)}, extra="max_page_pixels = 1000000")
    text = failure_text(run(project, "--update-snapshots"), "index[desktop-light]::page")
    assert re.search(r"the page image would be 480 × 5\d{3} px \(\d+ M px, [\d.]+ GiB of RGBA", text), text
    assert "max_page_pixels = 1000000" in text
    assert baselines(project) == []


def test_the_report_is_rewritten_by_every_run_that_checked_images(tmp_path):
    project = make(tmp_path, {"index.html": ("", "")})
    assert run(project, "--update-snapshots").returncode == 0
    (project / "site/style.css").write_text(STYLE.replace("#3366cc", "#cc3333"))
    failing = run(project)
    assert failing.returncode == 1
    report = project / "visual-report"
    assert json.loads((report / "report.json").read_text())["counts"]["failed"] == 2
    assert any((report / "images").rglob("*.png"))
    (project / "site/style.css").write_text(STYLE)
    clean = run(project)
    assert clean.returncode == 0
    counts = json.loads((report / "report.json").read_text())["counts"]
    assert counts.get("failed", 0) == 0 and counts["matched"] == 2
    assert not (report / "images").exists() or not any((report / "images").rglob("*.png"))
    assert "collected 2 items" in clean.stdout


def test_partial_run_is_said_only_with_its_reason(tmp_path):
    project = make(tmp_path, {"index.html": ("", "")})
    assert run(project, "--update-snapshots").returncode == 0
    whole = run(project)
    assert "partial run" not in whole.stdout
    some = run(project, "-k", "box")
    assert "unused-baseline check skipped: partial run (-k)" in some.stdout
