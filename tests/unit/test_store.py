"""The baselines folder: safe names, atomic optimised PNGs, a manifest that survives concurrency."""

import hashlib
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from theme.baselines.store import Store, check_key, describe_drift, verify
from theme.core.errors import StoreError
from theme.pixels import images

FP = {"browser": {"name": "chromium", "version": "156.0.1", "executable": "/usr/bin/chromium"},
      "platform": {"system": "Linux", "machine": "x86_64", "release": "6.1"}, "device_scale_factor": 1,
      "launch_flags": ["--a"], "fonts": {"a.woff2": "0" * 64}, "theme_version": "0.1.0"}


def image(w=40, h=30, seed=0, alpha=255):
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    img[:, :, 3] = alpha
    return img


@pytest.mark.parametrize("key", ["../x.png", "/abs.png", "a/../../b.png", "a//b.png", "x.txt", "", "a\\b.png",
                                 "./a.png"])
def test_keys_never_leave_the_folder(key):
    with pytest.raises(StoreError, match="not a valid snapshot name"):
        check_key(key)


def test_write_read_round_trip_and_manifest(tmp_path):
    store = Store(tmp_path / "snapshots")
    key = "index/desktop-dark/note-box/intro.png"
    for img in (image(), image(alpha=128)):  # opaque is stored as RGB, translucent as RGBA
        store.write(key, img, FP)
        assert np.array_equal(store.read(key), img)
        entry = store.read_manifest()["baselines"][key]
        assert entry["sha256"] == hashlib.sha256(store.path(key).read_bytes()).hexdigest()
        assert entry["size"] == [40, 30]
        assert store.recorded_fingerprint(key) == FP
    assert store.keys() == {key}
    assert verify(store) == []


def test_rewriting_identical_pixels_touches_nothing(tmp_path):
    store = Store(tmp_path)
    assert store.write("a/page.png", image(), FP) is True
    before = store.path("a/page.png").stat().st_mtime_ns
    assert store.write("a/page.png", image(), FP) is False
    assert store.path("a/page.png").stat().st_mtime_ns == before


def test_the_same_pixels_in_other_bytes_are_kept_as_they_are(tmp_path):
    """A baseline an encoder of another version or level wrote: an update with the same
    pixels encodes nothing and leaves the bytes (nothing for git to show); other pixels are
    written. Also for a manifest from before entries bound their pixels (decoded once)."""
    from theme.pixels import images
    store = Store(tmp_path)
    store.write("a/page.png", image(), FP)
    other = images.encode_png(image()[:, :, :3], level=9, optimize=True)
    assert other != store.path("a/page.png").read_bytes()  # really other bytes
    store.path("a/page.png").write_bytes(other)
    with store.manifest() as m:
        m["baselines"]["a/page.png"]["sha256"] = hashlib.sha256(other).hexdigest()
        del m["baselines"]["a/page.png"]["pixels"]  # as an older theme wrote it
    assert store.write("a/page.png", image(), FP) is False
    assert store.path("a/page.png").read_bytes() == other
    assert store.has_pixels("a/page.png", lambda: images.pixels_sha256(image()))  # bound now
    assert store.write("a/page.png", image(), FP) is False
    assert store.path("a/page.png").read_bytes() == other
    assert store.write("a/page.png", image(seed=1), FP) is True
    assert np.array_equal(store.read("a/page.png"), image(seed=1))
    assert verify(store) == []


def test_missing_baseline_reads_as_none(tmp_path):
    assert Store(tmp_path).read("a/page.png") is None


def test_verify_reports_tampering_and_strays(tmp_path):
    store = Store(tmp_path)
    store.write("a/page.png", image(), FP)
    store.write("a/b.png", image(seed=1), FP)
    store.path("a/page.png").write_bytes(store.path("a/b.png").read_bytes())
    (tmp_path / "stray.png").write_bytes(store.path("a/b.png").read_bytes())
    store.path("a/b.png").unlink()
    problems = "\n".join(verify(store))
    assert "a/page.png: bytes differ" in problems
    assert "stray.png: not in the manifest" in problems
    assert "a/b.png: in the manifest but missing" in problems


def test_delete_removes_file_entry_and_empty_folders(tmp_path):
    store = Store(tmp_path)
    store.write("p/v/note-box/x.png", image(), FP)
    store.delete(["p/v/note-box/x.png"])
    assert not (tmp_path / "p").exists()
    assert store.read_manifest()["baselines"] == {}
    assert store.read_manifest()["environments"] == {}


def test_drift_names_what_changed():
    other = {**FP, "browser": {**FP["browser"], "version": "157.0.0"}}
    message = describe_drift(FP, other)
    assert message.startswith("environment drift: baselines were made with browser chromium 156.0.1;")
    assert "this run uses browser chromium 157.0.0" in message
    assert describe_drift(FP, dict(FP)) is None


def test_paths_and_kernel_release_are_not_drift():
    moved = {**FP, "browser": {**FP["browser"], "executable": "/opt/chrome"},
             "platform": {**FP["platform"], "release": "6.9"}, "theme_version": "0.2.0"}
    assert describe_drift(FP, moved) is None


def test_corrupt_manifest_is_a_clear_error(tmp_path):
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(StoreError, match="manifest.json: manifest is not valid JSON"):
        Store(tmp_path).read_manifest()


def _writer(root, prefix):
    store = Store(root)
    for i in range(15):
        store.write(f"{prefix}/{i}.png", image(8, 8, seed=i), FP)


def run_writers(root, target, prefixes: str) -> dict:
    """`target(root, prefix)` in a forked process per prefix, all at once; the manifest's
    baselines once every one has exited cleanly."""
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=target, args=(root, p)) for p in prefixes]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    assert all(p.exitcode == 0 for p in procs)
    return Store(root).read_manifest()["baselines"]


def test_concurrent_writers_merge_into_one_valid_manifest(tmp_path):
    baselines = run_writers(tmp_path, _writer, "ab")
    assert set(baselines) == {f"{p}/{i}.png" for p in "ab" for i in range(15)}
    assert verify(Store(tmp_path)) == []


def test_kill_during_updates_leaves_old_or_new_files(tmp_path):
    """SIGKILL a process rewriting large baselines: each file is whole, the manifest is JSON."""
    script = textwrap.dedent(f"""
        import numpy as np, sys
        from theme.baselines.store import Store
        store = Store({str(tmp_path)!r})
        print("ready", flush=True)
        for i in range(10**6):
            rng = np.random.default_rng(i)
            store.write("p/v/page.png", rng.integers(0, 256, (900, 900, 4), dtype=np.uint8), {{"i": i}})
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    assert proc.stdout.readline().strip() == b"ready"
    store = Store(tmp_path)
    while not (tmp_path / "manifest.json").exists():  # at least one whole update landed
        pass
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert store.read("p/v/page.png").shape == (900, 900, 4)  # decodes: never truncated
    json.loads((tmp_path / "manifest.json").read_text())  # valid JSON
    # A temp file may survive SIGKILL, but it is never mistaken for a baseline.
    assert store.keys() == {"p/v/page.png"}


def test_a_font_file_only_one_run_loaded_is_not_drift_and_new_bytes_are():
    more = {**FP, "fonts": {**FP["fonts"], "jetbrains-mono.woff2": "1" * 64}}
    assert describe_drift(FP, more) is None and describe_drift(more, FP) is None
    other = {**FP, "fonts": {"a.woff2": "2" * 64}}
    assert describe_drift(FP, other) == "font files changed since the baselines: a.woff2 (sha256 00000000 → 22222222)."


def test_drift_names_only_the_files_that_differ_and_the_articles_fonts_as_its_files():
    fonts = {"a.woff2": "0" * 64, "b.woff2": "1" * 64, "katex/Main.woff2": "2" * 64}
    serif = {"file": "/usr/share/fonts/DejaVuSerif.ttf", "sha256": "a" * 64}
    sans = {"file": "/usr/share/fonts/DejaVuSans.ttf", "sha256": "c" * 64}
    before = {**FP, "fonts": fonts, "system_fonts": {"serif": serif, "sans-serif": sans}}
    after = {**FP, "fonts": {**fonts, "b.woff2": "3" * 64},
             "system_fonts": {"serif": serif, "sans-serif": {**sans, "sha256": "d" * 64}}}
    assert describe_drift(before, after) == (
        "environment drift: baselines were made with system_fonts {sans-serif:cccccccc}; this run uses "
        "system_fonts {sans-serif:dddddddd}. Differences may come from the environment, not the change. "
        "font files changed since the baselines: b.woff2 (sha256 11111111 → 33333333).")


def test_a_field_only_one_side_recorded_is_not_drift():
    no_fonts = {k: v for k, v in FP.items() if k != "fonts"}
    assert describe_drift(FP, no_fonts) is None


def test_a_region_box_is_recorded_and_dropped_when_rewritten_without_one(tmp_path):
    store = Store(tmp_path)
    store.write("p/v/code/a.png", image(), FP, (174.0, 9831.65625, 680.0, 323.5))
    assert store.read_manifest()["baselines"]["p/v/code/a.png"]["box"] == [174.0, 9831.65625, 680.0, 323.5]
    # a baseline written with no box (accepted from a report) must not keep a stale one
    store.write("p/v/code/a.png", image(seed=1), FP)
    assert "box" not in store.read_manifest()["baselines"]["p/v/code/a.png"]


def test_an_unchanged_baseline_keeps_its_entry_on_a_machine_of_the_same_kind(tmp_path):
    # Another CI machine: a newer kernel, Playwright's next patch release, another theme
    # version. None of them changes a pixel, so accepting the same pixels there must not
    # rewrite the manifest (each entry used to get a new environment id).
    store = Store(tmp_path)
    store.write("a/page.png", image(), FP)
    store.write("a/box/x.png", image(seed=1), FP)
    before = (tmp_path / "manifest.json").read_bytes()
    other = {**FP, "platform": {**FP["platform"], "release": "6.12"}, "playwright": "1.99.1",
             "theme_version": "0.2.0"}
    assert store.write("a/page.png", image(), other) is False
    assert (tmp_path / "manifest.json").read_bytes() == before
    # A changed image on that machine gets the same id as the first machine's images.
    store.write("a/box/x.png", image(seed=2), other)
    entries = store.read_manifest()["baselines"]
    assert entries["a/box/x.png"]["environment"] == entries["a/page.png"]["environment"]


def test_an_entry_made_elsewhere_is_kept_until_its_pixels_change(tmp_path):
    # A manifest written before ids hashed only what changes pixels: its ids stay until
    # the image itself changes, so upgrading theme does not touch every entry either.
    store = Store(tmp_path)
    store.write("a/page.png", image(), FP)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    (old_id,) = manifest["environments"]
    manifest["environments"] = {"0123456789ab": manifest["environments"][old_id]}
    manifest["baselines"]["a/page.png"]["environment"] = "0123456789ab"
    (tmp_path / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    before = (tmp_path / "manifest.json").read_bytes()
    store.write("a/page.png", image(), FP)
    assert (tmp_path / "manifest.json").read_bytes() == before
    drifted = {**FP, "browser": {**FP["browser"], "version": "157.0.0"}}
    store.write("a/page.png", image(), drifted)  # same pixels, another browser: recorded as such
    assert store.read_manifest()["baselines"]["a/page.png"]["environment"] != "0123456789ab"


def test_a_fallback_font_with_other_bytes_is_drift_and_another_path_is_not():
    dejavu = {"serif": {"file": "/usr/share/fonts/dejavu/DejaVuSerif.ttf", "sha256": "a" * 64}}
    here = {**FP, "system_fonts": dejavu}
    moved = {**FP, "system_fonts": {"serif": {"file": "/opt/fonts/DejaVuSerif.ttf", "sha256": "a" * 64}}}
    other = {**FP, "system_fonts": {"serif": {"file": "/usr/share/fonts/dejavu/DejaVuSerif.ttf", "sha256": "b" * 64}}}
    assert describe_drift(here, moved) is None
    message = describe_drift(here, other)
    assert message.startswith("environment drift: baselines were made with system_fonts {serif:aaaaaaaa}")


def test_the_tile_height_is_drift():
    assert describe_drift({**FP, "tile_height": 32768}, {**FP, "tile_height": 16384}) is not None


# ---------------------------------------------------------------- batches (an update's many writes)

STYLE_FIXTURE = __import__("pathlib").Path(__file__).resolve().parents[1] / "fixtures" / "styles" / "specimen.json"


def _records():
    from theme.baselines import style_record as styles
    data = json.loads(STYLE_FIXTURE.read_text(encoding="utf-8"))
    return [styles.from_page(r["styles"]) for r in data["before"].values()]


def _update(store, records, n=12):
    """What an update writes: regions with boxes, frames and style records, then a page."""
    for i in range(n):
        store.write(f"p/v/note-box/{i}.png", image(8, 6, seed=i), FP, (0.0, 10.0 * i, 8.0, 6.0),
                    records[i % len(records)], frames=[(0.0, 10.0 * i)])
    store.write("p/v/page.png", image(seed=99), FP)


def test_a_batch_records_what_writing_one_by_one_records(tmp_path):
    """The same manifest and style file, byte for byte, written once instead of once a baseline."""
    records = _records()
    one_by_one, batched = Store(tmp_path / "a"), Store(tmp_path / "b")
    _update(one_by_one, records)
    with batched.batch():
        _update(batched, records)
        assert not (tmp_path / "b" / "manifest.json").exists()  # nothing recorded yet...
        assert not (tmp_path / "b" / "styles.json").exists()
        # ... but this store reads what it wrote: a later check of the run sees it
        assert batched.read_manifest()["baselines"]["p/v/note-box/3.png"]["box"] == [0.0, 30.0, 8.0, 6.0]
        assert batched.style("p/v/note-box/3.png") == records[3 % len(records)]
        assert batched.has_pixels("p/v/page.png", lambda: images.pixels_sha256(image(seed=99)))
        assert batched.write("p/v/page.png", image(seed=99), FP) is False  # known, not encoded again
    for name in ("manifest.json", "styles.json"):
        assert (tmp_path / "b" / name).read_bytes() == (tmp_path / "a" / name).read_bytes()
    assert verify(batched) == []


def test_an_update_interrupted_after_some_baselines_leaves_a_consistent_manifest(tmp_path):
    """An exception (a failed capture, Ctrl-C) half way: the baselines written so far are recorded."""
    records = _records()
    store = Store(tmp_path)
    store.write("p/v/note-box/0.png", image(seed=50), FP)  # there before: rewritten below
    with pytest.raises(KeyboardInterrupt), store.batch():
        _update(store, records, n=5)
        raise KeyboardInterrupt
    assert verify(Store(tmp_path)) == []
    assert set(Store(tmp_path).read_manifest()["baselines"]) == {f"p/v/note-box/{i}.png" for i in range(5)} | {
        "p/v/page.png"}
    assert Store(tmp_path).style("p/v/note-box/4.png") == records[4 % len(records)]
    assert np.array_equal(Store(tmp_path).read("p/v/note-box/0.png"), image(8, 6, seed=0))


def test_a_flush_records_and_the_batch_goes_on(tmp_path):
    """A pytest run records each variant as it ends (Store.begin/flush/end): the first variant's
    baselines are on record while the second is being written."""
    store = Store(tmp_path)
    store.begin()
    store.write("p/light/page.png", image(seed=1), FP)
    store.flush()
    assert set(Store(tmp_path).read_manifest()["baselines"]) == {"p/light/page.png"}
    store.write("p/dark/page.png", image(seed=2), FP)
    assert set(Store(tmp_path).read_manifest()["baselines"]) == {"p/light/page.png"}
    store.end()
    assert set(Store(tmp_path).read_manifest()["baselines"]) == {"p/light/page.png", "p/dark/page.png"}
    assert verify(store) == []


def test_deleting_in_a_batch_records_the_batch_first(tmp_path):
    store = Store(tmp_path)
    with store.batch():
        store.write("p/v/a.png", image(seed=1), FP, style=_records()[0])
        store.write("p/v/b.png", image(seed=2), FP)
        store.delete(["p/v/b.png"])  # e.g. --prune at the end of the run
        assert set(Store(tmp_path).read_manifest()["baselines"]) == {"p/v/a.png"}
        assert Store(tmp_path).style("p/v/a.png") == _records()[0]
    assert verify(store) == [] and store.keys() == {"p/v/a.png"}


def _batch_writer(root, prefix):
    store = Store(root)
    with store.batch():
        for i in range(15):
            store.write(f"{prefix}/{i}.png", image(8, 8, seed=i), FP)
            if i == 7:
                store.flush()


def test_concurrent_batches_both_land(tmp_path):
    baselines = run_writers(tmp_path, _batch_writer, "abc")
    assert set(baselines) == {f"{p}/{i}.png" for p in "abc" for i in range(15)}
    assert verify(Store(tmp_path)) == []


# ---------------------------------------------------------------- how a baseline is encoded


@pytest.mark.parametrize("alpha", [255, 128])
def test_a_baseline_reads_back_as_the_same_pixels_and_the_same_pixels_give_the_same_bytes(tmp_path, alpha):
    """Opaque: an RGB PNG (alpha dropped by the encoder); translucent: RGBA. Either way read_png
    gives back the RGBA written, and writing the same pixels anew gives the same bytes."""
    img = image(300, 200, seed=7, alpha=alpha)
    img[50:150, 40:260, :3] = 200  # flat areas, as pages have, next to noise
    first, second = Store(tmp_path / "a"), Store(tmp_path / "b")
    first.write("p/v/page.png", img, FP)
    second.write("p/v/page.png", img.copy(), FP)
    data = first.path("p/v/page.png").read_bytes()
    assert data[25] == (2 if alpha == 255 else 6)  # the IHDR colour type: RGB or RGBA
    assert np.array_equal(images.read_png(first.path("p/v/page.png")), img)
    assert data == second.path("p/v/page.png").read_bytes()


def test_an_rgba_view_is_encoded_without_its_alpha(tmp_path):
    """drop_alpha on a strided view (a crop of a page): the PNG holds its RGB, nothing else."""
    page = image(64, 48, seed=3)
    crop = page[5:40, 7:50]
    data = images.encode_png(crop, level=3, drop_alpha=True)
    assert data[25] == 2
    assert np.array_equal(images.decode_png(data), np.ascontiguousarray(crop))


# ---------------------------------------------------------------- encoding ahead (Store.prepare)


def _encoding_threads(monkeypatch):
    """The threads store's encoder ran in, in order (the real encoder, only watched)."""
    from theme.baselines import store as store_mod

    seen, real = [], store_mod._encode_baseline

    def watched(img):
        seen.append(threading.current_thread().name)
        return real(img)

    monkeypatch.setattr(store_mod, "_encode_baseline", watched)
    return seen


def test_a_prepared_page_is_encoded_beside_the_caller_and_written_as_ever(tmp_path, monkeypatch):
    """prepare() encodes in the worker thread and writes nothing; write() then takes its PNG
    (no second encode), and the file, manifest and bytes are those of a write without it."""
    seen = _encoding_threads(monkeypatch)
    page = image(300, 200, seed=11)
    pixels = images.pixels_sha256(page)
    store, plain = Store(tmp_path / "a"), Store(tmp_path / "b")
    with store.batch():
        store.prepare("p/v/page.png", page, pixels)
        assert not store.path("p/v/page.png").exists() and not (tmp_path / "a" / "manifest.json").exists()
        assert store.write("p/v/page.png", page, FP, pixels=pixels) is True
    assert len(seen) == 1 and seen[0].startswith("theme-encode")
    plain.write("p/v/page.png", page, FP)
    assert store.path("p/v/page.png").read_bytes() == plain.path("p/v/page.png").read_bytes()
    assert (tmp_path / "a" / "manifest.json").read_bytes() == (tmp_path / "b" / "manifest.json").read_bytes()
    assert verify(store) == []


def test_a_prepared_encode_of_other_pixels_is_not_written(tmp_path, monkeypatch):
    """The page written is the one checked: an encode prepared for other pixels is dropped and
    the image given to write() is encoded, in the caller's thread."""
    seen = _encoding_threads(monkeypatch)
    store = Store(tmp_path)
    before, after = image(seed=1), image(seed=2)
    store.prepare("p/v/page.png", before, images.pixels_sha256(before))
    store.write("p/v/page.png", after, FP)
    assert np.array_equal(store.read("p/v/page.png"), after)
    assert threading.current_thread().name in seen  # encoded here (the prepared one may still finish)
    assert verify(store) == []


def test_an_interrupted_run_with_encodes_prepared_leaves_files_and_manifest_agreeing(tmp_path):
    """Encodes prepared for pages whose checks never ran write nothing: what the batch wrote is
    recorded, the rest is not there at all."""
    store = Store(tmp_path)
    pages = {f"p/{v}/page.png": image(seed=i) for i, v in enumerate(("light", "dark"))}
    for key, page in pages.items():
        store.prepare(key, page, images.pixels_sha256(page))
    with pytest.raises(KeyboardInterrupt), store.batch():
        store.write("p/light/page.png", pages["p/light/page.png"], FP)
        raise KeyboardInterrupt
    store.discard_prepared()
    assert verify(Store(tmp_path)) == []
    assert Store(tmp_path).keys() == set(Store(tmp_path).read_manifest()["baselines"]) == {"p/light/page.png"}


def test_a_discarded_encode_is_not_taken(tmp_path, monkeypatch):
    """discard_prepared(keys) (a page deselected with -k): those keys' writes encode their images
    themselves; the others still take what was prepared."""
    seen = _encoding_threads(monkeypatch)
    store = Store(tmp_path)
    pages = {f"p/{v}/page.png": image(seed=i) for i, v in enumerate(("light", "dark"))}
    for key, page in pages.items():
        store.prepare(key, page, images.pixels_sha256(page))
    store.discard_prepared(["p/dark/page.png"])
    for key, page in pages.items():
        store.write(key, page, FP)
    assert seen.count(threading.current_thread().name) == 1  # dark's, here; light's was taken
    assert verify(store) == []


def test_the_recorded_tile_height_is_that_of_most_baselines(tmp_path):
    store = Store(tmp_path / "snapshots")
    assert store.recorded_tile_height() is None
    store.write("a/page.png", image(seed=1), {**FP, "tile_height": 32768})
    store.write("a/box.png", image(seed=2), {**FP, "tile_height": 32768})
    store.write("b/page.png", image(seed=3), {**FP, "tile_height": 16384})
    assert store.recorded_tile_height() == 32768
    store.write("b/box.png", image(seed=4), {**FP, "tile_height": 16384})
    assert store.recorded_tile_height() == 16384  # a tie: the one of less memory
    store.write("c/page.png", image(seed=5), FP)  # recorded none (an older theme): not counted
    assert store.recorded_tile_height() == 16384
