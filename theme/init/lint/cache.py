"""What a page's render taught the lint, kept until one of the files it loaded changes.

The key is every input of the render: the page, each local or routed file the browser fetched
(Resource Timing lists them, including what scripts fetched), the served root and the routes.
Stored in $THEME_LINT_CACHE, else $XDG_CACHE_HOME/theme/lint (~/.cache), one JSON file a page, atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Mapping

from ... import __version__
from ...core.fsutil import atomic_write_text

VERSION = 3  # raise when what a render collects changes (3: classes of selectors scripts build)


ENV = "THEME_LINT_CACHE"


def folder() -> Path:
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "theme" / "lint"


def digest(path: Path) -> str | None:
    """sha256 of a file's bytes; None when it does not exist (creating it changes the key)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _where(page: Path) -> Path:
    return folder() / (hashlib.sha256(str(page.resolve()).encode()).hexdigest()[:32] + ".json")


def _context(page: Path, root: Path, route: Mapping[str, Path]) -> dict[str, Any]:
    return {"version": VERSION, "theme": __version__, "page": str(page.resolve()), "root": str(root.resolve()),
            "route": {prefix: str(Path(path).resolve()) for prefix, path in sorted(route.items())}}


def load(page: Path, root: Path, route: Mapping[str, Path]) -> dict[str, Any] | None:
    """The stored result for this page when its context and every input file are unchanged."""
    try:
        entry = json.loads(_where(page).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if entry.get("context") != _context(page, root, route):
        return None
    if any(digest(Path(path)) != value for path, value in entry.get("inputs", {}).items()):
        return None
    result = entry.get("result")
    return result if isinstance(result, dict) else None


def store(page: Path, root: Path, route: Mapping[str, Path], inputs: list[Path], result: dict[str, Any]) -> None:
    files = {str(Path(p).resolve()): digest(p) for p in sorted(set(inputs) | {page})}
    entry = {"context": _context(page, root, route), "inputs": files, "result": result}
    try:
        atomic_write_text(_where(page), json.dumps(entry, indent=1, sort_keys=True) + "\n")
    except OSError:
        pass  # an unwritable cache only costs the next run a render
