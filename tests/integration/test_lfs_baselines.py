"""Baselines under Git LFS, with the real git-lfs (Debian's git-lfs package) and a local bare
remote: a clone made without LFS has pointer files in snapshots/, and the visual run gives
one failure that names `git lfs pull`; after `git lfs pull` the same run passes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from subrun import PYTEST

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PYPROJECT = """
[tool.theme]
entry = "scss/style.scss"
outputs = ["site/style.css"]

[tool.theme.visual]
root = "site"
pages = ["index.html"]
viewports = { desktop = [480, 360] }
color_schemes = ["light"]
regions = { box = ".box" }
"""

HTML = """<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="style.css"></head>
<body><h2 id="a">Alpha</h2><div class="box"></div><h2 id="b">Beta</h2><div class="box"></div></body></html>
"""

SCSS = ".box { background: #3366cc; width: 120px; height: 40px; margin: 8px; }\nh2 { margin: 8px; }\n"


@pytest.fixture
def git_env(tmp_path) -> dict[str, str]:
    """git and git-lfs with a HOME of their own: no user or system config read or written."""
    if shutil.which("git-lfs") is None:
        pytest.skip("git-lfs is not installed (Debian: apt-get install git-lfs)")
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_STEP_SUMMARY", "PYTEST_ADDOPTS")}
    env.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")
    git(["lfs", "install", "--skip-repo"], home, env)
    return env


def git(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def pytest_run(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*PYTEST, "-rA", "-q", *args],
                          cwd=project, env=env, capture_output=True, text=True)


def test_a_clone_without_lfs_gets_one_clear_error_and_git_lfs_pull_fixes_it(tmp_path, git_env):
    project = tmp_path / "article"
    (project / "scss").mkdir(parents=True)
    (project / "site").mkdir()
    (project / "pyproject.toml").write_text(PYPROJECT)
    (project / "scss/style.scss").write_text(SCSS)
    (project / "site/index.html").write_text(HTML)
    (project / ".gitattributes").write_text("snapshots/**/*.png filter=lfs diff=lfs merge=lfs -text\n")
    subprocess.run([sys.executable, "-m", "theme", "build"], cwd=project, env=git_env, check=True)
    created = pytest_run(project, git_env, "--update-snapshots")
    assert created.returncode == 0, created.stdout[-2000:]
    remote = tmp_path / "remote.git"
    git(["init", "-q", "--bare", "-b", "main", str(remote)], tmp_path, git_env)
    git(["init", "-q", "-b", "main"], project, git_env)
    git(["add", "-A"], project, git_env)
    git(["commit", "-q", "-m", "article and baselines"], project, git_env)
    tracked = git(["lfs", "ls-files", "-n"], project, git_env).split()
    assert len(tracked) == 3 and all(p.startswith("snapshots/") for p in tracked)  # page + 2 boxes
    git(["push", "-q", remote.as_uri(), "main"], project, git_env)

    clone = tmp_path / "clone"
    no_lfs = {**git_env, "GIT_LFS_SKIP_SMUDGE": "1"}
    git(["clone", "-q", remote.as_uri(), str(clone)], tmp_path, no_lfs)
    assert (clone / tracked[0]).read_bytes().startswith(b"version https://git-lfs.github.com/spec/v1")
    failed = pytest_run(clone, git_env)
    assert failed.returncode == 1
    assert re.search(r"^1 failed", failed.stdout.splitlines()[-1]), failed.stdout[-2000:]
    assert "FAILED theme-visual-setup" in failed.stdout
    assert "snapshots/index/desktop-light/box/alpha.png and 2 more baselines are Git LFS pointers" in failed.stdout
    assert "run `git lfs pull`" in failed.stdout and "corrupt" not in failed.stdout
    assert git(["status", "--porcelain"], clone, git_env) == ""  # nothing was overwritten

    git(["lfs", "pull"], clone, git_env)
    assert (clone / tracked[0]).read_bytes().startswith(b"\x89PNG")
    passed = pytest_run(clone, git_env)
    assert passed.returncode == 0, passed.stdout[-2000:]
    assert "theme: 3 matched, 0 failed" in passed.stdout
