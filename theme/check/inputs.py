"""Skip a page whose inputs did not change: what a variant's render depended on, recorded
with its baselines when a run writes them, and checked before the next run renders it.

A record names every file the page asked for (by the path our server was asked for, or
the routed URL, so the same resolution is made again: a file that appears where the page
got a 404, or a `route` that now maps elsewhere, counts as a change) with its sha256,
the config that shapes this variant's pixels, and the environment (browser, flags, the
system fonts fontconfig picks now, theme's capture code). It also holds the pixels'
digest of every image the render made, a digest of all of it (`digest`: a record merged
line by line is ignored), and whether the render was reproduced: by a second render of the
update that wrote it, or by being its baseline's very pixels (theme/check/steady.py). A check
skips the variant only when it was, all of it still holds, AND every baseline of the folder
has exactly those pixels: then the baselines are that render, whatever was accepted, merged
or written by hand since, and "matched" is what rendering again would say, at any tolerance.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, fields, is_dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from ..baselines.store import Store, drift_view
from ..capture.fonts import fallback_fonts
from ..capture.lanes import routed_file
from ..capture.model import Capture, JsonObject
from ..capture.naming import Variant
from ..capture.server import resolve
from ..core.config import VisualConfig
from ..core.fsutil import sha256_file
from ..pixels import images

# 2: a record says whether its render was reproduced (theme/check/steady.py); a record of
# format 1 does not hold, so its variant is rendered again once.
FORMAT = 2
MESSAGE = "matched (inputs unchanged)"
# VisualConfig fields that cannot change a variant's pixels, nor which images it has: where
# files go, the other variants, and verdict tolerances (a skip needs pixel-identical baselines).
_NOT_INPUTS = frozenset({"pages", "viewports", "color_schemes", "snapshots", "artifacts", "report",
                         "tolerance", "region_tolerance", "settle_timeout", "browser",
                         "skip_unchanged"})
_ENGINE = Path(__file__).resolve().parent.parent / "capture"


@dataclass(frozen=True)
class Unchanged:
    """A variant not rendered: its record holds, so its baselines stand for its render."""

    variant: Variant
    keys: tuple[str, ...]  # its images, relative to its folder, in the order its render had them
    aborted: tuple[str, ...]  # the external requests its render blocked


def record(shot: Capture, visual: VisualConfig) -> JsonObject | None:
    """What `shot`'s render depended on, as the manifest keeps it; None when the page got a
    response that no file on disk answered (online), so nothing can promise the same render."""
    loaded = shot.loaded
    if loaded is None or loaded.passed:
        return None
    hashes: dict[Path, str] = {}
    files = {key: _sha(where(visual, key), hashes)
             for key in sorted(loaded.served | loaded.routed | {"/" + shot.variant.page})}
    system = shot.fingerprint.get("system_fonts")
    families = sorted(system) if isinstance(system, Mapping) else []
    # In the capture's order (page, then regions by key and document order): the items' order.
    pixels = [[rel.as_posix(), _pixels(shot, image, rel.as_posix() == "page.png")] for rel, image in shot.images()]
    rec: JsonObject = {"format": FORMAT, "files": files, "config": config_digest(visual, shot.variant),
                       "environment": environment_digest(shot.fingerprint), "families": families,
                       "pixels": pixels, "aborted": list(shot.aborted), "reproduced": shot.reproduced}
    return {**rec, "digest": _sealed(rec)}


def unchanged(store: Store, visual: VisualConfig, todo: Iterable[Variant],
              fingerprint: Mapping[str, Any]) -> list[Unchanged]:
    """The variants of `todo` whose record holds (see the module's docstring), as Unchanged.

    `fingerprint` is the session's, known before any page is rendered; the system fonts
    its pages fall back to are asked of fontconfig again for the families recorded. The
    manifest is read once, and a file the variants share is hashed once."""
    manifest = store.read_manifest()
    hashes: dict[Path, str] = {}
    found = (_holds(store, manifest, visual, v, fingerprint, hashes) for v in todo)
    return [u for u in found if u is not None]


def _holds(store: Store, manifest: Mapping[str, Any], visual: VisualConfig, variant: Variant,
           fingerprint: Mapping[str, Any], hashes: dict[Path, str]) -> Unchanged | None:
    folder = variant.folder.as_posix()
    rec = manifest.get("inputs", {}).get(folder)
    if not isinstance(rec, dict) or rec.get("format") != FORMAT or rec.get("digest") != _sealed(rec):
        return None
    if rec.get("reproduced") is not True:  # a render that never happened twice stands for nothing
        return None
    now = {**fingerprint}
    if "system_fonts" not in now:
        now["system_fonts"] = fallback_fonts(rec.get("families", []))
    if rec.get("config") != config_digest(visual, variant) or rec.get("environment") != environment_digest(now):
        return None
    if any(_sha(where(visual, key), hashes) != sha for key, sha in rec.get("files", {}).items()):
        return None
    pixels = {rel: sha for rel, sha in rec.get("pixels", [])}
    if not _baselines_are(store, manifest, folder, pixels):
        return None
    return Unchanged(variant, tuple(pixels), tuple(rec.get("aborted", ())))


def where(visual: VisualConfig, key: str) -> Path | None:
    """The file a recorded request is answered from now: a path our server resolves under
    root, or a routed URL's file; None when there is none (a 404 or an aborted route)."""
    if key.startswith("/"):
        return resolve(visual.root, key)
    return routed_file(visual.route, key)[1]


def config_digest(visual: VisualConfig, variant: Variant) -> str:
    """sha256 of the config that shapes `variant`'s pixels: the variant itself, every
    VisualConfig field that is not in _NOT_INPUTS, a reader state's own config (a page's
    variants do not depend on the states), and the bytes of the screenshot-only CSS (added
    by the capture, so no request names it)."""
    relevant = {f.name: _plain(getattr(visual, f.name), visual.root)
                for f in fields(visual) if f.name not in _NOT_INPUTS | {"states"}}
    relevant["variant"] = _plain(variant, visual.root)  # every field: a new one counts
    if variant.state:  # a reader state: its own config and the steps of those it is chained after
        state = next(s for s in visual.states if s.name == variant.state)
        relevant["state"] = _plain(state, visual.root)
        relevant["steps"] = _plain(visual.steps_of(state), visual.root)
    if visual.style is not None:
        relevant["style_bytes"] = sha256_file(visual.style) if visual.style.is_file() else None
    return _digest(relevant)


def environment_digest(fingerprint: Mapping[str, Any]) -> str:
    """sha256 of what in the environment changes pixels (store.drift_view), less the web fonts
    (files the page loaded, hashed with them), plus theme's own capture code (its scripts
    shape every page; a checkout's edits do not change the version)."""
    view = drift_view({**fingerprint, "fonts": None})
    return _digest({"environment": view, "engine": engine_digest()})


@lru_cache(maxsize=1)
def engine_digest() -> str:
    """sha256 over theme/capture's Python and JavaScript files, by relative path."""
    h = hashlib.sha256()
    for path in sorted(p for p in _ENGINE.rglob("*") if p.suffix in (".py", ".js") and p.is_file()):
        h.update(f"{path.relative_to(_ENGINE).as_posix()}\0".encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _sealed(rec: Mapping[str, Any]) -> str:
    """The record's own digest over all its other fields: a manifest merged line by line that
    pairs one render's files with another render's pixels no longer matches it, and is ignored."""
    return _digest({k: v for k, v in rec.items() if k != "digest"})


def _baselines_are(store: Store, manifest: Mapping[str, Any], folder: str, pixels: Mapping[str, str]) -> bool:
    """Whether the folder's baselines are exactly the recorded images: the same set, each file
    the bytes its manifest entry names, and those bytes the recorded pixels."""
    on_record = {f"{folder}/{rel}" for rel in pixels}
    prefix = folder + "/"
    # page.png and <key>/<name>.png: a reader state's images, deeper (state/<name>/<key>/…), are its own
    present = {k for k in manifest["baselines"] if k.startswith(prefix) and k[len(prefix):].count("/") <= 1}
    if not pixels or present != on_record:
        return False
    return all(store.has_pixels(f"{folder}/{rel}", partial(str, sha), manifest) for rel, sha in pixels.items())


def _pixels(shot: Capture, image: np.ndarray, page: bool) -> str:
    if page and shot.pixels is not None:  # hashed as it was spilled (check/pipeline.py)
        return shot.pixels
    return images.pixels_sha256(np.ascontiguousarray(image))


def _sha(path: Path | None, cache: dict[Path, str]) -> str | None:
    if path is None:
        return None
    if path not in cache:
        try:
            cache[path] = sha256_file(path)
        except OSError:
            return None
    return cache[path]


def _plain(value: Any, root: Path) -> Any:
    """A config value as JSON, paths relative to root (the same on every clone)."""
    if isinstance(value, Path):
        return os.path.relpath(value, root) if value.is_absolute() else value.as_posix()
    if isinstance(value, Mapping):
        return {str(k): _plain(v, root) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v, root) for v in value]
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name), root) for f in fields(value)}
    return value


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


__all__ = ["MESSAGE", "Unchanged", "config_digest", "environment_digest", "record", "unchanged", "where"]
