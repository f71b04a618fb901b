"""`theme capture` end to end: files written, one line per variant, exit 2 on bad config."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><head><style>
body { margin: 0; font: 16px sans-serif; } .note-box { background: #eef; margin: 8px; padding: 8px; }
@media (prefers-color-scheme: dark) { body { background: #111; color: #eee; } .note-box { background: #224; } }
</style><script src="https://cdn.example.org/x.js"></script></head><body>
<h2>Intro</h2><div class="note-box"><p>one</p></div><div class="note-box"><p>two</p></div></body></html>"""


def project(tmp_path: Path, visual: str) -> Path:
    (tmp_path / "site").mkdir(exist_ok=True)
    (tmp_path / "site" / "index.html").write_text(PAGE)
    # The page's CDN script is blocked on purpose: these tests are about the command, not the render.
    (tmp_path / "pyproject.toml").write_text(f"[tool.theme]\n[tool.theme.visual]\nroot = \"site\"\n"
                                             f"allow_blocked = [\"https://cdn.example.org/\"]\n{visual}")
    return tmp_path


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "theme", "capture", *args], capture_output=True, text=True)


def test_capture_writes_page_and_region_images(tmp_path):
    proj = project(tmp_path, 'viewports = { desktop = [800, 600] }\nregions = { note-box = ".note-box" }\n')
    out = tmp_path / "out"
    result = run("-C", str(proj), "--out", str(out))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "index/desktop-light: 3 images, 800×600 px, " + lines[0].split(", ")[2] + ", 1 aborted request"
    assert "  aborted: https://cdn.example.org/x.js" in lines
    assert any(line.startswith("index/desktop-dark: 3 images") for line in lines)
    assert "capturing" in result.stderr  # progress goes to stderr
    for scheme in ("light", "dark"):
        folder = out / "index" / f"desktop-{scheme}"
        assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.png")) == [
            "note-box/intro-2.png", "note-box/intro.png", "page.png"]
        assert Image.open(folder / "page.png").size == (800, 600)
    light = np.asarray(Image.open(out / "index/desktop-light/note-box/intro.png"))
    dark = np.asarray(Image.open(out / "index/desktop-dark/note-box/intro.png"))
    assert light.shape == dark.shape and not np.array_equal(light, dark)


def test_default_out_is_under_the_artifacts_folder(tmp_path):
    proj = project(tmp_path, 'viewports = { desktop = [400, 300] }\ncolor_schemes = ["light"]\n')
    assert run("-C", str(proj)).returncode == 0
    assert (proj / ".theme-artifacts" / "capture" / "index" / "desktop-light" / "page.png").is_file()


@pytest.mark.parametrize("visual, message", [
    ('pages = ["missing.html"]\n', "page 'missing.html' is not a file under"),
    ('viewports = { desktop = [1280] }\n', "must be two positive integers"),
    ('regions = { note-box = "div[[" }\n', "region 'note-box': 'div[[' is not a valid CSS selector"),
    ('root = "nowhere"\n', "is not a folder"),
])
def test_bad_config_exits_2_with_one_line(tmp_path, visual, message):
    proj = project(tmp_path, visual.replace('root = "nowhere"\n', ""))
    if "nowhere" in visual:
        (proj / "pyproject.toml").write_text('[tool.theme]\n[tool.theme.visual]\nroot = "nowhere"\n')
    result = run("-C", str(proj), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("theme: ") and message in last and "Traceback" not in result.stderr


@pytest.mark.slow
def test_a_render_missing_its_script_exits_2_naming_it(tmp_path):
    proj = project(tmp_path, 'viewports = { desktop = [800, 600] }\n')
    text = (proj / "pyproject.toml").read_text().replace('allow_blocked = ["https://cdn.example.org/"]\n', "")
    (proj / "pyproject.toml").write_text(text)
    result = run("-C", str(proj), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    said = lines.index("theme: index.html (desktop-light): 1 resource the page needs did not load, so this render "
                       "is not the page as published: it is not checked and no baseline is written")
    assert lines[said + 1].startswith("  - the page's script https://cdn.example.org/x.js did not load"), result.stderr
    assert lines[-1].startswith("  or: list it in allow_blocked"), result.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.png"))
