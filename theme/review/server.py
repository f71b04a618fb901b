"""`theme review`: the report served on 127.0.0.1 behind a random token, with Accept, Reject
and Undo; accepting writes through the same store code as `--update-snapshots` and refuses,
unless forced, a report made in another environment. The HTML also works as a plain file."""

from __future__ import annotations

import json
import mimetypes
import secrets
import threading
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ..baselines.store import Snapshot, Store
from ..core.errors import StoreError
from . import accept

VERDICTS = ("accepted", "rejected")
FORBIDDEN = b"forbidden: the URL theme review printed has a token"


@dataclass
class Review:
    """The decisions on one report folder, applied to the baselines as they are made."""

    folder: Path
    store: Store
    force: bool = False
    artifacts: tuple[Path, ...] = ()  # where full-size page images are (theme/review/accept.py actual_image)
    decisions: dict[str, str] = field(default_factory=dict)  # key -> accepted | rejected
    # each step: (key, its decision before, its baseline before when an accept rewrote it)
    _undo: list[list[tuple[str, str | None, Snapshot | None]]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.report = accept.load_report(self.folder)
        self.entries = {e.key: e for e in accept.candidates(self.report)}
        self.conflict = accept.environment_conflict(self.store, self.report)

    def state(self) -> dict[str, Any]:
        reviewed = sum(1 for k in self.entries if k in self.decisions)
        accepted = sorted(k for k, v in self.decisions.items() if v == "accepted")
        folder = self.store.root
        return {"reviewable": sorted(self.entries), "decisions": dict(self.decisions), "reviewed": reviewed,
                "total": len(self.entries), "conflict": None if self.force else self.conflict,
                "can_undo": bool(self._undo),
                "commit": (f"git add {folder} && git commit -m \"Accept {len(accepted)} visual change(s)\""
                           if accepted else None)}

    def decide(self, keys: list[str], verdict: str) -> dict[str, Any]:
        """Accept (write the actual images as baselines) or reject `keys`; one undo step."""
        if verdict not in VERDICTS:
            raise StoreError(f"{verdict!r}: a decision is one of {', '.join(VERDICTS)}")
        unknown = [k for k in keys if k not in self.entries]
        if unknown:
            raise StoreError(f"{unknown[0]}: not a failed image of this report with an actual image")
        if verdict == "accepted" and self.conflict and not self.force:
            raise StoreError(f"refusing to accept: {self.conflict} Re-run in the baselines' environment, "
                             "or start theme review with --force")
        if verdict == "accepted":  # every source found first: a missing one changes nothing
            for key in keys:
                accept.actual_image(self.folder, self.entries[key], self.artifacts, self.store)
        with self._lock:
            step: list[tuple[str, str | None, Snapshot | None]] = []
            for key in keys:
                before = self.store.snapshot(key) if verdict == "accepted" else None
                step.append((key, self.decisions.get(key), before))
                if verdict == "accepted":
                    self._accept(key)
                self.decisions[key] = verdict
            self._undo.append(step)
        return self.state()

    def _accept(self, key: str) -> None:
        entry = self.entries[key]
        pixels = accept.actual_image(self.folder, entry, self.artifacts, self.store).read(key, self.store)
        self.store.write(key, pixels, self.report.environment,
                         box=entry.box, frames=entry.frames)

    def undo(self) -> dict[str, Any]:
        """Take the last decision back: a baseline an accept rewrote gets its bytes back."""
        with self._lock:
            if not self._undo:
                raise StoreError("nothing to undo")
            for key, previous, before in reversed(self._undo.pop()):
                if before is not None:
                    self.store.restore(key, before)
                if previous is None:
                    self.decisions.pop(key, None)
                else:
                    self.decisions[key] = previous
        return self.state()


def serve(review: Review, port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """A server for `review` on 127.0.0.1 (started in a thread); returns it and its URL."""
    token = secrets.token_urlsafe(16)
    handler = type("Handler", (_Handler,), {"review": review, "token": token})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, name="theme-review", daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/{token}/index.html"


class _Handler(BaseHTTPRequestHandler):
    review: Review
    token: str

    def log_message(self, *args: object) -> None:  # quiet: the terminal shows the URL and nothing else
        pass

    def _path(self) -> str | None:
        """The path after the token, or None when the token is missing or wrong."""
        token, _, rel = unquote(urlsplit(self.path).path).lstrip("/").partition("/")
        return rel if secrets.compare_digest(token.encode(), self.token.encode()) else None

    def do_GET(self) -> None:
        rel = self._path()
        if rel is None:
            return self._send(HTTPStatus.FORBIDDEN, FORBIDDEN, "text/plain")
        if rel == "api/state":
            return self._json(self.review.state())
        # Resolved first: `..`, encoded or not, and symlinks out of the report are refused.
        target = (self.review.folder / rel).resolve()
        if not target.is_relative_to(self.review.folder.resolve()):
            return self._send(HTTPStatus.FORBIDDEN, b"forbidden: outside the report folder", "text/plain")
        if not target.is_file():
            return self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain")
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        self._send(HTTPStatus.OK, target.read_bytes(), kind)

    def do_POST(self) -> None:
        rel = self._path()
        if rel is None:
            return self._send(HTTPStatus.FORBIDDEN, FORBIDDEN, "text/plain")
        if rel not in ("api/decide", "api/undo"):
            return self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain")
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            if rel == "api/undo":
                return self._json(self.review.undo())
            return self._json(self.review.decide(list(body.get("keys", [])), str(body.get("verdict"))))
        except (StoreError, ValueError) as err:
            return self._json({"error": str(err)}, HTTPStatus.CONFLICT)

    def _json(self, data: dict[str, Any], status: HTTPStatus = HTTPStatus.OK) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _send(self, status: HTTPStatus, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


__all__ = ["Review", "serve"]
