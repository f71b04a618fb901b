"""The real `theme` command in temporary projects: build, every flag, exit codes,
bad input, tokens --json, and kill -9 in the middle of writing a large output."""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
OUTPUTS = ["article/src/style.css", "article/dist/style.css"]


def theme(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "theme", *args], cwd=cwd,
                          capture_output=True, text=True)


def write_pyproject(root: Path, extra: str = "", name: str = "pyproject.toml") -> Path:
    path = root / name
    path.write_text('[project]\nname = "specimen"\n\n[tool.theme]\nentry = "scss/style.scss"\n'
                    f"outputs = {json.dumps(OUTPUTS)}\n{extra}")
    return path


@pytest.fixture
def project(tmp_path) -> Path:
    shutil.copytree(REPO / "scss", tmp_path / "scss")
    shutil.copytree(REPO / "theme/stylesheet/scss/theme", tmp_path / "scss/theme")  # a vendored copy: it wins
    write_pyproject(tmp_path)
    return tmp_path


def outputs(root: Path) -> list[bytes | None]:
    return [(root / o).read_bytes() if (root / o).is_file() else None for o in OUTPUTS]


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_build_writes_both_outputs_with_the_seed_values(project):
    run = theme("build", cwd=project)
    assert run.returncode == 0, run.stderr
    assert "article/src/style.css" in run.stdout and "article/dist/style.css" in run.stdout
    src, dist = outputs(project)
    assert src == dist and b"d-article {\n  font-size: 1.04em;" in src


def test_dash_C_runs_in_another_folder(project, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    run = theme("build", "-C", str(project), cwd=elsewhere)
    assert run.returncode == 0, run.stderr
    assert all(outputs(project)) and not list(elsewhere.iterdir())


def test_config_file_option_reads_another_file(project):
    (project / "pyproject.toml").unlink()
    other = write_pyproject(project, 'style = "compressed"\n', name="theme.toml")
    assert theme("build", cwd=project).returncode == 2  # no pyproject: a config error
    run = theme("build", "--config", str(other), cwd=project)
    assert run.returncode == 0, run.stderr
    assert b"\n  " not in outputs(project)[0]  # the file's compressed style applied


def test_style_option_overrides_the_config(project):
    write_pyproject(project, 'style = "compressed"\n')
    assert theme("build", cwd=project).returncode == 0
    compressed = outputs(project)[0]
    assert theme("build", "--style", "expanded", cwd=project).returncode == 0
    expanded = outputs(project)[0]
    assert len(compressed) < len(expanded) and b"d-article{font-size:1.04em;" in compressed
    bad = theme("build", "--style", "nested", cwd=project)
    assert bad.returncode == 2 and "nested" in bad.stderr


def test_source_map_option_writes_a_map_beside_each_output(project):
    run = theme("build", "--source-map", cwd=project)
    assert run.returncode == 0, run.stderr
    for out in OUTPUTS:
        data = json.loads((project / (out + ".map")).read_text())
        assert "../../scss/theme/components/_note-box.scss" in data["sources"]
        assert (project / out).read_text().rstrip().endswith("/*# sourceMappingURL=style.css.map */")


def test_check_exits_0_when_current_and_1_naming_the_stale_file(project):
    assert theme("build", cwd=project).returncode == 0
    fresh = theme("build", "--check", cwd=project)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    edit(project / "scss/theme/tokens/_light.scss", '"link-color": $blue-600', '"link-color": $blue-800')
    before = outputs(project)
    stale = theme("build", "--check", cwd=project)
    assert stale.returncode == 1
    assert "--- article/src/style.css" in stale.stdout and "--- article/dist/style.css" in stale.stdout
    assert "-  --theme-link-color: #1f5fbf;" in stale.stdout
    assert "+  --theme-link-color: #143d7a;" in stale.stdout
    assert "stale: article/src/style.css, article/dist/style.css" in stale.stderr
    assert outputs(project) == before


@pytest.mark.parametrize("breaker, where", [
    pytest.param(lambda r: edit(r / "scss/theme/components/_code.scss", "d-code {", "d-code {{"),
                 "scss/theme/components/_code.scss", id="syntax error"),
    pytest.param(lambda r: edit(r / "scss/theme/components/_code.scss", "$code-font-size", "$code-fontsize"),
                 "scss/theme/components/_code.scss", id="undefined variable"),
    pytest.param(lambda r: edit(r / "scss/style.scss", '"theme/all"', '"theme/al"'),
                 "scss/style.scss", id="missing import"),
    pytest.param(lambda r: (r / "scss/style.scss").unlink(), "pyproject.toml", id="missing entry"),
    pytest.param(lambda r: (shutil.rmtree(r / "article/dist"), (r / "article/dist").write_text("x")),
                 "pyproject.toml", id="unwritable output"),
])
def test_bad_input_exits_2_with_a_position_and_keeps_outputs(project, breaker, where):
    assert theme("build", cwd=project).returncode == 0
    # so that a build WOULD change the outputs:
    edit(project / "scss/theme/tokens/_typography.scss", "$article-font-size: 1.04em", "$article-font-size: 1.2em")
    breaker(project)
    before = outputs(project)
    run = theme("build", cwd=project)
    assert run.returncode == 2
    first = run.stderr.splitlines()[0]
    assert re.match(rf"theme: {re.escape(where)}:\d+:\d+: \S", first), run.stderr
    assert "Traceback" not in run.stderr
    assert outputs(project) == before


def test_tokens_json_lists_every_token_with_light_and_dark(project):
    run = theme("tokens", "--json", cwd=project)
    assert run.returncode == 0, run.stderr
    found = {t["name"]: t for t in json.loads(run.stdout)["tokens"]}
    assert found["note-box-background"]["property"] == "--theme-note-box-background"
    assert found["note-box-background"]["light"] != found["note-box-background"]["dark"]
    assert found["note-box-content-color"] == {"name": "note-box-content-color",
                                               "property": "--theme-note-box-content-color",
                                               "light": "#24292f", "dark": "#d4d4d4"}
    # Follows the SCSS: a project override of a dark role shows up in the listing.
    edit(project / "scss/theme/tokens/_dark.scss", '"link-color": $blue-300', '"link-color": #abcdef')
    again = json.loads(theme("tokens", "--json", cwd=project).stdout)
    assert {t["name"]: t for t in again["tokens"]}["link-color"]["dark"] == "#abcdef"
    assert theme("tokens", "--json", cwd=project).stdout == theme("tokens", "--json", cwd=project).stdout


def test_watch_rebuilds_after_a_change_until_interrupted(project):
    # A shell's background job inherits SIGINT ignored, and Python then keeps it ignored:
    # give the watcher the default disposition so Ctrl-C reaches it as it would a user's.
    proc = subprocess.Popen([sys.executable, "-m", "theme", "build", "--watch"], cwd=project,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(ln) for ln in proc.stdout], daemon=True).start()

    def wait_line(prefix: str) -> str:
        while True:  # hang guard only: a dead watcher fails the get
            line = lines.get(timeout=60)
            if line.startswith(prefix):
                return line

    try:
        wait_line("theme: wrote")
        wait_line("theme: watching")
        edit(project / "scss/theme/tokens/_typography.scss", "$article-font-size: 1.04em", "$article-font-size: 1.3em")
        assert "article/src/style.css" in wait_line("theme: wrote")
        assert b"font-size: 1.3em" in outputs(project)[1]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    assert proc.returncode == 0


# ------------------------------------------------------------ kill -9


def big_scss(marker: str) -> str:
    """~8 MB of CSS from a small compile: long loud comments pass through libsass cheaply."""
    blob = "lorem ipsum dolor sit amet " * 1500
    rules = [f"/* {i} {blob} */\n.r{i} {{ content: \"{marker}\"; }}" for i in range(200)]
    return "\n".join(rules) + "\n"


# `theme build`, with each finished temp file held 0.3 s before os.replace renames it.
HELD_BUILD = """
import os, runpy, sys, time
rename = os.replace
def held(src, dst, *args, **kwargs):
    time.sleep(0.3)
    return rename(src, dst, *args, **kwargs)
os.replace = held
sys.argv = ["theme", "build"]
runpy.run_module("theme", run_name="__main__")
"""


@pytest.mark.slow
def test_kill_9_during_a_build_leaves_each_output_old_or_new(tmp_path):
    (tmp_path / "scss").mkdir()
    write_pyproject(tmp_path)
    entry = tmp_path / "scss/style.scss"
    entry.write_text(big_scss("v00"))
    assert theme("build", cwd=tmp_path).returncode == 0
    first = outputs(tmp_path)[0]
    folders = [tmp_path / "article/src", tmp_path / "article/dist"]
    caught_mid_write = 0
    # Until a kill lands mid-write (at least 3 tries, at most 30): on a loaded machine the
    # build can finish between the look and the kill, and such a try proves nothing. Each
    # try compiles a version of its own: a build whose outputs already hold its bytes writes
    # nothing, so after one try that finished, a shared "new" left nothing to catch (one
    # fresh-clone run at load 10 caught no kill in 30 tries that way).
    for attempt in range(1, 31):
        if attempt > 3 and caught_mid_write:
            break
        version = f"v{attempt:02d}"
        entry.write_text(big_scss(version))
        before = outputs(tmp_path)
        # Every other try holds each temp file 0.3 s before its rename: a real build, real
        # writes, and a window this loop cannot miss however loaded the machine is.
        build = ["-c", HELD_BUILD] if attempt % 2 else ["-m", "theme", "build"]
        proc = subprocess.Popen([sys.executable, *build], cwd=tmp_path,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Kill the moment a temp file exists: the build is then between its first
        # write and its last rename, the window where a naive writer truncates.
        while proc.poll() is None and not any(
                n.endswith(".tmp") for f in folders for n in os.listdir(f)):
            pass
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if proc.returncode == -signal.SIGKILL:
            caught_mid_write += any(n.endswith(".tmp") for f in folders for n in os.listdir(f))
        for was, data in zip(before, outputs(tmp_path), strict=True):  # each the old bytes or this try's, whole
            assert data == was or (data is not None and f'content: "{version}"'.encode() in data
                                   and data.endswith(b"}\n") and len(data) == len(first))
        for leftover in (f / n for f in folders for n in os.listdir(f) if n.endswith(".tmp")):
            leftover.unlink()  # what the killed build left: the next try must see its own
    assert caught_mid_write, "no kill landed while a temp file was open; the test proved nothing"
    assert theme("build", cwd=tmp_path).returncode == 0
    last = outputs(tmp_path)
    assert last[0] == last[1] and f'content: "{version}"'.encode() in last[0]


# ------------------------------------------------------------ --compiler dart


def test_compiler_dart_builds_both_outputs_and_lists_the_subset_warning_once(project):
    run = theme("build", "--compiler", "dart", cwd=project)
    assert run.returncode == 0, run.stderr
    src, dist = outputs(project)
    assert src == dist and b"d-article {\n  font-size: 1.04em;\n  line-height: 1.7;" in src
    assert b"[data-theme=dark] {" in src  # Dart's spelling: really the other compiler
    warnings = [ln for ln in run.stderr.splitlines() if ln.startswith("theme: warning:")]
    assert len(warnings) == 1 and "import, global-builtin" in warnings[0], run.stderr
    assert "DEPRECATION WARNING" not in run.stderr  # nothing per use
    # Back to libsass: the committed bytes again, and --check agrees.
    assert theme("build", cwd=project).returncode == 0
    assert outputs(project)[0] != src
    assert theme("build", "--check", cwd=project).returncode == 0
    assert theme("build", "--check", "--compiler", "dart", cwd=project).returncode == 1


def test_compiler_dart_bad_input_exits_2_with_a_position_and_keeps_outputs(project):
    assert theme("build", cwd=project).returncode == 0
    edit(project / "scss/theme/components/_code.scss", "$code-font-size", "$code-fontsize")
    before = outputs(project)
    run = theme("build", "--compiler", "dart", cwd=project)
    assert run.returncode == 2
    assert re.match(r"theme: scss/theme/components/_code\.scss:\d+:\d+: undefined variable \$code-fontsize",
                    run.stderr), run.stderr
    assert outputs(project) == before
    assert theme("build", "--compiler", "node", cwd=project).returncode == 2
