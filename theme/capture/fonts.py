"""The fonts that can reach the pixels, for the environment fingerprint: the web
fonts a page loaded (web_fonts: hashed from the files served), and the system
fonts fontconfig picks on this machine (fallback_fonts): two machines with the
same browser but another DejaVu or Noto Color Emoji render differently."""

from __future__ import annotations

import shutil
import subprocess
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Iterable, Mapping
from urllib.parse import unquote, urlsplit

from ..core.fsutil import sha256_file
from .lanes import routed_file
from .server import LocalServer

WEB_FONT_EXT = (".woff2", ".woff", ".ttf", ".otf")

# The generic families CSS defines, plus `emoji`: what a stack ends in, and what
# Chromium falls back through for characters no named font has.
GENERIC = ("serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui", "emoji", "math")
# CSS-wide keywords and generics Chromium resolves without fontconfig lookups by name.
_NOT_FAMILIES = {"inherit", "initial", "unset", "revert", "revert-layer", "-webkit-body", "-webkit-pictograph"}


def split_stack(stack: str) -> list[str]:
    """A computed `font-family` value → its family names, unquoted, in order.

    Computed values quote names that need it (`"Source Serif 4", serif`); a
    comma never appears inside a family name that Chromium serialises.
    """
    names = []
    for part in stack.split(","):
        name = part.strip().strip("\"'").strip()
        if name and name.lower() not in _NOT_FAMILIES:
            names.append(name)
    return names


@lru_cache(maxsize=None)
def _fc_match(family: str) -> str | None:
    exe = shutil.which("fc-match")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "-f", "%{file}", family], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


@lru_cache(maxsize=None)
def _sha256(path: str, size: int, mtime_ns: int) -> str:  # size/mtime make the cache notice a changed file
    return sha256_file(path)


def file_sha256(path: str | Path) -> str:
    st = Path(path).stat()
    return _sha256(str(path), st.st_size, st.st_mtime_ns)


def web_fonts(urls: Iterable[str], server: LocalServer, route: Mapping[str, Path]) -> dict[str, str]:
    """sha256 of every font file the page loaded, keyed by path under root (or routed URL)."""
    out = {}
    for url in sorted(set(urls)):
        if not urlsplit(url).path.lower().endswith(WEB_FONT_EXT):
            continue
        name, local = file_of(url, server, route)
        if local is not None:
            out[name] = file_sha256(local)  # cached: every variant loads the same files
    return out


def file_of(url: str, server: LocalServer, route: Mapping[str, Path | str]) -> tuple[str, Path | None]:
    """How a file the page loaded is named (its path under root for our server's URLs, else
    the URL a `route` answers) and the file that answers it now, or None (a 404, no route)."""
    if url.startswith(server.origin + "/"):
        return PurePosixPath(unquote(urlsplit(url).path)).as_posix().lstrip("/"), server.local_file(url)
    return url, routed_file(route, url)[1]


def fallback_fonts(families: Iterable[str]) -> dict[str, dict[str, str] | None]:
    """{family: {"file": path, "sha256": hex}} for the generics and every given family, sorted by family.

    Generic families (`serif` …), families no @font-face provides, and characters
    the web fonts lack (an emoji in a note-box title) are drawn with fonts that
    fontconfig picks. `fc-match -f '%{file}' FAMILY` asks it the question Chromium
    asks on Linux, so the file named is the one a fallback would use; each file is
    hashed once per process (keyed by path, size and mtime).

    A family fontconfig cannot answer for (no `fc-match` on PATH) maps to None,
    so the fingerprint says "unknown" instead of silently leaving it out.
    """
    out: dict[str, dict[str, str] | None] = {}
    for family in sorted(set(GENERIC) | {f for f in families if f}):
        file = _fc_match(family)
        if file is None or not Path(file).is_file():
            out[family] = None
            continue
        out[family] = {"file": file, "sha256": file_sha256(file)}
    return out
