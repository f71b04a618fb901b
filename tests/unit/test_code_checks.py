"""ruff over the code and mypy over theme/, as tests: the README's test command runs them,
with the versions pyproject.toml's test extra pins (their findings change between releases).

Configured in pyproject.toml ([tool.ruff], [tool.mypy]); each runs as a user would run it,
in a subprocess of this interpreter, and a failure shows the tool's own output.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ("theme", "tests", "benchmarks", "scripts")  # what ruff reads; mypy reads theme/


def pinned(name: str) -> str:
    """The version the test extra pins `name` to (`name==X`)."""
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for line in extra["optional-dependencies"]["test"]:
        requirement = Requirement(line)
        if requirement.name == name:
            (spec,) = requirement.specifier
            assert spec.operator == "==", f"{line}: pin {name} exactly; its findings change between releases"
            return spec.version
    raise AssertionError(f"{name} is not in pyproject.toml's test extra")


def tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)


@pytest.mark.parametrize("name", ["ruff", "mypy"])
def test_the_installed_checker_is_the_pinned_one(name):
    installed = importlib.metadata.version(name)
    assert installed == pinned(name), (
        f"{name} {installed} is installed, pyproject.toml pins {pinned(name)}: "
        "run python3 -m pip install -e '.[test]'")


def test_ruff_finds_nothing():
    done = tool("ruff", "check", "--no-cache", *CHECKED)
    assert done.returncode == 0, done.stdout + done.stderr


# mypy's findings depend on the annotations the installed numpy, numba, Pillow, click, pytest and
# tomlkit ship: this is the verdict at the newest versions pyproject.toml allows (.ci/run). The
# run on the lower bounds (.ci/lower-bounds) deselects it; it checks behaviour, not annotations.
def test_mypy_finds_nothing(tmp_path):
    # A fresh cache each run: a stale cache from another checkout could hide a finding.
    done = tool("mypy", "--cache-dir", str(tmp_path / "mypy-cache"))
    assert done.returncode == 0, done.stdout + done.stderr
