"""A static file server on 127.0.0.1 that serves only files under one folder.

Bound to the loopback address on a free port chosen by the kernel (port 0), so
two sessions never clash and nothing outside this machine can connect.
"""

from __future__ import annotations

import mimetypes
import posixpath
import socket
import socketserver
import threading
from functools import partial
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

HOST = "127.0.0.1"

# mimetypes misses these on minimal systems; a wrong font type makes Chromium refuse the font.
_TYPES = {
    ".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".otf": "font/otf",
    ".svg": "image/svg+xml", ".js": "text/javascript", ".mjs": "text/javascript",
    ".css": "text/css", ".html": "text/html; charset=utf-8", ".json": "application/json",
    ".wasm": "application/wasm",
}


def content_type(path: Path) -> str:
    return _TYPES.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def resolve(root: Path, url_path: str) -> Path | None:
    """The file under `root` that `url_path` names, or None (→ 404).

    A folder serves its index.html. Query and fragment are ignored. Safety is
    decided on the *lexical* path: percent-decoded once, every segment checked
    ('..', '.', backslash and NUL are refused, so `/%2e%2e/pyproject.toml` fails
    like `/../pyproject.toml`). Symlinks placed inside the root by the author are
    followed (the specimen's article/src/assets is one), but no request can name
    a path outside the root.
    """
    path = unquote(urlsplit(url_path).path, errors="strict") if url_path else "/"
    if "\\" in path or "\x00" in path or not path.startswith("/"):
        return None
    segments = [s for s in path.split("/") if s]
    if any(s in (".", "..") for s in segments):
        return None
    target = root.joinpath(*segments) if segments else root
    if posixpath.normpath("/" + "/".join(segments)) != "/" + "/".join(segments):
        return None  # belt and braces: normalisation must not change a clean path
    if target.is_dir():
        target = target / "index.html"
    return target if target.is_file() else None


class _Handler(BaseHTTPRequestHandler):
    server_version = "theme-capture"
    protocol_version = "HTTP/1.1"

    def __init__(self, request: socket.socket, client_address: tuple[str, int], server: socketserver.BaseServer, *,
                 root: Path):
        self.root = root
        super().__init__(request, client_address, server)

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        self._serve(body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self._serve(body=False)

    def _serve(self, *, body: bool) -> None:
        try:
            target = resolve(self.root, self.path)
        except UnicodeDecodeError:
            target = None
        if target is None:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain", body)
            return
        self._send(HTTPStatus.OK, target.read_bytes(), content_type(target), body)

    def _send(self, status: HTTPStatus, data: bytes, ctype: str, body: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        # Every capture must see the files as they are now, never a cached copy.
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if body:
            self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:  # quiet: progress goes elsewhere
        pass


class LocalServer:
    """Context manager: `with LocalServer(root) as srv: srv.origin` → 'http://127.0.0.1:PORT'."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._httpd = ThreadingHTTPServer((HOST, 0), partial(_Handler, root=self.root))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="theme-server", daemon=True)

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._httpd.server_address[:2]
        return str(host), port

    @property
    def origin(self) -> str:
        host, port = self.address
        return f"http://{host}:{port}"

    def url(self, page: str) -> str:
        return f"{self.origin}/{page.lstrip('/')}"

    def local_file(self, url: str) -> Path | None:
        """The file behind one of our own URLs (for the font fingerprint)."""
        if not url.startswith(self.origin + "/"):
            return None
        return resolve(self.root, url[len(self.origin):])

    def __enter__(self) -> "LocalServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._thread.is_alive():
            self._httpd.shutdown()
        self._httpd.server_close()
