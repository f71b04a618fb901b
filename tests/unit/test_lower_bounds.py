"""constraints/lower-bounds.txt against pyproject.toml: the file pins every requirement of
[project] dependencies and of the test extra to the oldest version it allows (a ranged one to
its lower bound, an exact pin to itself), so that installing with it runs the tests at the
bottom of every range (docs/contributing.md, "The lower bounds"). A bound raised in one file and not the
other fails here, before a run on the lower bounds would test versions nobody declared."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
CONSTRAINTS = ROOT / "constraints" / "lower-bounds.txt"
RUN = ROOT / ".ci" / "lower-bounds"  # the documented run on the lower bounds


def declared() -> list[Requirement]:
    """The runtime dependencies and the test extra, as pyproject.toml declares them."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(line) for line in [*project["dependencies"], *project["optional-dependencies"]["test"]]]


def pins() -> dict[str, tuple[str, bool]]:
    """{name: (version, whether a comment line comes right before it)} of the file's pins."""
    found: dict[str, tuple[str, bool]] = {}
    commented = False
    for number, raw in enumerate(CONSTRAINTS.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            commented = raw.strip().startswith("#")
            continue
        requirement = Requirement(line)
        specs = list(requirement.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", (
            f"{CONSTRAINTS.name}:{number}: {line!r}: a constraints line pins one version (name==version)")
        name = canonicalize_name(requirement.name)
        assert name not in found, f"{CONSTRAINTS.name}:{number}: {name} is pinned twice"
        found[name] = (specs[0].version, commented)
        commented = False
    return found


def lower_bound(requirement: Requirement) -> str:
    """The oldest version `requirement` allows, as declared: its exact pin, else its >= bound."""
    specs = list(requirement.specifier)
    exact = [s.version for s in specs if s.operator == "=="]
    floors = [s.version for s in specs if s.operator == ">="]
    assert not [s for s in specs if s.operator in ("~=", ">", "===")], (
        f"{requirement}: write the lower bound as >= (or pin with ==), which this test and the "
        "constraints file read")
    assert exact or floors, (
        f"{requirement}: no lower bound; a range is tested at both ends, so it needs a bottom (>=)")
    return exact[0] if exact else max(floors, key=Version)


def test_every_requirement_is_pinned_at_its_lower_bound():
    pinned = pins()
    wrong = []
    for requirement in declared():
        bound = lower_bound(requirement)
        name = canonicalize_name(requirement.name)
        if name not in pinned:
            wrong.append(f"{requirement}: not in {CONSTRAINTS.name}; add {name}=={bound}")
        elif Version(pinned[name][0]) != Version(bound):
            wrong.append(f"{requirement}: {CONSTRAINTS.name} pins {pinned[name][0]}, its lower bound is {bound}")
        elif not requirement.specifier.contains(pinned[name][0], prereleases=True):
            wrong.append(f"{requirement}: the pin {pinned[name][0]} is outside the declared range")
    assert wrong == []


def test_a_pin_pyproject_does_not_declare_says_why():
    names = {canonicalize_name(r.name) for r in declared()}
    silent = [name for name, (_, commented) in pins().items() if name not in names and not commented]
    assert silent == [], (
        f"{CONSTRAINTS.name} pins transitive dependencies with no comment before them saying why: {silent}")


def test_the_run_installs_with_this_file_in_its_own_environment_and_runs_the_quick_loop():
    lines = [line.strip() for line in RUN.read_text(encoding="utf-8").splitlines()]
    assert any(line.startswith("python3 -m venv ") for line in lines)
    assert any(f"pip install -c {CONSTRAINTS.relative_to(ROOT).as_posix()} -e '.[test]'" in line for line in lines)
    assert any(line.startswith('python3 -m pytest -m "not slow"') for line in lines)
    assert subprocess.run(["bash", "-n", str(RUN)]).returncode == 0
