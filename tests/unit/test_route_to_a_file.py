"""A `route` may map a URL to one file (theme init routes the Distill runtime's CDN address
to `vendor/distill/template.v2.js`): that address is served, with any query, and nothing
that merely starts the same; the config check accepts a file as a route's target."""

from __future__ import annotations

from pathlib import Path

import pytest

from theme.capture.config_checks import check_config
from theme.capture.lanes import routed_file
from theme.core.config import VisualConfig
from theme.core.errors import ConfigError

RUNTIME = "https://distill.pub/template.v2.js"


@pytest.fixture
def vendor(tmp_path) -> Path:
    (tmp_path / "vendor/distill").mkdir(parents=True)
    (tmp_path / "vendor/distill/template.v2.js").write_text("// runtime")
    (tmp_path / "vendor/katex/dist").mkdir(parents=True)
    (tmp_path / "vendor/katex/dist/katex.min.js").write_text("// katex")
    return tmp_path / "vendor"


@pytest.mark.parametrize("url, expected", [
    (RUNTIME, (True, "distill/template.v2.js")),
    (RUNTIME + "?v=2.8.0", (True, "distill/template.v2.js")),
    (RUNTIME + ".map", (False, None)),  # not the routed address, and no folder route covers it
    ("https://distill.pub/third-party/katex/katex.min.js", (True, "katex/dist/katex.min.js")),
    ("https://distill.pub/third-party/katex/missing.js", (True, None)),
    ("https://example.org/x.js", (False, None)),
])
def test_a_file_route_serves_its_one_address(vendor, url, expected):
    route = {RUNTIME: vendor / "distill/template.v2.js",
             "https://distill.pub/third-party/katex/": vendor / "katex/dist"}
    matched, local = routed_file(route, url)
    assert (matched, local and local.relative_to(vendor).as_posix()) == expected


def test_a_longer_url_falls_through_to_a_shorter_folder_route(vendor):
    """`…/npm/vega@5` (the package's default file) and `…/npm/vega@5/…` (any file in it)."""
    (vendor / "vega/build").mkdir(parents=True)
    (vendor / "vega/build/vega.min.js").write_text("// vega")
    route = {"https://cdn.jsdelivr.net/npm/vega@5": vendor / "vega/build/vega.min.js",
             "https://cdn.jsdelivr.net/npm/": vendor}
    assert routed_file(route, "https://cdn.jsdelivr.net/npm/vega@5") == (True, vendor / "vega/build/vega.min.js")
    assert routed_file(route, "https://cdn.jsdelivr.net/npm/vega@5.1/x.js") == (True, None)


def test_the_config_check_takes_a_file_and_names_a_target_that_is_neither(vendor, tmp_path):
    (tmp_path / "index.html").write_text("<p>x")
    ok = VisualConfig(root=tmp_path, route={RUNTIME: vendor / "distill/template.v2.js"})
    check_config(ok)
    missing = VisualConfig(root=tmp_path, route={RUNTIME: vendor / "distill/nothing.js"})
    with pytest.raises(ConfigError, match=r"route 'https://distill.pub/template.v2.js' maps to .*nothing.js, "
                                          r"which is neither a folder nor a file; create it or fix the route"):
        check_config(missing)
