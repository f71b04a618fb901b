"""`theme build` and `theme tokens`: argument handling around theme.build and theme.tokens.

The library modules are imported inside the commands, so `theme --help` and the
other commands never pay for libsass, and `theme build` never pays for anything
but libsass (benchmarks/build_bench.py holds it to 1.5x bare pysassc).
"""

from __future__ import annotations

import click

from . import main, project_options


@main.command("build")
@project_options
@click.option("--check", is_flag=True,
              help="Compile in memory and compare with every output; exit 1 with a diff when stale.")
@click.option("--watch", "watch_", is_flag=True,
              help="Build, then rebuild on every change under the SCSS folders until Ctrl-C.")
@click.option("--style", type=click.Choice(["expanded", "compressed"]), default=None,
              help="CSS output style (default: [tool.theme] style, else expanded).")
@click.option("--source-map/--no-source-map", default=None,
              help="Write style.css.map beside each output (default: [tool.theme] source_map).")
def build_command(load_config, check: bool, watch_: bool, style: str | None,
                  source_map: bool | None) -> None:
    """Compile the SCSS entry once and write the same bytes to every output."""
    from .. import build as build_mod

    if check and watch_:
        raise click.UsageError("--check and --watch cannot be combined")
    cfg = load_config()
    if check:
        _check(build_mod, cfg, style, source_map)
    elif watch_:
        folder = build_mod.display_path(cfg.build.entry.parent)
        try:
            build_mod.watch(cfg, report=_report, style=style, source_map=source_map,
                            ready=lambda: click.echo(f"theme: watching {folder} (Ctrl-C stops)"))
        except KeyboardInterrupt:  # Ctrl-C between two watcher polls: a normal way to stop
            pass
        click.echo("theme: stopped watching")
    else:
        _report(build_mod.build(cfg, style=style, source_map=source_map))


def _check(build_mod, cfg, style, source_map) -> None:
    stale = build_mod.check(cfg, style=style, source_map=source_map)
    for item in stale:
        click.echo(item.diff, nl=not item.diff.endswith("\n"))
    if stale:
        names = ", ".join(build_mod.display_path(s.path) for s in stale)
        click.echo(f"theme: stale: {names}; run `theme build` and commit the result", err=True)
        raise SystemExit(1)
    click.echo(f"theme: {len(cfg.build.outputs)} output(s) current")


def _report(result) -> None:
    """One line per build; errors go to stderr (watch mode keeps going after them)."""
    from .. import build as build_mod
    from ..errors import BuildError

    if isinstance(result, BuildError):
        click.echo(f"theme: {result}", err=True)
        return
    written = ", ".join(build_mod.display_path(p) for p in result.written) or "nothing"
    note = f"; {len(result.unchanged)} already current" if result.unchanged else ""
    click.echo(f"theme: wrote {written} ({result.size} bytes of CSS){note}")


@main.command("tokens")
@project_options
@click.option("--json", "as_json", is_flag=True, help="Print every token as JSON.")
def tokens_command(load_config, as_json: bool) -> None:
    """List every design token with its light and dark value."""
    from .. import build as build_mod
    from .. import tokens as tokens_mod

    cfg = load_config()
    css = build_mod.compile_theme(cfg, source_map=False).css.decode("utf-8")
    found = tokens_mod.read_tokens(css)
    if as_json:
        click.echo(tokens_mod.to_json(found))
        return
    width = max((len(t.property) for t in found), default=0)
    for t in found:
        dark = "" if t.dark == t.light else f"   dark: {t.dark}"
        click.echo(f"{t.property:<{width}}  light: {t.light}{dark}")
