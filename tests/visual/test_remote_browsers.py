"""Remote browsers: real `theme browser serve` servers on 127.0.0.1, Debian's Chromium.

The specimen through two endpoints is byte-identical to a local capture and both
servers render; a server killed mid-run leaves its variants to the other; a wrong
endpoint's token is never shown (a pytest run through one: tests/integration/test_remote_endpoint.py).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from theme.capture import Session, open_session, remote, variants
from theme.capture.pool import Pool
from theme.core import config

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def specimen():
    """The specimen's page variants and one reader state's (8 of its 16): each server gets a
    page and a state to render; the other states add renders, not cases."""
    cfg = config.load(ROOT / "pyproject.toml")
    todo = [v for v in variants(cfg.visual) if v.state in ("", cfg.visual.states[0].name)]
    assert len(todo) == 8 and any(v.state for v in todo)
    return cfg, todo


@pytest.fixture(scope="module")
def local(specimen):
    cfg, todo = specimen
    with Session(cfg.visual, source=cfg.source) as session:
        return {c.variant: c.image for c in session.capture_all(todo)}


@pytest.fixture
def servers(serve_browser):
    """Two `theme browser serve` processes (tests/conftest.py)."""
    return [serve_browser(), serve_browser()]


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


def test_a_server_whose_probe_page_stops_answering_is_an_error_naming_it(specimen, serve_browser, monkeypatch):
    """A remote browser is fingerprinted on a probe page theme writes; every question to that
    page is bounded too. Here the page's `navigator.platform` loops for ever (a stand-in for
    a renderer that stopped answering): connecting fails as unresponsive within the answer
    time, naming the server with its token masked, instead of holding the run."""
    from theme.capture import bounded, scripts
    from theme.core.errors import Unresponsive

    cfg, _todo = specimen
    served = serve_browser()
    looping = "<script>Object.defineProperty(Navigator.prototype, 'platform', { get() { for (;;) {} } });</script>"
    monkeypatch.setattr(scripts, "FONT_PROBE", scripts.FONT_PROBE + looping)
    monkeypatch.setattr(bounded, "ANSWER_S", 2.0)
    with pytest.raises(Unresponsive) as caught:
        with Session(cfg.visual, source=cfg.source, endpoint=served.endpoint):
            pass
    said = str(caught.value)
    assert said.startswith(f"the browser at {remote.mask(served.endpoint)} (its font probe): "), said
    assert "did not answer for 2 s" in said
    # the server itself is fine: a session on it now fingerprints it
    monkeypatch.undo()
    with Session(cfg.visual, source=cfg.source, endpoint=served.endpoint) as session:
        assert session.fingerprint["browser"]["found_by"] == remote.mask(served.endpoint)


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
