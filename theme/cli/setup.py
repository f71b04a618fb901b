"""`theme setup`: install what rendering needs (a Chromium, the emoji font) and git-lfs when
missing, and prepare what makes the commands fast (theme's bytecode, the compiled kernels)."""

from __future__ import annotations

import click

from . import main


@main.command()
@click.option("--no-playwright", is_flag=True,
              help="Do not try Playwright's own browser download; go straight to the system package.")
def setup(no_playwright: bool) -> None:
    """Make this machine able to render (a browser, the system fonts), fetch LFS baselines,
    and compile the kernels (idempotent)."""
    from ..init.provision import setup as run_setup

    for step in run_setup(lambda line: click.echo(line, err=True), try_playwright=not no_playwright):
        click.echo(f"{step.name}: {step.done}")
