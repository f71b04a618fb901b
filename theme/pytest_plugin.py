"""pytest plugin: collects visual checks from [tool.theme.visual] (being built, see issue 5)."""

from __future__ import annotations


def pytest_addoption(parser):
    group = parser.getgroup("theme", "visual snapshot checks (theme)")
    group.addoption(
        "--update-snapshots", nargs="?", const="changed", default=None,
        choices=("missing", "changed", "all"),
        help="write baselines: missing, changed (default when given) or all",
    )
