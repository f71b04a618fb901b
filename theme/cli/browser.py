"""`theme browser serve`: a Playwright browser server with the engine's launch flags, for
runs that connect to it (THEME_BROWSER_ENDPOINTS or `[tool.theme.visual.browser]`)."""

from __future__ import annotations

import signal
import threading

import click

from . import main


@main.group()
def browser() -> None:
    """Browsers that other machines (or containers) render on."""


@browser.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; 0.0.0.0 lets other machines connect (e.g. in a container).")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port to listen on; 0 picks a free one.")
@click.option("--path", "path", default=None,
              help="The endpoint's path, e.g. /theme; default: a random one, which acts as its token.")
@click.option("--online", is_flag=True,
              help="Let pages reach the internet (the default aborts what is not routed, like a local run).")
def serve(host: str, port: int, path: str | None, online: bool) -> None:
    """Start a browser server from this machine's Chromium and print its endpoint; runs until stopped."""
    from ..capture import remote

    if path is not None and not path.startswith("/"):
        raise click.BadParameter("must start with /", param_hint="--path")
    served = remote.serve(host, port, path, offline=not online)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    click.echo(served.endpoint, nl=True)
    click.echo("… serving; connect with THEME_BROWSER_ENDPOINTS=<the line above>; Ctrl-C stops", err=True)
    try:
        while not stop.wait(1.0):
            if served.process.poll() is not None:
                raise SystemExit(f"theme: the browser server stopped (exit {served.process.returncode})")
    finally:
        served.stop()
