"""The `theme` command line: argument handling, one library call, one `except ThemeError`.

Each command lives in its own module below and registers itself on `main`.
Exit codes everywhere: 0 ok, 1 differences found or outputs stale, 2 usage,
config or build error (click uses 2 for usage errors too).
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

import click

from ..core import config as config_mod
from ..core.errors import ThemeError

# What a command decorated with project_options is handed: config.load with -C and --config
# applied, called when the command needs the config (`.args[0]`: the --config file, or None).
LoadConfig = functools.partial[config_mod.Config]


class _Group(click.Group):
    """Loads commands lazily; turns any ThemeError escaping one into one line and its exit code."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in COMMANDS and name not in self.commands:
            importlib.import_module(f"{__name__}.{COMMANDS[name][0]}")  # registers on `main`
        return self.commands.get(name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of `theme --help` from COMMANDS, without importing any command
        module (they import numpy, Playwright, html5lib): `--help` stays instant."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        # A bare Command shortens the text as the real one would, through click's public API
        # (click.utils.make_default_short_help went private in click 8.5).
        rows = [(name, click.Command(name, help=COMMANDS[name][1]).get_short_help_str(limit))
                for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except ThemeError as err:
            click.echo(f"theme: {err}", err=True)
            ctx.exit(err.exit_code)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="theme")
def main() -> None:
    """Build an article's stylesheet from SCSS tokens and check every visual change."""


def project_options(command: Callable[..., None]) -> Callable[..., None]:
    """Adds `-C DIR` and `--config FILE` to a command and passes a loader instead.

    The command receives `load_config`, a zero-argument callable, so commands that
    do not need the config (e.g. `theme diff`) never fail on a missing pyproject.
    """

    @click.option("-C", "directory", type=click.Path(file_okay=False, path_type=Path),
                  help="Run as if theme was started in DIR (like git -C).")
    @click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path),
                  help="Read [tool.theme] from FILE instead of the nearest pyproject.toml.")
    @functools.wraps(command)
    def wrapper(*args: object, directory: Path | None, config_file: Path | None, **kwargs: object) -> None:
        if directory is not None:
            if not directory.is_dir():
                raise click.BadParameter(f"{directory}: no such directory", param_hint="-C")
            os.chdir(directory)
        loader = functools.partial(config_mod.load, config_file, cwd=Path.cwd())
        command(*args, load_config=loader, **kwargs)

    return wrapper


def run() -> None:  # pragma: no cover - console entry for `python -m theme`
    sys.exit(main())


# Command name -> (the module that defines it, its short help). Modules are imported only
# when their command runs: `theme build` must not pay for numpy, Playwright or html5lib
# (measured: eager imports made it 6x bare pysassc; lazy, ~1.3x), and `theme --help` pays
# for none. The short help is the command's own (tests/unit/test_cli_startup.py holds them equal).
COMMANDS = {
    "accept": ("review", "Copy the actual images of a finished run's report into the baselines."),
    "browser": ("browser", "Browsers that other machines (or containers) render on."),
    "build": ("build", "Compile the SCSS entry once and write the same bytes to every output."),
    "capture": ("capture", "Capture every page × viewport × colour scheme of [tool.theme.visual] as PNG files."),
    "compare": ("compare", "Build and capture both revisions in temporary worktrees and report every difference."),
    "diff": ("diff", "Compare EXPECTED and ACTUAL PNG images; exit 1 if they differ."),
    "init": ("init", "Render the article in DIR, merge [tool.theme.visual], vendor what it loads from CDNs, "
                     "write .gitignore entries and the CI workflow."),
    "lint": ("lint", "Check article HTML against the theme's contract."),
    "report": ("review", "Work with review reports."),
    "review": ("review", "Serve a report on 127.0.0.1 with Accept, Reject and Undo on every card; Ctrl-C stops."),
    "setup": ("setup", "Make this machine able to render (a browser, the system fonts), fetch LFS baselines, "
                       "and compile the kernels (idempotent)."),
    "tokens": ("build", "List every design token with its light and dark value."),
    "why": ("why", "Explain one failed image of the last run: its style and box diff, its group, its files."),
}
