"""Remote browsers: real `theme browser serve` servers on 127.0.0.1, Debian's Chromium.

The specimen through two endpoints is byte-identical to a local capture and both
servers render; a server killed mid-run leaves its variants to the other; a wrong
or tokened endpoint never leaks its token; a local baseline checked remotely is drift.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from theme import config
from theme.capture import Session, open_session, remote, variants
from theme.capture.pool import Pool

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def specimen():
    cfg = config.load(ROOT / "pyproject.toml")
    return cfg, variants(cfg.visual)


@pytest.fixture(scope="module")
def local(specimen):
    cfg, todo = specimen
    with Session(cfg.visual, source=cfg.source) as session:
        return {c.variant: c.image for c in session.capture_all(todo)}


@pytest.fixture
def servers():
    """Two `theme browser serve` processes, as a user or a container runs them."""
    started = [serve_cli(), serve_cli()]
    yield started
    for s in started:
        s.stop()


def serve_cli() -> remote.Served:
    process = subprocess.Popen([sys.executable, "-m", "theme", "browser", "serve"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    endpoint = process.stdout.readline().strip()
    assert endpoint.startswith("ws://127.0.0.1:"), endpoint  # loopback unless told otherwise
    return remote.Served(endpoint, process)


def served_by(capture) -> str:
    return capture.fingerprint["browser"]["found_by"]


def test_two_endpoints_give_the_local_pixels_and_both_render(specimen, local, servers, monkeypatch):
    cfg, todo = specimen
    monkeypatch.setenv(remote.ENV, ",".join(s.endpoint for s in servers))
    with open_session(cfg.visual, source=cfg.source) as pool:
        assert isinstance(pool, Pool)
        got = list(pool.capture_all(todo))
        # what `theme capture --explain` asks of a page, answered on a server too
        [title] = pool.elements_at(todo[0], [(20, 20, 4, 4)])
        assert isinstance(title, str) and title
    assert [c.variant for c in got] == todo  # in the caller's order, whoever rendered them
    for c in got:
        assert np.array_equal(c.image, local[c.variant]), c.variant
    assert {served_by(c) for c in got} == {remote.mask(s.endpoint) for s in servers}
    assert all(s.endpoint not in str(c.fingerprint) for c in got for s in servers)


def test_a_server_killed_mid_run_leaves_its_variants_to_the_other(specimen, local, servers):
    cfg, todo = specimen
    said = []
    with Pool(cfg.visual, [s.endpoint for s in servers], source=cfg.source) as pool:
        got, killed = [], None
        for capture in pool.capture_all(todo, progress=said.append):
            got.append(capture)
            if killed is None:  # the first capture is in: kill the server that did not make it
                killed = next(s for s in servers if remote.mask(s.endpoint) != served_by(capture))
                killed.process.send_signal(signal.SIGKILL)
        notes = list(pool.notes)
    assert [c.variant for c in got] == todo
    for c in got:
        assert np.array_equal(c.image, local[c.variant]), c.variant
    assert any(remote.mask(killed.endpoint) in n and "went away" in n for n in notes), notes
    assert any("went away" in line for line in said)


def theme_cli(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_STEP_SUMMARY", "PYTEST_ADDOPTS")}
    full.update(env)
    return subprocess.run([sys.executable, "-m", "theme", *args], cwd=cwd, env=full, capture_output=True, text=True)


def test_a_wrong_endpoint_is_exit_2_naming_it_with_its_token_masked(tmp_path):
    token = "s3cr3tT0kenValue42"
    endpoint = f"ws://127.0.0.1:9/{token}?token={token}"
    run = theme_cli(ROOT, "capture", "--out", str(tmp_path / "out"), THEME_BROWSER_ENDPOINTS=endpoint)
    assert run.returncode == 2, run.stdout + run.stderr
    [line] = [ln for ln in run.stderr.splitlines() if ln.startswith("theme: ")]
    assert "no browser endpoint answered" in line and "ws://127.0.0.1:9/s3c…" in line
    assert token not in run.stdout + run.stderr


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

PAGE = """<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="style.css"></head>
<body><h2>Alpha</h2><div class="box"></div></body></html>"""


def small_project(root: Path, colour: str) -> Path:
    (root / "scss").mkdir(parents=True, exist_ok=True)
    (root / "site").mkdir(exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "site/index.html").write_text(PAGE)
    (root / "scss/style.scss").write_text(f"body {{ margin: 0; }} .box {{ background: {colour}; width: 90px; height: 30px; }}")
    subprocess.run([sys.executable, "-m", "theme", "build", "-C", str(root)], check=True, capture_output=True)
    return root


def pytest_run(project: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_STEP_SUMMARY", "PYTEST_ADDOPTS")}
    full.update(env)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
                          cwd=project, env=full, capture_output=True, text=True)


def test_a_tokened_endpoint_never_reaches_an_output_file_and_a_local_baseline_is_drift(tmp_path, servers):
    endpoint = servers[0].endpoint
    token = endpoint.rsplit("/", 1)[1]  # the random path is what lets a client in
    project = small_project(tmp_path / "p", "#3366cc")
    assert pytest_run(project, "--update-snapshots").returncode == 0  # baselines from a local launch
    small_project(project, "#cc3333")
    run = pytest_run(project, THEME_BROWSER_ENDPOINTS=endpoint)
    assert run.returncode == 1, run.stdout
    assert "environment drift" in run.stdout  # made locally, checked on a server: said first
    assert pytest_run(project, "--update-snapshots", THEME_BROWSER_ENDPOINTS=endpoint).returncode == 0
    assert token not in run.stdout + run.stderr
    for path in project.rglob("*"):
        if path.is_file():
            assert token.encode() not in path.read_bytes(), path
