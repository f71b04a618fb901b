"""Remote browsers: `theme browser serve` (a Playwright browser server with the engine's
flags) and the endpoints a run connects to instead of launching a browser itself.

A server speaks Playwright's own protocol (browser_type.connect), not CDP, so routing,
tiles and the fingerprint work as with a local launch; tokens in URLs are never shown."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Mapping
from urllib.parse import urlsplit, urlunsplit

from ..core.errors import ConfigError
from .browser import find_browser, launch_flags

ENV = "THEME_BROWSER_ENDPOINTS"


def endpoints(configured: tuple[str, ...] = (), env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The endpoints a run connects to: THEME_BROWSER_ENDPOINTS (comma-separated) over the
    config's `[tool.theme.visual.browser] endpoints`; () means launch a local browser."""
    text = (os.environ if env is None else env).get(ENV, "")
    chosen = tuple(e.strip() for e in text.split(",") if e.strip()) if text.strip() else tuple(configured)
    for endpoint in chosen:
        if urlsplit(endpoint).scheme not in ("ws", "wss"):
            where = ENV if text.strip() else "[tool.theme.visual.browser] endpoints"
            raise ConfigError(f"{where}: {mask(endpoint)!r} is not a ws:// or wss:// URL; "
                              "give the line `theme browser serve` printed")
    return chosen


def mask(endpoint: str) -> str:
    """The endpoint as output may show it: user info, query values and long path segments
    (the usual places for tokens) cut to their first 3 characters."""
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return _cut(endpoint)
    netloc = ("***@" if parts.username or parts.password else "") + host + port
    path = "/".join(_cut(seg) if len(seg) > 8 else seg for seg in parts.path.split("/"))
    query = "&".join(f"{k}={_cut(v)}" if sep else _cut(k)
                     for k, sep, v in (p.partition("=") for p in parts.query.split("&") if p))
    return urlunsplit((parts.scheme, netloc, path, query, ""))


def _cut(secret: str) -> str:
    return secret[:3] + "…" if len(secret) > 3 else "…"


def scrub(text: str, known: tuple[str, ...]) -> str:
    """`text` with every known endpoint in it replaced by its masked form."""
    for endpoint in sorted(known, key=len, reverse=True):
        text = text.replace(endpoint, mask(endpoint))
    return re.sub(r"(wss?://)[^\s'\"@/]+@", r"\1***@", text)


@dataclass
class Served:
    endpoint: str
    process: subprocess.Popen[str]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def serve(host: str = "127.0.0.1", port: int = 0, path: str | None = None, *,
          browser: str | None = None, offline: bool = True) -> Served:
    """Start a browser server from the local installation with the engine's launch flags.

    The path is random unless given: knowing it is what lets a client in."""
    import playwright

    driver = Path(playwright.__file__).parent / "driver"
    node = driver / ("node.exe" if os.name == "nt" else "node")
    info = find_browser(browser)
    options = {"executablePath": str(info.executable), "args": launch_flags(offline=offline),
               "headless": True, "host": host, "port": port,
               "wsPath": path or "/" + secrets.token_urlsafe(16)}
    script = (files("theme.capture") / "serve.js").read_text(encoding="utf-8")
    process = subprocess.Popen([str(node), "-e", script, json.dumps(options)],
                               env={**os.environ, "THEME_PLAYWRIGHT_PACKAGE": str(driver / "package")},
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline() if process.stdout is not None else ""  # a pipe: never None
    try:
        said = json.loads(line)
    except ValueError:
        said = {"error": line.strip() or f"the server exited with {process.wait()}"}
    if "endpoint" not in said:
        Served("", process).stop()
        first = str(said.get("error", "")).strip().splitlines()[0] if said.get("error") else "no endpoint"
        raise ConfigError(f"theme browser serve on {host}:{port}: {first}; "
                          "check the port is free and THEME_BROWSER names a working Chromium")
    return Served(said["endpoint"], process)


__all__ = ["ENV", "Served", "endpoints", "mask", "scrub", "serve"]
