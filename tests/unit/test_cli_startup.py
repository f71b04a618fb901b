"""`theme --help` and `theme build` start without the heavy libraries (numpy, Playwright,
html5lib): command modules load only when their command runs (theme/cli/__init__.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest

from theme.cli import COMMANDS, main

HEAVY = ("numpy", "playwright", "html5lib", "PIL")

# Runs the CLI in a fresh interpreter and prints which heavy modules got imported.
PROBE = """
import json, sys
from theme.cli import main
try:
    main(sys.argv[1:], standalone_mode=True)
except SystemExit:
    pass
print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)), file=sys.stderr)
"""


def imported(*args: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY), *args],
                          capture_output=True, text=True)
    return json.loads(done.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("args, allowed", [
    (("--help",), ()), (("build", "--help"), ()), (("tokens", "--help"), ()),
    (("lint", "--help"), ("html5lib",)),  # lint parses HTML; it still needs no pixels and no browser
])
def test_help_imports_no_heavy_library(args, allowed):
    assert [m for m in imported(*args) if m not in allowed] == []


def test_the_command_list_is_each_commands_own_short_help():
    """`--help` reads COMMANDS instead of importing every command: the two must agree."""
    ctx = click.Context(main)
    for name, (_module, short) in COMMANDS.items():
        command = main.get_command(ctx, name)
        assert command is not None, name
        assert command.get_short_help_str(limit=10**6) == short, name
