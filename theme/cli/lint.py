"""`theme lint`: argument handling around theme.init.lint (see that module for what is checked)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path

import click

from ..core.config import Config
from ..core.errors import ConfigError
from ..init import lint as lint_mod
from ..init.lint.model import display
from . import LoadConfig, main, project_options

_CODES_HELP = "\n".join(f"  {code}  {sev:<7}  {text}" for code, (sev, text) in lint_mod.CODES.items())


@main.command(epilog="\b\nCodes:\n" + _CODES_HELP)
@project_options
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--fix", is_flag=True, help="Rewrite broken note-box content in place, then lint again.")
@click.option("--diff", "show_diff", is_flag=True,
              help="Print the unified diff --fix would apply; exit 1 if there is one.")
@click.option("--strict", is_flag=True, help="Warnings (TL021) also make the exit code 1.")
@click.option("--css", "css", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="A stylesheet every page counts as loaded (repeatable).")
@click.option("--no-render", "no_render", is_flag=True,
              help="Do not run the pages' scripts in Chromium; classes they supply are then unknown.")
def lint(load_config: LoadConfig, paths: tuple[Path, ...], fix: bool, show_diff: bool, strict: bool,
         css: tuple[Path, ...], no_render: bool) -> None:
    """Check article HTML against the theme's contract.

    With no PATHS: the configured pages under [tool.theme.visual] root and their
    copies in the sibling src/ folder. Classes are checked against the stylesheets
    each page loads (<link>, <style>, @import), --css, the config's built outputs
    when they exist, and, for a page with scripts, the sheets those add when it is
    loaded once in Chromium. Prints `path:line:col: CODE message`; which sources
    each page's classes came from goes to stderr. Exit 0 clean (warnings allowed
    unless --strict), 1 problems (or a non-empty --diff), 2 unreadable input or bad config.
    """
    if fix and show_diff:
        raise click.UsageError("--fix and --diff do not combine; --diff shows what --fix would do")
    config = _config(load_config, explicit=bool(paths))
    cwd = Path.cwd()
    files = lint_mod.targets(list(paths) or None, config)
    if show_diff:
        raise SystemExit(1 if _print_diffs(files, cwd) else 0)
    if fix:
        for path in files:
            _, _, count = lint_mod.fix_file(path)
            if count:
                click.echo(f"theme lint: fixed {count} note-box content(s) in {_show(path, cwd)}", err=True)
    result = lint_mod.lint(list(paths) or None, config, css=css, render=not no_render)
    for said in result.sources.values():
        click.echo(f"theme lint: {said}", err=True)
    for problem in result.problems:
        click.echo(problem.format(cwd))
    failing = result.problems if strict else result.errors
    if result.problems:
        click.echo(f"theme lint: {len(result.errors)} error(s), {len(result.warnings)} warning(s) "
                   f"in {len(result.files)} file(s)", err=True)
    raise SystemExit(1 if failing else 0)


def _config(load_config: LoadConfig, explicit: bool) -> Config | None:
    """The project config; with explicit PATHS and no config anywhere, lint without one
    (the src/dist copy checks need it and are skipped, said on stderr)."""
    try:
        return load_config()
    except ConfigError:
        if not explicit or load_config.args[0] is not None:  # --config given: its errors count
            raise
        click.echo("theme lint: no [tool.theme] config found; src/dist checks skipped", err=True)
        return None


def _show(path: Path, cwd: Path) -> str:
    return display(path, cwd)


def _print_diffs(files: Iterable[Path], cwd: Path) -> bool:
    changed = False
    for path in files:
        before, after, _ = lint_mod.fix_file(path, write=False)
        if before == after:
            continue
        changed = True
        name = _show(path, cwd)
        click.echo("".join(difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True),
            fromfile=f"a/{name}", tofile=f"b/{name}")), nl=False)
    return changed
