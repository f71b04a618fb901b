"""Pages whose inputs did not change are not rendered (theme/check/inputs.py), end to end:
real pytest subprocesses, a real Chromium, a page that loads every kind of input.

Which variants were rendered is read from a conftest.py in the project that notes every
variant handed to theme.check.pipeline.capture (the real capture still runs): the
summary line is the code under test's own claim, this is an observation of it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from theme.baselines.store import Store
from theme.pixels import images
from tiny_article import run

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
FONT = REPO / "article/dist/assets/katex/fonts/KaTeX_Main-Regular.woff2"

PYPROJECT = """
[tool.theme]
entry = "scss/style.scss"
outputs = ["site/style.css"]

[tool.theme.visual]
root = "site"
pages = ["index.html", "other.html"]
viewports = { desktop = [480, 360] }
color_schemes = ["light"]
regions = { box = ".box" }
style = "shot.css"
route = { "https://cdn.example.org/lib/" = "vendor" }
"""

# Notes each variant the pipeline is asked to render, one folder a line, in rendered.txt.
CONFTEST = """
from pathlib import Path

from theme.check import pipeline

_capture = pipeline.capture


def _noting(session, todo, **kwargs):
    todo = list(todo)
    with open(Path(__file__).with_name("rendered.txt"), "a") as out:
        out.writelines(f"{v.folder.as_posix()}\\n" for v in todo)
    return _capture(session, todo, **kwargs)


pipeline.capture = _noting
"""

INDEX = """<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="style.css">
<script src="app.js"></script><script src="https://cdn.example.org/lib/lib.js"></script></head>
<body><h2>Alpha</h2><div class="box">x</div><img src="img/dot.png" width="8" height="8">
<img src="img/later.png" width="8" height="8" alt=""><div id="fragment"></div></body></html>
"""
STYLE = """@import "more.css";
@font-face { font-family: Main; src: url(fonts/main.woff2) format("woff2"); }
body { margin: 0; font: 16px/1.4 Main, serif; } /* a comment to change */
.box { background: #3366cc; width: 120px; height: 40px; margin: 8px; color: white; }
"""
APP = """document.addEventListener("DOMContentLoaded", () => {
  fetch("fragment.html").then((r) => r.text()).then((t) => { document.getElementById("fragment").innerHTML = t; });
}); // a comment to change
"""
OTHER = "<!doctype html><html><head><meta charset=\"utf-8\"></head><body><p>Other page</p></body></html>\n"

# Every file index.html depends on, and which pages load it (other.html loads only itself, and
# the screenshot-only CSS applies to every page).
INPUTS = {
    "site/index.html": {"index"},
    "site/style.css": {"index"},
    "site/more.css": {"index"},
    "site/app.js": {"index"},
    "site/fragment.html": {"index"},
    "site/img/dot.png": {"index"},
    "site/fonts/main.woff2": {"index"},
    "vendor/lib.js": {"index"},
    "shot.css": {"index", "other"},
    "site/other.html": {"other"},
}


def write_project(folder: Path) -> Path:
    files = {
        "pyproject.toml": PYPROJECT, "conftest.py": CONFTEST, "site/index.html": INDEX, "site/style.css": STYLE,
        "site/more.css": "h2 { margin: 8px; font-size: 18px; } /* a comment to change */\n",
        "site/app.js": APP, "site/fragment.html": "<p>Fetched fragment</p>\n", "site/other.html": OTHER,
        "vendor/lib.js": "window.libLoaded = true; // a comment to change\n",
        "shot.css": "/* screenshot-only CSS */ p { letter-spacing: 0; }\n",
        "scss/style.scss": "body { margin: 0; }\n",
    }
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    (folder / "site/fonts").mkdir()
    shutil.copyfile(FONT, folder / "site/fonts/main.woff2")
    import numpy as np

    dot = np.zeros((8, 8, 4), np.uint8)
    dot[..., 0], dot[..., 3] = 200, 255
    images.write_png(folder / "site/img/dot.png", dot)
    return folder


def rendered(project: Path, *args: str) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """The pages (by name) a pytest run rendered, and the run."""
    notes = project / "rendered.txt"
    notes.unlink(missing_ok=True)
    proc = run(project, *args)
    lines = notes.read_text().split() if notes.is_file() else []
    return {line.split("/")[0] for line in lines}, proc


@pytest.fixture(scope="module")
def updated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project with baselines written by an update run (which records their inputs)."""
    project = write_project(tmp_path_factory.mktemp("unchanged"))
    pages, proc = rendered(project, "--update-snapshots")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert pages == {"index", "other"}  # an update always renders
    return project


def test_an_unchanged_page_is_not_rendered(updated: Path) -> None:
    pages, proc = rendered(updated)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert pages == set()
    assert "3 matched, 0 failed (3 matched with inputs unchanged, not rendered)" in proc.stdout, proc.stdout
    report = json.loads((updated / "visual-report/report.json").read_text())
    assert {e["message"].split(": ", 1)[1] for e in report["entries"]} == {"matched (inputs unchanged)"}
    assert all(e["unchanged"] for e in report["entries"])


def test_the_recorded_files_are_every_kind_of_input(updated: Path) -> None:
    files = Store(updated / "snapshots").inputs("index/desktop-light")["files"]  # type: ignore[index]
    assert set(files) == {"/index.html", "/style.css", "/more.css", "/app.js", "/fragment.html", "/img/dot.png",
                          "/img/later.png", "/fonts/main.woff2", "https://cdn.example.org/lib/lib.js"}
    assert files["/img/later.png"] is None  # asked for, not there: recorded as absent


@pytest.mark.parametrize("rel", sorted(INPUTS))
def test_one_byte_changed_in_any_input_renders_the_pages_that_load_it(updated: Path, rel: str) -> None:
    path = updated / rel
    before = path.read_bytes()
    middle = len(before) // 2
    path.write_bytes(before[:middle] + bytes([before[middle] ^ 0x01]) + before[middle + 1:])
    try:
        pages, _ = rendered(updated)
    finally:
        path.write_bytes(before)
    assert pages == INPUTS[rel]
    restored, proc = rendered(updated)  # the same bytes again: the record holds again
    assert restored == set(), proc.stdout


def test_a_file_that_appears_where_the_page_got_a_404_renders_it(updated: Path) -> None:
    shutil.copyfile(updated / "site/img/dot.png", updated / "site/img/later.png")
    try:
        pages, proc = rendered(updated)
    finally:
        (updated / "site/img/later.png").unlink()
    assert pages == {"index"}
    assert proc.returncode == 1  # the image now shows
    assert rendered(updated)[0] == set()


def test_a_baseline_that_is_not_the_recorded_render_renders_it(updated: Path) -> None:
    # e.g. an image accepted from another run, or edited by hand: the record no longer describes it
    store = Store(updated / "snapshots")
    key = "other/desktop-light/page.png"
    snapshot = store.snapshot(key)
    image = store.read(key)
    assert image is not None
    image[0, 0] = (1, 2, 3, 255)
    store.write(key, image, store.recorded_fingerprint(key) or {})
    try:
        pages, proc = rendered(updated)
    finally:
        store.restore(key, snapshot)
    assert pages == {"other"}
    assert proc.returncode == 1 and "1 pixels differ" in proc.stdout, proc.stdout


def test_a_config_change_renders_the_pages_it_shapes(updated: Path) -> None:
    pyproject = updated / "pyproject.toml"
    before = pyproject.read_text()
    pyproject.write_text(before.replace('style = "shot.css"', 'style = "shot.css"\nmask = [".box"]'))
    try:
        pages, _ = rendered(updated)
    finally:
        pyproject.write_text(before)
    assert pages == {"index", "other"}


@pytest.mark.parametrize("how", ["--rerender", "skip_unchanged = false"])
def test_rerender_and_the_config_key_render_every_page(updated: Path, how: str) -> None:
    pyproject = updated / "pyproject.toml"
    before = pyproject.read_text()
    if how.startswith("--"):
        pages, proc = rendered(updated, how)
    else:
        pyproject.write_text(before.replace("[tool.theme.visual]\n", f"[tool.theme.visual]\n{how}\n"))
        try:
            pages, proc = rendered(updated)
        finally:
            pyproject.write_text(before)
    assert proc.returncode == 0, proc.stdout
    assert pages == {"index", "other"}
    assert "inputs unchanged" not in proc.stdout


def test_theme_capture_copies_an_unchanged_variant_and_rerender_renders_it(updated: Path) -> None:
    out = updated / "out"
    command = [sys.executable, "-m", "theme", "capture", "-C", str(updated), "--out", str(out)]
    copied = subprocess.run(command, capture_output=True, text=True)
    assert copied.returncode == 0, copied.stderr
    assert copied.stdout.splitlines()[:2] == [
        "index/desktop-light: 2 images, matched (inputs unchanged), copied from its baselines",
        "other/desktop-light: 1 images, matched (inputs unchanged), copied from its baselines"]
    store = Store(updated / "snapshots")
    for key in ("index/desktop-light/page.png", "index/desktop-light/box/alpha.png"):
        assert (images.read_png(out / key) == store.read(key)).all()

    rendered_again = subprocess.run([*command, "--rerender"], capture_output=True, text=True)
    assert rendered_again.returncode == 0, rendered_again.stderr
    assert rendered_again.stdout.startswith("index/desktop-light: 2 images, 480×")
    assert "inputs unchanged" not in rendered_again.stdout
