"""Endpoints of remote browsers: where they come from, what is refused, and how tokens are hidden."""

from __future__ import annotations

import pytest

from theme.capture import remote
from theme.core import config
from theme.core.errors import ConfigError


def test_the_environment_overrides_the_config():
    configured = ("ws://a:1/x",)
    assert remote.endpoints(configured, env={}) == configured
    assert remote.endpoints(configured, env={remote.ENV: " ws://b:2/y , wss://c:3/z "}) == ("ws://b:2/y", "wss://c:3/z")
    assert remote.endpoints(configured, env={remote.ENV: " "}) == configured  # empty: not an override


def test_a_non_websocket_endpoint_is_refused_without_its_token():
    with pytest.raises(ConfigError) as err:
        remote.endpoints((), env={remote.ENV: "http://box:3000/s3cr3tpath"})
    assert remote.ENV in str(err.value) and "s3cr3tpath" not in str(err.value)


@pytest.mark.parametrize("endpoint, shown", [
    ("ws://127.0.0.1:3000/theme", "ws://127.0.0.1:3000/theme"),
    ("ws://127.0.0.1:3000/vw18MEm9U1Vd44bA6sbA4A", "ws://127.0.0.1:3000/vw1…"),
    ("wss://user:pa55@grid.example:443/playwright?token=abcdef&x=1", "wss://***@grid.example:443/pla…?token=abc…&x=…"),
])
def test_mask_cuts_tokens(endpoint, shown):
    assert remote.mask(endpoint) == shown


def test_scrub_replaces_every_known_endpoint_in_a_message():
    endpoint = "ws://127.0.0.1:9/abcdefghijklmnop"
    text = remote.scrub(f"connect {endpoint} failed; ws://u:p@h:1/ too", (endpoint,))
    assert "abcdefghijklmnop" not in text and "u:p@" not in text and "ws://127.0.0.1:9/abc…" in text


def test_browser_table_is_read_and_checked(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.theme]\n[tool.theme.visual]\nroot = "."\n'
                    '[tool.theme.visual.browser]\nendpoints = ["ws://h:1/p"]\nlanes = 2\n')
    assert config.load(path).visual.browser == config.BrowserConfig(("ws://h:1/p",), 2)
    path.write_text('[tool.theme]\n[tool.theme.visual]\nroot = "."\n[tool.theme.visual.browser]\nlanes = 0\n')
    with pytest.raises(ConfigError, match=r"pyproject.toml:5:1: lanes must be a positive integer"):
        config.load(path)
