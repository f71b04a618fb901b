"""theme as a user gets it (issue 51, part 2): the sdist and the wheel built from this
checkout, the wheel installed into a fresh virtual environment that cannot see the
checkout, and there, `theme build` on a copy of scss/ and every command of
docs/getting-started.md on a copy of the Distill template's example article.

How the page's commands are run. Every line of its ```sh blocks runs, in order, in the
article's folder, with `sh -c`, except these, which are the test's own:

- `python3 -m venv DIR`: the test makes the environment in a temporary folder, with this
  interpreter; `. DIR/bin/activate` (the same DIR) is done as activate does it: the
  environment's bin/ first on PATH (this interpreter's folder taken off it), VIRTUAL_ENV set.
- The `python3 -m pip install` line runs as written, but with its `theme @ …` requirement
  pointed at the wheel built here (served at a 127.0.0.1 address, so pip records an archive
  URL as it records the page's git address: init writes the workflow from it, and the
  page's commit line, which names `.github`, holds).

Each command must exit 0. A ```text block right after an ```sh block is what that block's
last command prints: each of its lines (a line `…` stands for lines left out) must be a
line of the command's output. The article is a git repository with its files committed, as
a user's is; after the page's commit line, nothing is left uncommitted.

KaTeX, which init fetches from the npm registry, comes from a registry the test serves at
127.0.0.1 (npm_config_registry), holding this repository's vendored KaTeX 0.19.1: the
registry itself is tested in tests/integration/test_init_files.py, marked `network`. pip
installs theme's dependencies from the index this machine's pip is configured with (its
cache allowed), as `python3 -m pip install -e '.[test]'` does for the whole suite.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from registry import npm_or_skip

pytestmark = [pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs/getting-started.md"
EXAMPLE = REPO / "tests/fixtures/distill-example"  # the runtime's own example article
RUNTIME = REPO / "theme/init/distill/template.v2.js"  # which index.html loads from beside it
KATEX_VERSION = "0.19.1"  # what theme/capture/cdn.py names, for the runtime's KaTeX address
SHIPS_NOT = ("tests/", "benchmarks/", "article/", "scss/", "docs/", "snapshots/", "scripts/")


@dataclass(frozen=True)
class Built:
    source: Path  # the copy of the checkout the two were built from
    sdist: Path
    wheel: Path


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Built:
    """`python -m build` (the sdist, then the wheel from the sdist) on a copy of the checkout:
    its files as git sees them (tracked and new ones, nothing ignored: no caches, no compiled
    kernels), so the build writes its egg-info into the copy, never beside the tests running
    from the checkout."""
    source = tmp_path_factory.mktemp("checkout")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO, capture_output=True, text=True, check=True).stdout
    for rel in filter(None, listed.split("\0")):
        if os.path.lexists(REPO / rel):  # a tracked file deleted in the working tree is not there
            (source / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, source / rel, follow_symlinks=False)
    dist = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(source)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (sdist,) = dist.glob("theme-*.tar.gz")
    (wheel,) = dist.glob("theme-*-py3-none-any.whl")
    return Built(source, sdist, wheel)


def theme_files(root: Path) -> dict[str, bytes]:
    """Every file under root/theme/, by its path from root."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "theme").rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def test_the_wheel_holds_all_of_theme_and_nothing_else(built):
    """Every file under theme/ (each page script, SCSS partial, the Distill runtime, the
    review page, …) is in the wheel with its bytes, and nothing of the repository around it."""
    expected = theme_files(built.source)
    assert {"theme/capture/js/regions.js", "theme/stylesheet/scss/theme/components/_note-box.scss",
            "theme/init/distill/template.v2.js", "theme/review/app/app.js"} <= set(expected)
    with zipfile.ZipFile(built.wheel) as wheel:
        names = wheel.namelist()
        shipped = {n: wheel.read(n) for n in names if n.startswith("theme/")}
        entry_points = wheel.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert sorted(set(shipped) - set(expected)) == [] and sorted(set(expected) - set(shipped)) == []
    assert [n for n in expected if shipped[n] != expected[n]] == []
    assert {n.split("/")[0] for n in names} == {"theme", built.wheel.name.split("-py3")[0] + ".dist-info"}
    assert not [n for n in names if n.startswith(SHIPS_NOT)]
    assert "theme = theme.cli:main" in entry_points and "theme = theme.pytest_plugin" in entry_points

    with tarfile.open(built.sdist) as sdist:
        files = [m.name.split("/", 1)[1] for m in sdist.getmembers() if m.isfile()]
    assert not [n for n in files if n.startswith(SHIPS_NOT)]
    assert {n for n in files if n.startswith("theme/")} == set(expected)


# ------------------------------------------------------------------------ installed


@dataclass(frozen=True)
class Step:
    command: str
    output: tuple[str, ...] = ()  # the ```text block after it: lines it prints (`…`: some left out)


def page_steps(text: str) -> list[Step]:
    """The commands of the page's ```sh blocks, one a line, comments and blank lines left out;
    the last of a block carries the ```text block that follows it."""
    steps: list[Step] = []
    last_was_sh = False
    for info, body in re.findall(r"^```(\w*)\n(.*?)^```$", text, re.M | re.S):
        lines = body.splitlines()
        if info == "sh":
            steps += [Step(line.strip()) for line in lines if line.strip() and not line.lstrip().startswith("#")]
        elif info == "text" and last_was_sh:
            steps[-1] = Step(steps[-1].command, tuple(line.strip() for line in lines if line.strip()))
        last_was_sh = info == "sh"
    return steps


VENV = re.compile(r"python3 -m venv (\S+)")
ACTIVATE = re.compile(r"\. (\S+)/bin/activate")
PIP = re.compile(r"python3 -m pip install .*")
THEME_REQUIREMENT = re.compile(r"theme @ [^'\"\s]+")


@pytest.fixture
def served(built, katex_tarball) -> Iterator[str]:
    """A 127.0.0.1 server: the wheel at /wheels/NAME, and an npm registry that has katex 0.19.1
    (the suite's npm-packed tarball of the vendored KaTeX, tests/conftest.py). Yields its base URL."""
    tarball = katex_tarball.read_bytes()
    files: dict[str, tuple[str, bytes]] = {
        f"/wheels/{built.wheel.name}": ("application/octet-stream", built.wheel.read_bytes()),
        f"/katex/-/katex-{KATEX_VERSION}.tgz": ("application/octet-stream", tarball)}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
            if self.path in ("/katex", "/katex/"):
                base = f"http://127.0.0.1:{self.server.server_address[1]}"
                dist = {"tarball": f"{base}/katex/-/katex-{KATEX_VERSION}.tgz",
                        "shasum": hashlib.sha1(tarball).hexdigest(),
                        "integrity": "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()}
                version = {"name": "katex", "version": KATEX_VERSION, "license": "MIT", "dist": dist}
                kind, data = "application/json", json.dumps(
                    {"name": "katex", "dist-tags": {"latest": KATEX_VERSION}, "versions": {KATEX_VERSION: version}}
                ).encode()
            elif self.path in files:
                kind, data = files[self.path]
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")  # pip keeps no copy of a wheel built for this run
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def clean_environment(tmp_path: Path, registry: str) -> dict[str, str]:
    """This process's environment less what ties it to the checkout or to the running pytest:
    no PYTHONPATH, no virtual environment, no pytest or CI variables, this interpreter's
    folder (the checkout's environment) off PATH. npm asks the test's registry and keeps its
    cache in tmp_path; git commits as a user whose configuration is empty."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "PYTHON", "GITHUB_")) and k not in ("VIRTUAL_ENV", "CI")}
    ours = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p and p != ours)
    (tmp_path / "gitconfig").write_text("")
    env |= {"npm_config_registry": registry + "/", "npm_config_cache": str(tmp_path / "npm-cache"),
            "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "A Maintainer", "GIT_AUTHOR_EMAIL": "maintainer@example.org",
            "GIT_COMMITTER_NAME": "A Maintainer", "GIT_COMMITTER_EMAIL": "maintainer@example.org"}
    return env


def run(command: str | list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    args = ["sh", "-c", command] if isinstance(command, str) else command
    return subprocess.run(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)


def said(done: subprocess.CompletedProcess[str]) -> str:
    return f"exit {done.returncode}\n--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}"


def the_example_article(folder: Path, env: dict[str, str]) -> Path:
    """The example article as its authors ship it (the runtime beside index.html), committed
    in a git repository of its own."""
    shutil.copytree(EXAMPLE, folder)
    shutil.copy(RUNTIME, folder / "template.v2.js")
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "The article"]):
        done = run(command, folder, env)
        assert done.returncode == 0, said(done)
    return folder


@pytest.mark.browser
def test_the_installed_wheel_builds_and_runs_the_getting_started_page(built, served, tmp_path):
    """In a virtual environment of its own, the wheel does what the page says on the example
    article: installed, set up, init, the first baselines (24 created), a check (24 matched),
    the commit init names, and nothing left over; then `theme build` gives the repository's
    own style.css. The rule for the page's lines is the module's docstring."""
    npm_or_skip()
    env = clean_environment(tmp_path, served)
    article = the_example_article(tmp_path / "article", env)
    steps = page_steps(PAGE.read_text(encoding="utf-8"))
    commands = [s.command for s in steps]
    wanted = ["theme setup", "theme init --yes", "python3 -m pytest --update-snapshots", "python3 -m pytest"]
    assert [c for c in commands if c in wanted] == wanted, commands
    venv: Path | None = None
    named = ""  # the folder the page's venv line names
    printed: dict[str, str] = {}
    for step in steps:
        if (made := VENV.fullmatch(step.command)) is not None:
            venv, named = tmp_path / "venv", made.group(1)
            done = run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
            assert done.returncode == 0, said(done)
            continue
        if (entered := ACTIVATE.fullmatch(step.command)) is not None:
            assert venv is not None and entered.group(1) == named, step.command
            env |= {"VIRTUAL_ENV": str(venv), "PATH": f"{venv / 'bin'}{os.pathsep}{env['PATH']}"}
            continue
        command = step.command
        if PIP.fullmatch(command):
            assert venv is not None and len(THEME_REQUIREMENT.findall(command)) == 1, command
            command = THEME_REQUIREMENT.sub(f"theme @ {served}/wheels/{built.wheel.name}", command)
        done = run(command, article, env)
        assert done.returncode == 0, f"{command}\n{said(done)}"
        lines = {line.strip() for line in done.stdout.splitlines() + done.stderr.splitlines()}
        missing = [line for line in step.output if line != "…" and line not in lines]
        assert missing == [], f"{command}: the page shows lines it did not print:\n{missing}\n{said(done)}"
        printed[step.command] = done.stdout
        if PIP.fullmatch(step.command):
            installed_apart_from_the_checkout(venv, env, tmp_path)

    # init said, as its last line, the commit the page shows; what it and the update wrote is committed
    commits = [c for c in commands if c.startswith("git add ")]
    assert len(commits) == 1, commands
    commit = commits[0]
    assert printed["theme init --yes"].rstrip().splitlines()[-1].strip() == commit
    assert "theme: 0 matched, 0 failed, 24 created" in printed["python3 -m pytest --update-snapshots"]
    assert "theme: 24 matched, 0 failed" in printed["python3 -m pytest"]
    assert run(["git", "status", "--porcelain"], article, env).stdout == ""
    committed = run(["git", "show", "--name-only", "--format=", "HEAD"], article, env).stdout.split()
    assert {"pyproject.toml", ".gitignore", ".github/workflows/visual.yml", "vendor/VENDORED.md",
            "snapshots/index/desktop-light/page.png", "snapshots/index/mobile-light/page.png"} <= set(committed)
    # the workflow installs theme as pip recorded this install: the archive's address
    assert f"theme @ {served}/wheels/{built.wheel.name}" in (article / ".github/workflows/visual.yml").read_text()

    builds_the_specimen_stylesheet(env, tmp_path)


def installed_apart_from_the_checkout(venv: Path | None, env: dict[str, str], tmp_path: Path) -> None:
    """theme imports from the environment, and its command is the environment's."""
    assert venv is not None
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    done = run(["python3", "-c", "import theme, sys; print(theme.__file__); print(sys.prefix)"], elsewhere, env)
    assert done.returncode == 0, said(done)
    module, prefix = done.stdout.split()
    assert Path(module).is_relative_to(venv) and Path(prefix) == venv, done.stdout
    assert shutil.which("theme", path=env["PATH"]) == str(venv / "bin/theme")


def builds_the_specimen_stylesheet(env: dict[str, str], tmp_path: Path) -> None:
    """`theme build` on a copy of scss/ (the entry only: the library comes from the installed
    package) writes the stylesheet the repository commits, byte for byte."""
    project = tmp_path / "specimen"
    shutil.copytree(REPO / "scss", project / "scss")
    assert not (project / "scss/theme").exists()
    (project / "pyproject.toml").write_text('[project]\nname = "specimen"\n\n[tool.theme]\nentry = "scss/style.scss"\n'
                                            'outputs = ["article/src/style.css", "article/dist/style.css"]\n')
    done = run(["theme", "build"], project, env)
    assert done.returncode == 0, said(done)
    assert "theme: wrote article/src/style.css, article/dist/style.css" in done.stdout
    for output in ("article/src/style.css", "article/dist/style.css"):
        assert (project / output).read_bytes() == (REPO / output).read_bytes(), output
