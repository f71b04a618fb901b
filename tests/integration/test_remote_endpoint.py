"""A pytest run through `theme browser serve`, on the plugin tests' tiny article: the endpoint's
token reaches no output file, and a baseline made locally and checked remotely is drift."""

from __future__ import annotations

from pathlib import Path

import pytest

from tiny_article import run, set_box_colour

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_tokened_endpoint_never_reaches_an_output_file_and_a_local_baseline_is_drift(
        project: Path, serve_browser, monkeypatch):
    endpoint = serve_browser().endpoint
    token = endpoint.rsplit("/", 1)[1]  # the random path is what lets a client in
    assert run(project, "--update-snapshots").returncode == 0  # baselines from a local launch
    set_box_colour(project, "#cc3333")
    monkeypatch.setenv("THEME_BROWSER_ENDPOINTS", endpoint)
    checked = run(project)
    assert checked.returncode == 1, checked.stdout
    assert "environment drift" in checked.stdout  # made locally, checked on a server: said first
    assert run(project, "--update-snapshots").returncode == 0
    assert token not in checked.stdout + checked.stderr
    for path in project.rglob("*"):
        if path.is_file():
            assert token.encode() not in path.read_bytes(), path
