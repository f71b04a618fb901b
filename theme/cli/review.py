"""`theme accept` and `theme report merge`: close the review loop without re-running."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from . import LoadConfig, main, project_options

if TYPE_CHECKING:
    from ..core.config import Config
    from ..review.report import Report


def artifacts_option(command: Callable[..., None]) -> Callable[..., None]:
    return click.option(
        "--artifacts", "artifacts", multiple=True, type=click.Path(file_okay=False, path_type=Path),
        metavar="DIR", help="Where the run's full-size page images are (e.g. an unzipped visual-artifacts "
        "artefact; repeatable); the configured artifacts folder is looked in after them.")(command)


def _artifacts(given: tuple[Path, ...], cfg: Config) -> tuple[Path, ...]:
    """--artifacts folders first, then the project's own (config `artifacts`)."""
    own = cfg.visual.artifacts if cfg.visual else cfg.project_dir / ".theme-artifacts"
    return tuple(given) + (Path(own),)


@main.command()
@click.argument("report_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--only", "only", multiple=True, metavar="GLOB",
              help="Accept only keys matching GLOB (repeatable), e.g. 'index/*/note-box/*'.")
@click.option("--force", is_flag=True, help="Accept even when the report's environment differs from the baselines'.")
@artifacts_option
@project_options
def accept(report_dir: Path, only: tuple[str, ...], force: bool, artifacts: tuple[Path, ...],
           load_config: LoadConfig) -> None:
    """Copy the actual images of a finished run's report into the baselines."""
    from ..baselines.store import Store
    from ..review.accept import accept as run_accept

    cfg = load_config()
    store = Store(cfg.visual.snapshots if cfg.visual else cfg.project_dir / "snapshots")
    done = run_accept(report_dir, store, only=only, force=force, artifacts=_artifacts(artifacts, cfg))
    for item in done:
        click.echo(f"accepted  {item.key}")
    click.echo(f"theme: {len(done)} baseline(s) accepted into {store.root}")
    if not done:
        raise SystemExit(1)


@main.group()
def report() -> None:
    """Work with review reports."""


@report.command("merge")
@click.argument("folders", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("visual-report"),
              show_default=True, help="Folder for the merged report.")
@project_options
def merge(folders: tuple[Path, ...], out: Path, load_config: LoadConfig) -> None:
    """Merge the report.json of several shards into one report and summary.

    Baselines in the project's snapshots/ that no shard checked are reported as unused.
    """
    from ..baselines.store import Store
    from ..core.errors import ConfigError
    from ..review import report as report_mod
    from ..review.accept import load_report

    try:
        cfg = load_config()
        baselines = Store(cfg.visual.snapshots).keys() if cfg.visual else None
    except ConfigError:
        baselines = None  # merging outside a checkout: no unused detection
    merged = report_mod.merge((_absolute_images(load_report(f), f) for f in folders), baselines)
    index = report_mod.write(out, merged)
    report_mod.append_step_summary(merged)
    counts = merged.counts()
    click.echo(f"merged {len(folders)} report(s) into {index}: " +
               ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    if counts.get("failed") or counts.get("unused"):
        raise SystemExit(1)


def _absolute_images(rep: Report, folder: Path) -> Report:
    """Image paths in a shard are relative to its folder; make them absolute so write() copies them."""
    from dataclasses import replace

    def absolute(path: str) -> str:
        return str((folder / path).resolve())

    entries = tuple(replace(e, images={k: absolute(v) for k, v in e.images.items()},
                            bands=tuple({**b, "images": {k: absolute(v) for k, v in b["images"].items()}}
                                        for b in e.bands),
                            overview={**e.overview, "image": absolute(e.overview["image"])} if e.overview else None,
                            patch={**e.patch, "image": absolute(e.patch["image"])}
                            if e.patch and e.patch.get("image") else e.patch)
                    for e in rep.entries)
    return replace(rep, entries=entries)


@main.command()
@click.argument("report_dir", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1; 0 picks a free one.")
@click.option("--no-open", is_flag=True, help="Print the URL without opening a browser.")
@click.option("--force", is_flag=True, help="Allow accepting a report made in another environment than the baselines'.")
@artifacts_option
@project_options
def review(report_dir: Path | None, port: int, no_open: bool, force: bool, artifacts: tuple[Path, ...],
           load_config: LoadConfig) -> None:
    """Serve a report on 127.0.0.1 with Accept, Reject and Undo on every card; Ctrl-C stops."""
    import threading
    import webbrowser

    from ..baselines.store import Store
    from ..review.server import Review, serve

    cfg = load_config()
    folder = report_dir or (cfg.visual.report if cfg.visual else cfg.project_dir / "visual-report")
    store = Store(cfg.visual.snapshots if cfg.visual else cfg.project_dir / "snapshots")
    server, url = serve(Review(Path(folder), store, force=force, artifacts=_artifacts(artifacts, cfg)), port)
    click.echo(url)
    click.echo("… reviewing; accepted images are written to the baselines at once; Ctrl-C stops", err=True)
    if not no_open:
        webbrowser.open(url)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
