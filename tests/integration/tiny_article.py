"""The plugin tests' tiny article (one page, one viewport, boxes under two headings) and the
helpers that drive it: pytest and `theme build` in real subprocesses, as a user runs them.

Shared by the integration tests of the plugin, the review loop, the review server and remote
browsers; the `project` fixture (conftest.py) writes it into a test's tmp_path.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from subrun import PYTEST

PYPROJECT = """
[tool.theme]
entry = "scss/style.scss"
outputs = ["site/style.css"]

[tool.theme.visual]
root = "site"
pages = ["index.html"]
viewports = { desktop = [480, 360] }
color_schemes = ["light"]
regions = { box = ".box", card = ".card" }
"""

SCSS = """
$box-color: {box} !default;
$card-color: #226633 !default;
body {{ margin: 0; font: 16px/1.4 sans-serif; }}
h2 {{ margin: 8px; font-size: 18px; }}
.box {{ background: $box-color; width: 120px; height: 40px; margin: 8px; }}
.card {{ background: $card-color; width: 200px; height: 30px; margin: 8px; }}
"""

HTML = """<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="style.css"></head>
<body><h2 id="a">Alpha</h2><div class="box"></div><div class="card"></div>
<h2 id="b">Beta</h2><div class="box"></div><div class="box"></div></body></html>
"""


def make(folder: Path) -> Path:
    """The article written into `folder` and built: a blue box in two sections, one card."""
    (folder / "pyproject.toml").write_text(PYPROJECT)
    (folder / "scss").mkdir()
    (folder / "site").mkdir()
    (folder / "site/index.html").write_text(HTML)
    set_box_colour(folder, "#3366cc")
    return folder


def set_box_colour(project: Path, colour: str) -> None:
    (project / "scss/style.scss").write_text(SCSS.format(box=colour))
    subprocess.run([sys.executable, "-m", "theme", "build", "-C", str(project)], check=True,
                   capture_output=True)


def run(project: Path, *args: str, ci: bool = False) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_STEP_SUMMARY", "PYTEST_ADDOPTS")}
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [*PYTEST, "-rA", "-q", *args],
        cwd=project, env=env, capture_output=True, text=True,
    )


def outcomes(proc: subprocess.CompletedProcess) -> dict[str, str]:
    """nodeid -> PASSED/FAILED from pytest's -rA short summary."""
    return dict((m.group(2), m.group(1)) for m in
                re.finditer(r"^(PASSED|FAILED|ERROR) (\S+)", proc.stdout, re.MULTILINE))
