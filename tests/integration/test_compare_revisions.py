"""`theme compare --base REF [--head REF]` on a temporary git repository, in a real Chromium.

The project is tiny (one page, one 480×360 viewport, one scheme, two region
keys) and its two commits differ in one token, the colour of `.box`: the
comparison must name exactly the box region and the page, and not the card.
The project sits in a subfolder of the repository (`web/`), as in a monorepo.
The command runs as a subprocess, as a user or CI would run it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomlkit

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BROWSER = os.environ.get("THEME_BROWSER", "/usr/bin/chromium")

PYPROJECT = """\
[tool.theme]
entry = "scss/style.scss"
outputs = ["site/style.css"]

[tool.theme.visual]
root = "site"
pages = ["index.html"]
viewports = { small = [480, 360] }
color_schemes = ["light"]
regions = { box = ".box", card = ".card" }
report = "out/report"
"""

TOKENS = """\
$box-color: {box} !default;
$card-color: #43a047 !default;
"""

STYLE = """\
@import "tokens";
body { margin: 0; background: #fff; }
.box { width: 120px; height: 80px; margin: 20px; background: $box-color; }
.card { width: 200px; height: 60px; margin: 20px; background: $card-color; }
"""

PAGE = """\
<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="style.css"></head>
<body><h2>Tokens</h2><div class="box"></div><div class="card"></div></body></html>
"""

KEYS = {
    "page": "index/small-light/page.png",
    "box": "index/small-light/box/tokens.png",
    "card": "index/small-light/card/tokens.png",
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """The project folder `<git root>/web`: commit `one` (blue box), then `two` (red box), nothing else."""
    if not Path(BROWSER).exists():
        pytest.skip(f"no Chromium at {BROWSER} (set THEME_BROWSER)")
    top = tmp_path_factory.mktemp("compare") / "repo"
    root = top / "web"
    (root / "scss").mkdir(parents=True)
    (root / "site").mkdir()
    git(top, "init", "-q")
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "scss" / "style.scss").write_text(STYLE)
    (root / "scss" / "_tokens.scss").write_text(TOKENS.format(box="#1e88e5"))
    (root / "site" / "index.html").write_text(PAGE)
    (top / ".gitignore").write_text("out/\n")
    commit_all(top, "one")
    git(top, "tag", "one")
    (root / "scss" / "_tokens.scss").write_text(TOKENS.format(box="#e53935"))
    commit_all(top, "two")
    git(top, "tag", "two")
    return root


def theme(cwd: Path, *args: str, **extra_env: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}  # never the real CI's
    env.update(THEME_BROWSER=BROWSER, **extra_env)
    return subprocess.run([sys.executable, "-m", "theme", *args], cwd=cwd, env=env,
                          capture_output=True, text=True)


def entries(folder: Path) -> dict[str, dict]:
    data = json.loads((folder / "report.json").read_text())
    return {e["key"]: e for e in data["entries"]}


def test_one_token_changed_finds_the_box_and_the_page_not_the_card(repo, tmp_path):
    out = tmp_path / "report"
    run = theme(repo, "compare", "--base", "one", "--head", "two", "--out", str(out))
    assert run.returncode == 1, run.stderr
    found = entries(out)
    assert set(found) == set(KEYS.values())
    assert {k for k, e in found.items() if e["status"] == "failed"} == {KEYS["page"], KEYS["box"]}
    assert found[KEYS["card"]]["status"] == "matched"
    box = found[KEYS["box"]]
    assert box["region_key"] == "box" and box["heading"] == "Tokens"
    assert box["diff"]["diff_pixels"] > 0
    # base is "expected", head is "actual": the pixels prove which side is which
    from theme.pixels.images import read_png

    expected = read_png(out / box["images"]["expected"])
    actual = read_png(out / box["images"]["actual"])
    assert tuple(expected[40, 60, :3]) == (0x1E, 0x88, 0xE5)
    assert tuple(actual[40, 60, :3]) == (0xE5, 0x39, 0x35)
    assert (out / box["images"]["diff"]).is_file()
    assert "in: box in “Tokens”" in found[KEYS["page"]]["message"]
    assert "failed" in run.stdout and KEYS["box"] in run.stdout and KEYS["card"] not in run.stdout
    # both sides' style records, live: the box says its rule, and the terminal groups it
    assert box["why"] == "box in “Tokens”: background-color rgb(30, 136, 229) → rgb(229, 57, 53)"
    assert "  1. 1 box: background-color rgb(30, 136, 229) → rgb(229, 57, 53), heights unchanged" in run.stdout
    revisions = json.loads((out / "report.json").read_text())["environment"]["revisions"]
    assert revisions["base"]["commit"] == git(repo, "rev-parse", "one")
    assert revisions["head"]["commit"] == git(repo, "rev-parse", "two")


def test_identical_revisions_exit_0_with_every_image_matched(repo, tmp_path):
    """Run from elsewhere with -C; the step summary is appended when GitHub Actions asks for it."""
    out = tmp_path / "report"
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n")
    run = theme(tmp_path, "compare", "-C", str(repo), "--base", "two", "--head", "two",
                "--out", str(out), GITHUB_STEP_SUMMARY=str(summary))
    assert run.returncode == 0, run.stderr
    assert {e["status"] for e in entries(out).values()} == {"matched"}
    assert summary.read_text() == "earlier step\n" + (out / "summary.md").read_text()
    assert "**3** matched" in summary.read_text()


def test_default_head_is_the_working_tree_and_out_defaults_to_the_config(repo):
    """An uncommitted token change is compared (and the user's files and worktrees are left alone)."""
    tokens = repo / "scss" / "_tokens.scss"
    before_status = git(repo, "status", "--porcelain")
    tokens.write_text(TOKENS.format(box="#e53935").replace("#43a047", "#fdd835"))  # card only
    try:
        run = theme(repo, "compare", "--base", "two")
        after_status = git(repo, "status", "--porcelain")
    finally:
        tokens.write_text(TOKENS.format(box="#e53935"))
    assert run.returncode == 1, run.stderr
    found = entries(repo / "out" / "report")
    assert {k for k, e in found.items() if e["status"] == "failed"} == {KEYS["page"], KEYS["card"]}
    assert json.loads((repo / "out" / "report" / "report.json").read_text())["environment"][
        "revisions"]["head"]["ref"] == "working tree"
    assert before_status == "" and after_status == "M web/scss/_tokens.scss"
    assert not (repo / "site" / "style.css").exists(), "the build must not write into the user's folder"
    assert len(git(repo, "worktree", "list").splitlines()) == 1


def test_a_region_only_on_one_side_is_added_or_removed(repo, tmp_path):
    """A third region key in one side's config: its image is `added` (head) or `removed` (base)."""
    pyproject = repo / "pyproject.toml"
    pyproject.write_text(PYPROJECT.replace('card = ".card"', 'card = ".card", title = "h2"'))
    try:
        run_added = theme(tmp_path, "compare", "--config", str(pyproject), "--base", "two",
                          "--out", str(tmp_path / "added"))
        with_title = git(repo, "stash", "create")  # a commit of the working tree; the tree stays as it is
        run_removed = theme(repo, "compare", "--base", with_title, "--head", "two",
                            "--out", str(tmp_path / "removed"))
    finally:
        pyproject.write_text(PYPROJECT)
    title = "index/small-light/title/top.png"  # no heading precedes the h2 itself
    for run, folder, status, kind in ((run_added, "added", "added", "actual"),
                                      (run_removed, "removed", "removed", "expected")):
        assert run.returncode == 1, run.stderr
        found = entries(tmp_path / folder)
        assert {k for k, e in found.items() if e["status"] != "matched"} == {title}
        assert found[title]["status"] == status
        assert set(found[title]["images"]) == {kind}
        assert (tmp_path / folder / found[title]["images"][kind]).is_file()
        assert [status, title] in [line.split() for line in run.stdout.splitlines()]


def test_a_build_error_in_the_base_names_the_file_at_that_revision_exit_2(repo, tmp_path):
    style = repo / "scss" / "style.scss"
    style.write_text(STYLE + ".box { color: $no-such-token; }\n")
    try:
        broken = git(repo, "stash", "create")
    finally:
        style.write_text(STYLE)
    run = theme(repo, "compare", "--base", broken, "--head", "two", "--out", str(tmp_path / "r"))
    assert run.returncode == 2
    [first] = [line for line in run.stderr.splitlines() if line.startswith("theme: ")]
    assert first.startswith(f"theme: {broken}:web/scss/style.scss:5:")
    assert "$no-such-token" in first and first.endswith(f"[base: {broken[:10]}]")
    assert "theme-compare-" not in run.stderr  # no temporary path leaks into the message
    assert len(git(repo, "worktree", "list").splitlines()) == 1  # temporary worktrees are gone
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("flag", ["--base", "--head"])
def test_unknown_ref_is_one_line_naming_it_exit_2(repo, tmp_path, flag):
    args = ["--base", "one", "--head", "two"]
    args[args.index(flag) + 1] = "no-such-branch"
    run = theme(repo, "compare", *args, "--out", str(tmp_path / "r"))
    assert run.returncode == 2
    assert run.stderr.strip().count("\n") == 0
    assert "no-such-branch" in run.stderr and flag in run.stderr
    assert not (tmp_path / "r").exists()


def test_outside_a_git_repository_is_exit_2(tmp_path):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    run = theme(tmp_path, "compare", "--base", "main")
    assert run.returncode == 2
    assert "not inside a git repository" in run.stderr


PHASED_PAGE = """\
<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="style.css">
<style>
.spacer {{ height: {spacer}px; }}
pre.code {{ margin: 10px; padding: 8px; background: #f6f3ea; font: 13px/1.45 monospace; }}
.rule {{ height: 0.5px; background: #333; margin: 3.25px 0; }}
</style></head>
<body><h2>Tokens</h2><div class="spacer"></div>
<pre class="code">all-reduce bucket 1<div class="rule"></div>all-reduce bucket 2</pre>
<div class="box"></div><div class="card"></div></body></html>
"""


def test_a_region_moved_by_half_a_pixel_matches_at_the_bases_phase_and_a_real_change_still_fails(
        repo, tmp_path):
    """The head's spacer grows by 0.5 px and its card changes colour: the code block's crop
    differs only because it sits half a pixel lower, so it is re-rendered at the base's
    sub-pixel position and matches; the card still fails."""
    pyproject, page, tokens = repo / "pyproject.toml", repo / "site" / "index.html", repo / "scss" / "_tokens.scss"
    pyproject.write_text(PYPROJECT.replace('card = ".card"', 'card = ".card", code = "pre.code"'))
    try:
        page.write_text(PHASED_PAGE.format(spacer=10))
        base = git(repo, "stash", "create")
        page.write_text(PHASED_PAGE.format(spacer=10.5))
        tokens.write_text(TOKENS.format(box="#e53935").replace("#43a047", "#fdd835"))
        head = git(repo, "stash", "create")
    finally:
        pyproject.write_text(PYPROJECT)
        page.write_text(PAGE)
        tokens.write_text(TOKENS.format(box="#e53935"))
    out = tmp_path / "report"
    run = theme(repo, "compare", "--base", base, "--head", head, "--out", str(out))
    assert run.returncode == 1, run.stderr
    found = entries(out)
    code = found["index/small-light/code/tokens.png"]
    assert code["status"] == "matched" and code["realigned"] is True  # it differed before the re-render
    assert "sub-pixel position" in code["message"]
    box = found[KEYS["box"]]  # unchanged, and half a pixel lower too
    assert box["status"] == "matched" and box["realigned"] is True
    assert found[KEYS["card"]]["status"] == "failed" and not found[KEYS["card"]]["realigned"]
    # the page card agrees with the region checks: the card changed; code and box, which
    # matched at their phase, are not named (nor left as "change outside any region")
    page_lines = found[KEYS["page"]]["attribution"]
    assert any(line.startswith("card in “Tokens”") for line in page_lines), page_lines
    assert not any(line.startswith(("code ", "box ", "change outside")) for line in page_lines), page_lines
    assert "2 matched only at their baseline's sub-pixel position" in (out / "summary.md").read_text()
    assert "moved by a fraction of a pixel" in run.stderr + run.stdout


def test_base_head_on_a_clean_tree_reports_no_difference(repo, tmp_path):
    """The working tree against its own HEAD: both sides go through the same capture and
    check as pytest, so an unchanged article is all `matched` and the exit code is 0."""
    assert git(repo, "status", "--porcelain") == ""
    out = tmp_path / "report"
    run = theme(repo, "compare", "--base", "HEAD", "--out", str(out))
    assert run.returncode == 0, run.stderr
    found = entries(out)
    assert set(found) == set(KEYS.values())
    assert {e["status"] for e in found.values()} == {"matched"}
    assert all(e["diff"]["diff_pixels"] == 0 for e in found.values())


PLAIN = PYPROJECT[PYPROJECT.index("[tool.theme.visual]"):]  # no [tool.theme] build: an article without one


@pytest.fixture
def plain(tmp_path) -> Path:
    """An article with no build (no scss/, no entry): its committed style.css is what it serves."""
    if not Path(BROWSER).exists():
        pytest.skip(f"no Chromium at {BROWSER} (set THEME_BROWSER)")
    root = tmp_path / "plain"
    (root / "site").mkdir(parents=True)
    git(root, "init", "-q")
    (root / "pyproject.toml").write_text(PLAIN)
    (root / "site/index.html").write_text(PAGE)
    (root / "site/style.css").write_text("body { margin: 0; background: #fff; }\n"
                                         ".box { width: 120px; height: 80px; margin: 20px; background: #1e88e5; }\n"
                                         ".card { width: 200px; height: 60px; margin: 20px; background: #43a047; }\n")
    commit_all(root, "one")
    return root


def test_without_an_scss_entry_the_committed_pages_are_compared(plain, tmp_path):
    style = plain / "site/style.css"
    style.write_text(style.read_text().replace("#1e88e5", "#e53935"))
    commit_all(plain, "two")
    run = theme(plain, "compare", "--base", "HEAD~1", "--out", str(tmp_path / "r"))
    assert run.returncode == 1, run.stderr
    assert {k for k, e in entries(tmp_path / "r").items() if e["status"] == "failed"} == {KEYS["page"], KEYS["box"]}
    for role in ("base", "head"):
        assert (f"{role} ({'HEAD~1 ' if role == 'base' else 'working tree'}"
                in run.stderr), run.stderr
    assert run.stderr.count("no SCSS entry (scss/style.scss absent, none configured); comparing the committed "
                            "pages") == 2
    assert "building" not in run.stderr


def test_an_entry_the_config_names_must_exist(plain, tmp_path):
    """Only the default entry may be absent: one the user configured and lost is an error."""
    (plain / "pyproject.toml").write_text('[tool.theme]\nentry = "scss/style.scss"\n' + PLAIN)
    commit_all(plain, "two")
    run = theme(plain, "compare", "--base", "HEAD~1", "--out", str(tmp_path / "r"))
    assert run.returncode == 2
    assert "scss/style.scss" in run.stderr.splitlines()[-1] and "Traceback" not in run.stderr


# The article's title figure types into its alignment box in a loop, forever (index.bundle.js:
# 56 steps of 300 ms, restarted every 18 s), so no two looks at the page agree. Holding such a
# page still is the capture's business (page time: tests/visual/test_init.py), not compare's:
# this copy goes on without the loop, so the test is about comparing an article that has no build.
TYPING_LOOP = "p()(document).ready(function(){r(),v=setInterval(r,18e3)})"


def test_the_adopted_ctc_article_compares_a_css_change_in_its_second_commit(tmp_path, ctc_initialised):
    """The published article adopted with plain `theme init` (no scss/; the suite's one init of
    it, tests/conftest.py): committed, then one rule of its own stylesheet changes in a second
    commit; compare --base HEAD~1 finds it."""
    if not Path(BROWSER).exists():
        pytest.skip(f"no Chromium at {BROWSER} (set THEME_BROWSER)")
    initialised, adopted = ctc_initialised
    assert adopted.returncode == 0, adopted.stderr
    article = shutil.copytree(initialised, tmp_path / "ctc", symlinks=True)
    bundle = article / "index.bundle.js"
    assert bundle.read_text().count(TYPING_LOOP) == 1
    bundle.write_text(bundle.read_text().replace(TYPING_LOOP, "p()(document).ready(function(){})"))
    git(article, "init", "-q")
    assert not (article / "scss").exists()
    config = tomlkit.parse((article / "pyproject.toml").read_text())
    del config["tool"]["theme"]["visual"]["states"]  # its pages are what is compared here: half the renders
    (article / "pyproject.toml").write_text(tomlkit.dumps(config))
    commit_all(article, "adopted with theme init")
    css = article / "assets/collapse_ctc.css"
    css.write_text(css.read_text().replace("background-color: #f3f3f3;", "background-color: #1e3a8a;", 1))
    commit_all(article, "a dark blue alignment box")
    out = tmp_path / "report"
    run = theme(article, "compare", "--base", "HEAD~1", "--out", str(out))
    assert run.returncode == 1, run.stderr[-3000:]
    assert "comparing the committed pages" in run.stderr and "building" not in run.stderr
    failed = {k for k, e in entries(out).items() if e["status"] == "failed"}
    assert failed and all(k.startswith("index/") for k in failed)
    assert any(k.endswith("/page.png") for k in failed) and any("/figure/" in k for k in failed), failed
    assert {line.split()[1] for line in run.stdout.splitlines() if line.startswith("failed")} == failed
