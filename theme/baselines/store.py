"""The baselines folder (`snapshots/` by default), its manifest and its style records.

Keys (relative PNG paths) are checked before any file operation, so none can leave the folder. Writes are
atomic and the manifest is updated under an exclusive `flock`: concurrent runs both land, as valid JSON.
An update writes many baselines in a batch (Store.batch): each file at once, their manifest entries and
style records in one read-modify-write at its end, not one per baseline.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import threading
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from ..core.errors import ImageError, StoreError
from ..core.fsutil import atomic_write_bytes, atomic_write_text, sha256_file
from ..pixels import images
from ..pixels.resident import release
from . import style_record as styles
from .style_record import StyleRecord

# Layout, shared with `theme capture`: <page>/<viewport>-<scheme>/page.png and .../<region-key>/<name>.png,
# so a key reads e.g. index/desktop-dark/note-box/memory-usage-2.png.
# sha256, pixels (_bind), size, environment (and a region's CSS box) of every baseline, and per
# variant folder what its last written render depended on ("inputs": theme/check/inputs.py)
MANIFEST = "manifest.json"
_LOCK = ".manifest.lock"
# Each region baseline's style record (theme/baselines/style_record.py), one region a line, keys sorted:
# written with its baseline, under the manifest's lock, so the two always agree.
STYLES = "styles.json"
_FORMAT = 1
# A baseline as it was: its file's bytes, its manifest entry, the environment that entry names,
# its style record (each None when absent), as Store.snapshot() takes it and Store.restore() puts it back.
Snapshot = tuple[bytes | None, dict[str, Any] | None, dict[str, Any] | None, StyleRecord | None]

def drift_view(fp: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of an environment fingerprint that change pixels, flattened for comparing.

    Left out on purpose: the browser's install path and how it was found, the
    kernel release, the theme version: none of them changes a rendered pixel,
    and flagging them would train reviewers to ignore the drift banner.
    """
    browser = fp.get("browser")
    if isinstance(browser, Mapping):
        browser = f"{browser.get('name', '?')} {browser.get('version', '?')}"
    plat = fp.get("platform")
    if isinstance(plat, Mapping):
        plat = f"{plat.get('system', '?')} {plat.get('machine', '?')}"
    return {
        "browser": browser,
        "platform": plat,
        "device_scale_factor": fp.get("device_scale_factor"),
        "flags": fp.get("launch_flags", fp.get("flags")),
        "fonts": fp.get("fonts"),
        # The fonts fontconfig falls back to, by their bytes (not their paths), or a remote
        # browser's, as the pixels of a probe page (capture/launch.py, remote_fingerprint).
        "system_fonts": _font_bytes(fp.get("system_fonts")),
        # Where the tiles' clips start can move a pixel (benchmarks/README.md).
        "tile_height": fp.get("tile_height"),
    }


def _font_bytes(fonts: Any) -> Any:
    """{family: sha256} of fallback fonts recorded as {family: {"file", "sha256"}}; else as given."""
    if not isinstance(fonts, Mapping):
        return fonts
    return {k: v.get("sha256") if isinstance(v, Mapping) else v for k, v in fonts.items()}


def check_key(key: str) -> PurePosixPath:
    """A key as a safe relative path, or StoreError: never absolute, never `..`."""
    path = PurePosixPath(key)
    if (
        not key
        or path.is_absolute()
        or any(part in ("", ".", "..") for part in key.split("/"))
        or "\\" in key
        or path.suffix != ".png"
    ):
        raise StoreError(f"{key!r}: not a valid snapshot name (relative, no '..', ends in .png)")
    return path


def fingerprint_id(fingerprint: Mapping[str, Any]) -> str:
    """A short stable id for an environment, used to share one record across baselines.

    It hashes only what changes pixels (drift_view): two machines of the same kind that
    differ in kernel release or Playwright's patch version give the same id, so accepting
    a change on either rewrites only the entries of the images that changed."""
    blob = json.dumps(drift_view(fingerprint), sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(blob).hexdigest()[:12]


def describe_drift(recorded: Mapping[str, Any], current: Mapping[str, Any]) -> str | None:
    """What differs between two environments, or None when nothing does: only what differs,
    so one font file of fifteen is named alone. The page's own font files are files of the
    article, not of the machine, and are said as such."""
    recorded, current = drift_view(recorded), drift_view(current)
    # A field only one side recorded (e.g. fonts of an in-memory image) is unknown, not changed.
    changed = [f for f in recorded
               if recorded[f] is not None and current[f] is not None and _differ(recorded[f], current[f])]
    if not changed:
        return None
    said = []
    machine = [f for f in changed if f != "fonts"]
    if machine:
        def show(fp: Mapping[str, Any], other: Mapping[str, Any]) -> str:
            return "; ".join(f"{f} {_short(fp[f], other[f])}" for f in machine)

        said.append(f"environment drift: baselines were made with {show(recorded, current)}; "
                    f"this run uses {show(current, recorded)}. Differences may come from the environment, "
                    "not the change.")
    if "fonts" in changed:
        old, new = recorded["fonts"], current["fonts"]
        files = ", ".join(f"{k} (sha256 {str(old[k])[:8]} → {str(new[k])[:8]})"
                          for k in sorted(old.keys() & new.keys()) if old[k] != new[k])
        said.append(f"font files changed since the baselines: {files}.")
    return " ".join(said)


def _differ(a: Any, b: Any) -> bool:
    """Font files (name -> sha256) differ when a file both runs loaded has other bytes. A file
    only one run loaded is the page's timing, not the machine: the Distill runtime's `d-code`
    text loads the code font only if it is laid out before the element upgrades, and draws
    nothing with it either way (its shadow root shows the code)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return any(a[k] != b[k] for k in a.keys() & b.keys())
    return bool(a != b)


def _short(value: Any, other: Any = None) -> str:
    if isinstance(value, dict):  # font files: name -> sha256; only those that differ from `other`'s
        shown = {k: v for k, v in value.items() if not isinstance(other, Mapping) or other.get(k) != v}
        return "{" + ", ".join(f"{k}:{str(v)[:8]}" for k, v in sorted(shown.items())) + "}"
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return str(value)


@dataclass
class _Batch:
    """What a batch has written but not yet recorded on disk (Store.batch)."""

    view: dict[str, Any]  # the manifest as read when the batch began, its writes applied: what reads see
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)  # key -> manifest entry
    environments: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> fingerprint the entries name
    styles: dict[str, StyleRecord | None] = field(default_factory=dict)  # key -> record (None: dropped)

    def record(self, key: str, entry: dict[str, Any], fingerprint: Mapping[str, Any], unchanged: bool,
               style: StyleRecord | None) -> None:
        """Keep a written baseline's entry and style record until the batch is recorded."""
        env = _enter(self.view, key, entry, fingerprint, unchanged)
        self.entries[key] = entry
        self.environments[env] = self.view["environments"][env]
        self.styles[key] = style

    def apply(self, data: dict[str, Any]) -> None:
        """Put the batch's entries into a manifest read under the lock (an environment record
        already there is kept, as a single write keeps it)."""
        for env, fingerprint in self.environments.items():
            data["environments"].setdefault(env, fingerprint)
        data["baselines"].update(self.entries)


class Store:
    """Baselines on disk. Reading never writes; writing is explicit and atomic."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._styles: tuple[tuple[int, int, int], dict[str, StyleRecord]] | None = None
        self._batch: _Batch | None = None
        self._prepared: dict[str, tuple[str, Future[bytes]]] = {}  # key -> (pixels, its PNG being encoded)

    # ------------------------------------------------------------------ paths

    def path(self, key: str) -> Path:
        return self.root.joinpath(*check_key(key).parts)

    def keys(self) -> set[str]:
        """Every baseline PNG on disk, as keys."""
        if not self.root.is_dir():
            return set()
        return {
            p.relative_to(self.root).as_posix()
            for p in self.root.rglob("*.png")
            if p.is_file() and not p.name.startswith(".")
        }

    def lfs_pointers(self) -> list[str]:
        """Keys whose file is still a Git LFS pointer (a checkout without LFS), sorted."""
        found = []
        for key in sorted(self.keys()):
            with open(self.path(key), "rb") as f:
                if f.read(len(images.LFS_POINTER)) == images.LFS_POINTER:
                    found.append(key)
        return found

    def check_lfs(self) -> None:
        """StoreError, once for the whole store, when any baseline is an LFS pointer: nothing can
        be compared against them, and updating would overwrite them unseen."""
        pointers = self.lfs_pointers()
        if not pointers:
            return
        first = self.path(pointers[0])
        shown = os.path.relpath(first) if first.is_absolute() and first.is_relative_to(Path.cwd()) else first
        if len(pointers) == 1:
            raise StoreError(f"{shown}: {images.lfs_pointer_words(first.read_bytes())}")
        raise StoreError(f"{shown} and {len(pointers) - 1} more baselines are Git LFS pointers, "
                         f"not the images they stand for; {images.LFS_ADVICE}")

    # ------------------------------------------------------------------ images

    def read(self, key: str) -> np.ndarray | None:
        """The baseline image, None when missing; ImageError names a corrupt file."""
        path = self.path(key)
        if not path.exists():
            return None
        return images.read_png(path)

    def write(self, key: str, image: np.ndarray, fingerprint: Mapping[str, Any],
              box: tuple[float, float, float, float] | None = None, style: StyleRecord | None = None,
              frames: Sequence[tuple[float, float]] = (), pixels: str | None = None) -> bool:
        """Store `image` as the baseline of `key`; False when its pixels were already there
        (the file is then left as it is, bytes and all: nothing to encode, nothing for git).

        `box` is the region's CSS box as captured (x, y, w, h), recorded so a later
        check can tell a region moved by a fraction of a pixel (theme/check/phase.py).
        `style` is its style record (None: it has none, and any old one is dropped).
        `frames` are its frames' corners (theme/check/phase.py), recorded with the box.
        `pixels`: images.pixels_sha256(image) when the caller has it (a page's, hashed as it
        was captured: hashing 1280 × 127 000 pixels again takes ~0.35 s).
        """
        path = self.path(key)
        pixels = pixels or images.pixels_sha256(image)
        digest = self._kept(key, image, pixels)
        unchanged = digest is not None
        if digest is None:
            data = self._take_prepared(key, pixels) or _encode_baseline(image)
            digest = hashlib.sha256(data).hexdigest()
            atomic_write_bytes(path, data)
        height, width = image.shape[:2]
        entry: dict[str, Any] = {"sha256": digest, "size": [width, height], "pixels": _bind(digest, pixels)}
        if box is not None:
            entry["box"] = [float(v) for v in box]
            if frames:
                entry["frames"] = [[float(x), float(y)] for x, y in frames]
        if self._batch is not None:
            self._batch.record(key, entry, fingerprint, unchanged, style)
            return not unchanged
        with self.manifest() as m:
            _enter(m, key, entry, fingerprint, unchanged)
            self._restyle({key: style})
        return not unchanged

    def prepare(self, key: str, image: np.ndarray, pixels: str, done: Callable[[], None] | None = None) -> None:
        """Start encoding `image` as the baseline of `key` in a worker thread, for a write() of
        the same pixels (`pixels`: their images.pixels_sha256) to take instead of encoding then.
        Nothing is written here: the file, its manifest entry and the batch are write()'s, as
        ever. A page's PNG is most of a first-baselines run's encoding (~3 s CPU each for the long
        page), and a pytest run renders every variant before it checks any: the page encoded
        beside the next variant's render uses the core the browser leaves idle (Pillow's deflate
        releases the GIL). `image` must not change until then. `done`: called in the worker after
        encoding (e.g. to drop the image's file-backed rows from memory again)."""
        if key in self._prepared:
            return
        self._prepared[key] = (pixels, _encoder().submit(_encode_then, image, done))

    def discard_prepared(self, keys: Iterable[str] | None = None) -> None:
        """Forget the encodes prepared for `keys` (None: all) that no write() took; those not
        yet started are cancelled."""
        for key in list(self._prepared) if keys is None else keys:
            prepared = self._prepared.pop(key, None)
            if prepared is not None:
                prepared[1].cancel()

    def _take_prepared(self, key: str, pixels: str) -> bytes | None:
        """The PNG prepare() encoded for `key`, when it was of these pixels (waiting for it);
        None when none was, or it failed (write() then encodes, and names any error)."""
        prepared = self._prepared.pop(key, None)
        if prepared is None or prepared[0] != pixels:
            if prepared is not None:
                prepared[1].cancel()
            return None
        try:
            return prepared[1].result()
        except Exception:  # noqa: BLE001 - encoded again in this thread, which raises it there
            return None

    def _kept(self, key: str, image: np.ndarray, pixels: str) -> str | None:
        """The sha256 of the file of `key` when it already holds `image`'s pixels (`pixels`: their
        images.pixels_sha256), else None. Re-encoding is what an update spent its time on (a
        1280 × 26 000 page takes 4.4 s at zlib level 9), and an encoder of another version
        would write other bytes for the same pixels. Known from the manifest without decoding;
        a file the manifest binds no pixels to (written by an older theme) is decoded once."""
        manifest = self.read_manifest()
        if self.has_pixels(key, lambda: pixels, manifest):
            return str(manifest["baselines"][key]["sha256"])
        path = self.path(key)
        if (key in manifest["baselines"] and manifest["baselines"][key].get("pixels")) or not path.is_file():
            return None  # bound to other pixels, or no file: write it
        try:
            same = images.pixels_sha256(images.read_png(path)) == pixels
        except (ImageError, OSError):
            return None
        return sha256_file(path) if same else None

    def has_pixels(self, key: str, pixels: Callable[[], str], manifest: Mapping[str, Any] | None = None) -> bool:
        """Whether the baseline of `key` is known to have the pixels whose images.pixels_sha256
        `pixels()` gives, from its manifest entry, without decoding it (a 1280 × 127 000 page's
        PNG takes ~1 s to decode, hashing its actual image ~0.35 s). Only when the file still
        has the bytes the entry records; `pixels` is not called when there is nothing to compare.
        `manifest`: one read_manifest() a caller asking about many keys has already made."""
        entry = (manifest if manifest is not None else self.read_manifest())["baselines"].get(key)
        if not entry or not entry.get("pixels"):
            return False
        try:
            if sha256_file(self.path(key)) != entry["sha256"]:
                return False
        except OSError:
            return False
        return bool(entry["pixels"] == _bind(entry["sha256"], pixels()))

    # ------------------------------------------------------------------ batches

    @contextlib.contextmanager
    def batch(self) -> Iterator["Store"]:
        """Write many baselines, recording them once: inside, write() puts each file in place at
        once (atomically) and keeps its manifest entry and style record in memory, where every
        read of this Store sees them; they are recorded on leaving, also on an exception or an
        interrupt, in one read-modify-write under the manifest's lock (concurrent runs still both
        land). A manifest and style file rewritten per baseline made an update O(n²): parsing
        and dumping them for each of the long page's 154 baselines took seconds (benchmarks/README.md).
        Nested batches are one."""
        if self._batch is not None:
            yield self
            return
        self.begin()
        try:
            yield self
        finally:
            self.end()

    def begin(self) -> None:
        """Start a batch (see batch()) for a caller whose writes span calls, e.g. a pytest
        run's items; end() (or flush()) records it."""
        if self._batch is None:
            self._batch = _Batch(view=self._load())

    def flush(self) -> None:
        """Record what the batch has written so far (nothing to do outside a batch, or when
        nothing was written), the batch staying open."""
        batch = self._batch
        if batch is not None and (batch.entries or batch.styles):
            with self.manifest():  # manifest() records the batch's writes with its own
                pass

    def end(self) -> None:
        """Record the batch and close it; reads then go to the files again."""
        try:
            self.flush()
        finally:
            self._batch = None

    def snapshot(self, key: str) -> Snapshot:
        """A baseline as it is now (file bytes, manifest entry, its environment), for restore()."""
        path = self.path(key)
        data = path.read_bytes() if path.is_file() else None
        m = self.read_manifest()
        entry = m["baselines"].get(key)
        return data, entry, m["environments"].get(entry["environment"]) if entry else None, self.style(key)

    def restore(self, key: str, snap: Snapshot) -> None:
        """Put a baseline back as snapshot() saw it (atomic; absent then means removed now)."""
        data, entry, env, style = snap
        path = self.path(key)
        if data is None:
            path.unlink(missing_ok=True)
        else:
            atomic_write_bytes(path, data)
        with self.manifest() as m:
            if entry is None:
                m["baselines"].pop(key, None)
            else:
                m["baselines"][key] = entry
                m["environments"][entry["environment"]] = env
            self._restyle({key: style})

    def delete(self, keys: list[str]) -> None:
        for key in keys:
            with contextlib.suppress(FileNotFoundError):
                self.path(key).unlink()
        with self.manifest() as m:
            for key in keys:
                m["baselines"].pop(key, None)
            _drop_orphan_inputs(m)
            self._restyle(dict.fromkeys(keys))
        self._remove_empty_folders()

    def _remove_empty_folders(self) -> None:
        for folder in sorted((p for p in self.root.rglob("*") if p.is_dir()), reverse=True):
            with contextlib.suppress(OSError):
                folder.rmdir()

    # ------------------------------------------------------------------ style records

    def style(self, key: str) -> StyleRecord | None:
        """The style record of `key`'s baseline; None when none was recorded (made before
        records were, a page image, or an element the capture did not find)."""
        if self._batch is not None and key in self._batch.styles:
            return self._batch.styles[key]
        return self._records().get(key)

    def read_styles(self) -> dict[str, StyleRecord]:
        """Every recorded style, by key (a batch's included); StoreError when styles.json is not valid."""
        records = dict(self._records())
        if self._batch is not None:
            _set_records(records, self._batch.styles)
        return records

    def _records(self) -> Mapping[str, StyleRecord]:
        """The parsed styles.json, parsed once per version of the file (not to be changed)."""
        path = self.root / STYLES
        try:
            stat = path.stat()
        except FileNotFoundError:
            return {}
        stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        if self._styles is None or self._styles[0] != stamp:
            self._styles = (stamp, styles.loads(path.read_text(encoding="utf-8"), str(path)))
        return self._styles[1]

    def _restyle(self, changed: Mapping[str, StyleRecord | None]) -> None:
        """Set (or drop, for None) the records of `changed`; only under the manifest's lock.
        The file is rewritten only when its bytes change, and removed when it would be empty."""
        path = self.root / STYLES
        records = dict(self._records())
        _set_records(records, changed)
        if not records:
            path.unlink(missing_ok=True)
            return
        text = styles.dumps(records)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            atomic_write_text(path, text)

    # ------------------------------------------------------------------ manifest

    def read_manifest(self) -> dict[str, Any]:
        """The manifest; in a batch, as the batch sees it (read once, its writes applied):
        not to be changed then."""
        if self._batch is not None:
            return self._batch.view
        return self._load()

    def _load(self) -> dict[str, Any]:
        """manifest.json as it is on disk now (a new dict, for changing)."""
        path = self.root / MANIFEST
        if not path.exists():
            return _empty_manifest()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise StoreError(f"{path}: manifest is not valid JSON ({err}); restore it from git") from None
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise StoreError(f"{path}: unknown manifest format; restore it from git")
        return data

    def recorded_fingerprint(self, key: str) -> dict[str, Any] | None:
        """The environment a baseline was made in, from the manifest."""
        m = self.read_manifest()
        entry = m["baselines"].get(key)
        return m["environments"].get(entry["environment"]) if entry else None

    def recorded_tile_height(self) -> int | None:
        """The tile height most baselines were made with (their environments'), or None when
        there are no baselines or none recorded one (config.keep_tile_height keeps it)."""
        m = self.read_manifest()
        heights = (m["environments"].get(entry.get("environment"), {}).get("tile_height")
                   for entry in m["baselines"].values())
        counts = Counter(h for h in heights if type(h) is int)
        # Most baselines, then the lower height on a tie: deterministic, and the one of less memory.
        best = min(counts.items(), key=lambda kv: (-kv[1], kv[0]), default=None)
        return best[0] if best else None

    def _under(self, folder: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """(path below `folder`, manifest entry) of every baseline in a variant's folder."""
        prefix = folder.rstrip("/") + "/"
        for key, entry in self.read_manifest()["baselines"].items():
            if key.startswith(prefix):
                yield key[len(prefix):], entry

    def inputs(self, folder: str) -> dict[str, Any] | None:
        """The inputs record of a variant's folder ("index/desktop-dark"), as record_inputs()
        left it (theme/check/inputs.py reads it), or None."""
        record = self.read_manifest().get("inputs", {}).get(folder)
        return record if isinstance(record, dict) else None

    def record_inputs(self, folder: str, record: Mapping[str, Any] | None) -> None:
        """Set (None: drop) what a variant's last written render depended on, beside its baselines."""
        with self.manifest() as m:
            inputs = m.setdefault("inputs", {})
            if record is None:
                inputs.pop(folder, None)
            else:
                inputs[folder] = dict(record)

    def frames(self, folder: str) -> dict[str, tuple[tuple[float, float], ...]]:
        """Region path -> its frames' corners when its baseline was captured; a baseline
        written before frames were recorded has no entry."""
        return {path: tuple((x, y) for x, y in entry["frames"])
                for path, entry in self._under(folder) if "frames" in entry}

    def boxes(self, folder: str) -> dict[str, tuple[float, float, float, float]]:
        """Region path ("code/intro.png") -> the CSS box (x, y, w, h) its baseline was captured at."""
        out = {}
        for path, entry in self._under(folder):
            if entry.get("box"):
                x, y, w, h = entry["box"]
                out[path] = (x, y, w, h)
        return out

    def sizes(self, folder: str) -> dict[str, list[int]]:
        """"code/intro" -> [w, h] of each baseline in a variant's folder (what attribution compares)."""
        return {path[:-len(".png")]: entry["size"] for path, entry in self._under(folder)}

    @contextlib.contextmanager
    def manifest(self) -> Iterator[dict[str, Any]]:
        """Read-modify-write the manifest under an exclusive lock; written atomically.
        In a batch, the batch's writes are recorded with the change (and its styles with them)."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / _LOCK, "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                data = self._load()
                batch = self._batch
                if batch is not None:  # first the batch's writes, then the change made here
                    batch.apply(data)
                    self._restyle(batch.styles)
                    batch.styles.clear()
                yield data
                _drop_unreferenced_environments(data)
                text = json.dumps(data, indent=2, sort_keys=True) + "\n"
                atomic_write_text(self.root / MANIFEST, text)
                if batch is not None:  # recorded: from now on the batch reads the manifest as written
                    self._batch = _Batch(view=json.loads(text))
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)


def _set_records(records: dict[str, StyleRecord], changed: Mapping[str, StyleRecord | None]) -> None:
    """Set (or drop, for None) the records of `changed` in `records`."""
    for key, record in changed.items():
        if record is None:
            records.pop(key, None)
        else:
            records[key] = record


def _empty_manifest() -> dict[str, Any]:
    return {"format": _FORMAT, "environments": {}, "baselines": {}}


def _enter(m: dict[str, Any], key: str, entry: dict[str, Any], fingerprint: Mapping[str, Any],
           unchanged: bool) -> str:
    """Set `key`'s entry in manifest `m`, naming its environment (returned): the one it had when its
    bytes are unchanged and that record does not drift, else `fingerprint`'s, recorded once."""
    env = _environment_of(m, key, fingerprint) if unchanged else None
    if env is None:
        env = fingerprint_id(fingerprint)
        m["environments"].setdefault(env, dict(fingerprint))
    entry["environment"] = env
    m["baselines"][key] = entry
    return env


def _environment_of(m: Mapping[str, Any], key: str, fingerprint: Mapping[str, Any]) -> str | None:
    """The environment id the manifest already gives `key`, when its record does not drift from
    `fingerprint`: rewriting a baseline with the same bytes keeps its entry as it was, also one
    recorded before ids hashed only what changes pixels."""
    entry = m["baselines"].get(key)
    recorded = m["environments"].get(entry["environment"]) if entry else None
    if recorded is None or describe_drift(recorded, fingerprint) is not None:
        return None
    return str(entry["environment"])


def _drop_unreferenced_environments(data: dict[str, Any]) -> None:
    used = {b["environment"] for b in data["baselines"].values()}
    for env in list(data["environments"]):
        if env not in used:
            del data["environments"][env]


def _drop_orphan_inputs(data: dict[str, Any]) -> None:
    """Inputs records of folders without a baseline left go (and an empty table with them);
    only on deleting: an update records a folder's inputs before it writes its first baseline."""
    inputs = data.get("inputs")
    if inputs is None:
        return
    folders = {key.rsplit("/", 1)[0] for key in data["baselines"]}
    for folder in [f for f in inputs if not any(k == f or k.startswith(f + "/") for k in folders)]:
        del inputs[folder]
    if not inputs:
        del data["inputs"]


def _bind(file_sha256: str, pixels_sha256: str) -> str:
    """The manifest's "pixels": the pixels' digest bound to the file it was read from, so a
    manifest merged line by line cannot pair one file's "sha256" with another file's pixels."""
    return hashlib.sha256(f"{file_sha256}:{pixels_sha256}".encode()).hexdigest()


BASELINE_LEVEL = 3  # zlib level of a baseline's PNG: see _encode_baseline


def _encode_baseline(image: np.ndarray) -> bytes:
    """Lossless PNG at zlib level 3: baselines live in git history forever, and an update
    encodes every new or changed one. With Pillow's zlib-ng, level 3 encodes the long page's
    154 baselines with 28 % less CPU than level 6, into 1.4 % fewer bytes (level 9: 6.4x the
    CPU of level 3 for 1 % fewer; benchmarks/README.md, "Updates and failing runs").

    An opaque image is stored as RGB (a quarter fewer bytes before deflate), its alpha dropped
    by Pillow as it takes the pixels in (no RGB copy of a 670 MB page in numpy); reading
    converts back to RGBA, so the pixels compared are identical.
    """
    rgba = np.ascontiguousarray(image, dtype=np.uint8)
    if rgba.ndim != 3 or rgba.shape[2] != 4:
        raise StoreError(f"baseline image must be (H, W, 4) RGBA, got shape {rgba.shape}")
    opaque = not rgba.size or _opaque(rgba)
    return images.encode_png(rgba, level=BASELINE_LEVEL, drop_alpha=opaque)


def _opaque(rgba: np.ndarray, band: int = 4096) -> bool:
    """Whether every alpha is 255, a band of rows at a time, each dropped once read when the page
    is file-backed (no image-sized temporary, and not the whole page resident at once)."""
    for y in range(0, rgba.shape[0], band):
        low = int(rgba[y:y + band, :, 3].min())
        release(rgba, y, y + band)
        if low != 255:
            return False
    return True


_ENCODER: ThreadPoolExecutor | None = None
_ENCODER_LOCK = threading.Lock()


def _encoder() -> ThreadPoolExecutor:
    """The one worker thread of Store.prepare(): one encode at a time, beside the caller's work
    (two page encodes at once measured no faster than in turn on two cores)."""
    global _ENCODER
    with _ENCODER_LOCK:
        if _ENCODER is None:
            _ENCODER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="theme-encode")
        return _ENCODER


def _encode_then(image: np.ndarray, done: Callable[[], None] | None) -> bytes:
    try:
        return _encode_baseline(image)
    finally:
        if done is not None:
            done()


def verify(store: Store) -> list[str]:
    """Problems between the manifest and the files: missing, unrecorded, or altered baselines."""
    m = store.read_manifest()
    on_disk = store.keys()
    problems = []
    for key in sorted(set(m["baselines"]) - on_disk):
        problems.append(f"{store.path(key)}: in the manifest but missing on disk")
    for key in sorted(on_disk - set(m["baselines"])):
        problems.append(f"{store.path(key)}: not in the manifest (made by hand?)")
    pointers = set(store.lfs_pointers())
    for key in sorted(on_disk & pointers):
        problems.append(f"{store.path(key)}: a Git LFS pointer, not the image; run `git lfs pull`")
    for key in sorted((on_disk & set(m["baselines"])) - pointers):
        if sha256_file(store.path(key)) != m["baselines"][key]["sha256"]:
            problems.append(f"{store.path(key)}: bytes differ from the manifest's sha256")
    return problems


__all__ = ["Store", "check_key", "describe_drift", "fingerprint_id", "verify", "MANIFEST", "STYLES"]
