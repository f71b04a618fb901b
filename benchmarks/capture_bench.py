"""Capture engine benchmark: prints ratio lines against peers measured in the same run.

    python benchmarks/capture_bench.py [--repeats 20] [--skip-tall] [--tile-height 32768] [--sweep]

(a) the specimen, every variant of the repo's config: the engine's wall time
    (load, settle, stability checks, tiles, decode, guard, regions) against the
    sum of the bare Playwright/DevTools screenshot calls it makes — measured
    by issuing the very same calls (same clips) on a plainly loaded page.
    Target: <= 1.3x.
(b) a generated ~120 000 px article (the specimen's body repeated) at 1280x800,
    light and dark: seconds per variant (target < 15 s), peak RSS, and where the
    time goes; and one variant alone against the bare captureBeyondViewport tile
    calls a plain Playwright user would make (the engine grows the viewport once
    instead when the page allows it: see Session._grow).
(c) N consecutive captures of the specimen (desktop, light): differing pixels
    against the first (target 0).
--sweep adds bare tile calls on the tall page at 16 384, 24 576 and 32 768 px
    (the evidence for the default tile height). Tile heights are passed
    explicitly (--tile-height), not read from the config.
"""

from __future__ import annotations

import argparse
import re
import resource
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from theme import config
from theme.capture import Session, Variant, variants
from theme.capture.server import LocalServer
from theme.capture.tiles import tile_clips

REPO = Path(__file__).resolve().parents[1]
TALL = 120_000


def tree_rss_mb() -> float:
    """RSS of this process and all its descendants (the browser), from /proc, in MB."""
    pids, total = {str(Path("/proc/self").resolve().name)}, 0
    changed = True
    stats = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
                stats[proc.name] = (fields[1], int(fields[21]))  # ppid, rss pages
            except OSError:
                pass
    while changed:
        changed = False
        for pid, (ppid, _) in stats.items():
            if ppid in pids and pid not in pids:
                pids.add(pid)
                changed = True
    total = sum(stats[p][1] for p in pids if p in stats)
    return total * resource.getpagesize() / 2**20


class PeakRss:
    """Samples tree_rss_mb() every 0.2 s in a thread."""

    def __enter__(self):
        self.peak, self._stop = 0.0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self):
        while not self._stop.wait(0.2):
            self.peak = max(self.peak, tree_rss_mb())

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def bare_calls(session: Session, variant: Variant, height: int, width: int, tile: int, viewport_shots: int) -> float:
    """Seconds of the same DevTools screenshot calls on a plainly loaded page (no engine around them)."""
    with session._browser.new_context(viewport={"width": variant.width, "height": variant.height},
                                      color_scheme=variant.media_scheme) as ctx:
        page = ctx.new_page()
        page.goto(session.server.url(variant.page), wait_until="load")
        page.wait_for_timeout(300)
        cdp = ctx.new_cdp_session(page)
        spent = 0.0
        for _ in range(viewport_shots):
            t = time.perf_counter()
            cdp.send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
            spent += time.perf_counter() - t
        for y, rows, shared in tile_clips(height, tile):  # the engine's clips, seam rows included
            t = time.perf_counter()
            cdp.send("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True, "optimizeForSpeed": True,
                "clip": {"x": 0, "y": y, "width": width, "height": rows + shared, "scale": 1}})
            spent += time.perf_counter() - t
        return spent


def bench_specimen(visual, rounds: int) -> None:
    """Engine and peer measured back to back, `rounds` times: on a shared machine the
    load changes from minute to minute, so each round's ratio compares like with like."""
    todo = variants(visual)
    engines, peers, singles_s, overlap_diff = [], [], [], 0
    with Session(visual) as session:
        # Not counted: the first capture_all of a browser took 1.6-2.5x the later ones
        # here (the renderer's code and font caches are cold), and a user's every
        # run after the first in a session is warm.
        list(session.capture_all(todo))
        for _ in range(rounds):
            t0 = time.perf_counter()
            caps = list(session.capture_all(todo))
            engines.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            singles = [session.capture(v) for v in todo]
            singles_s.append(time.perf_counter() - t0)
            # capture_all overlaps variants; its pixels must be those of one-at-a-time captures
            overlap_diff += sum(int((a.image != b.image).any(axis=2).sum()) if a.image.shape == b.image.shape else -1
                                for a, b in zip(caps, singles))
            del singles
            peers.append(sum(
                bare_calls(session, c.variant, c.image.shape[0], c.image.shape[1], visual.tile_height,
                           c.timings["check_shots"])
                for c in caps
            ))
    own_calls = sum(c.timings["tile_seconds"] + c.timings["check_shot_seconds"] for c in caps)
    engine, peer, one_by_one = min(engines), min(peers), min(singles_s)
    print("    rounds (engine s / bare s): " + ", ".join(f"{e:.2f}/{p:.2f} = {e / p:.2f}x" for e, p in zip(engines, peers)))
    print(f"(a) specimen, {len(caps)} variants, tiles of {visual.tile_height} px, best of {rounds}: engine {engine:.2f} s "
          f"(capture_all, browser already started), its own screenshot calls {own_calls:.2f} s (overlapping other work), "
          f"the same calls bare {peer:.2f} s; capture() one variant at a time {one_by_one:.2f} s (last round's breakdown:)")
    for c in caps:
        t = c.timings
        print(f"    {c.variant.folder}: {c.image.shape[1]}x{c.image.shape[0]} px, {c.seconds:.2f} s from open "
              f"(load {t['load']:.2f}, settle {t['settle']:.2f}, stable {t['stable']:.2f}, tiles {t['tiles']:.2f}, "
              f"guard {t['guard']:.2f}, regions {t['regions']:.2f}; {t['tile_calls']} tile + {t['check_shots']} check shots"
              f"{', grown' if t['grown'] else ''}{', scheme switched' if t['switched'] else ''})")
    median = statistics.median(e / p for e, p in zip(engines, peers))
    print(f"RATIO specimen engine / bare screenshot calls = {engine / peer:.2f}x (best of {rounds} each, after a "
          f"warm-up round; median of the rounds' ratios {median:.2f}x; target <= 1.3x)")
    print(f"RATIO specimen capture() per variant / capture_all = {one_by_one / engine:.2f}x "
          f"({one_by_one:.2f} s vs {engine:.2f} s; differing pixels between the two: {overlap_diff})")


def tall_root(visual, workdir: Path, repeats: int) -> Path:
    """A copy of the specimen whose <d-article> body is repeated `repeats` times."""
    root = workdir / "tall"
    root.mkdir(exist_ok=True)
    html = (visual.root / "index.html").read_text(encoding="utf-8")
    m = re.search(r"(<d-article>)(.*?)(</d-article>)", html, re.S)
    body = m.group(2)
    (root / "index.html").write_text(html[:m.end(1)] + body * repeats + html[m.start(3):], encoding="utf-8")
    for item in visual.root.iterdir():
        if item.name != "index.html" and not (root / item.name).exists():
            (root / item.name).symlink_to(item.resolve())
    return root


def bench_tall(visual, workdir: Path, sweep: bool, rounds: int) -> None:
    base = dataclasses_replace(visual, viewports={"desktop": (1280, 800)})
    with Session(base) as probe:
        cap = probe.capture(Variant("index.html", "desktop", 1280, 800, "light"))
    repeats = max(1, -(-TALL // cap.image.shape[0]))
    root = tall_root(visual, workdir, repeats)
    tall = dataclasses_replace(base, root=root)
    pair = [Variant("index.html", "desktop", 1280, 800, scheme) for scheme in ("light", "dark")]
    with Session(tall) as session, PeakRss() as rss:
        t0 = time.perf_counter()
        results = list(session.capture_all(pair))
        both = time.perf_counter() - t0
        for c in results:
            t = c.timings
            print(f"(b) tall {c.variant.scheme}: {c.image.shape[1]}x{c.image.shape[0]} px, {len(c.regions)} regions, "
                  f"{c.seconds:.2f} s from open: open {t['open']:.2f}, load {t['load']:.2f}, settle {t['settle']:.2f}, "
                  f"stable checks {t['stable']:.2f}, tiles {t['tiles']:.2f} ({t['tile_calls']} calls"
                  f"{', viewport grown to the page' if t['grown'] else ''}, browser "
                  f"{t['tile_seconds']:.2f}, decode {t['decode_seconds']:.2f} overlapped, waited {t['decode_wait']:.2f}), "
                  f"guard {t['guard']:.2f}, regions {t['regions']:.2f}")
        height = results[0].image.shape[0]
        del results
        alones, peers = [], []
        for _ in range(rounds):
            t0 = time.perf_counter()
            session.capture(pair[0])
            alones.append(time.perf_counter() - t0)
            peers.append(bare_calls(session, pair[0], height, 1280, tall.tile_height, 0))
        alone_s, peer = min(alones), min(peers)
        sweep_rows = [(tile, bare_calls(session, pair[0], height, 1280, tile, 0))
                      for tile in (16384, 24576, 32768)] if sweep else []
    print(f"    peak RSS (python + browser): {rss.peak:.0f} MB; python alone "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    for tile, seconds in sweep_rows:
        print(f"    bare tile calls, {height} px in tiles of {tile} px: {seconds:.2f} s ({-(-height // tile)} calls)")
    print(f"RATIO tall light+dark wall per variant / 15 s target = {both / 2 / 15:.2f}x "
          f"({both:.2f} s for both, tiles of {tall.tile_height} px)")
    print("    rounds (light alone s / bare tile calls s): "
          + ", ".join(f"{a:.2f}/{p:.2f}" for a, p in zip(alones, peers)))
    print(f"RATIO tall light alone / 15 s target = {alone_s / 15:.2f}x ({alone_s:.2f} s, best of {rounds})")
    print(f"RATIO tall light alone / bare tile calls = {alone_s / peer:.2f}x (bare {peer:.2f} s, best of {rounds})")


def bench_repeat(visual, n: int) -> None:
    v = Variant("index.html", "desktop", 1280, 800, "light")
    with Session(visual) as session:
        first = session.capture(v).image
        diffs = []
        for _ in range(n - 1):
            img = session.capture(v).image
            diffs.append(int((img != first).any(axis=2).sum()) if img.shape == first.shape else -1)
    print(f"(c) {n} captures, differing pixels against the first: {diffs}")
    print(f"RATIO repeat differing pixels total = {sum(d for d in diffs if d > 0)} (target 0; -1 = size changed)")


def dataclasses_replace(obj, **kw):
    import dataclasses
    return dataclasses.replace(obj, **kw)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--skip-tall", action="store_true")
    parser.add_argument("--tile-height", type=int, default=32768,
                        help="px per capture call, for every part (default 32768; the config's default is 16384)")
    parser.add_argument("--rounds", type=int, default=2, help="engine/peer pairs measured back to back; best of each")
    parser.add_argument("--sweep", action="store_true", help="bare tile calls at 16384/24576/32768 px on the tall page")
    args = parser.parse_args()
    visual = dataclasses_replace(config.load(REPO / "pyproject.toml").visual, tile_height=args.tile_height)
    if not (visual.root / "index.html").is_file():
        sys.exit("article/dist/index.html is missing: the specimen must exist")
    bench_specimen(visual, args.rounds)
    if not args.skip_tall:
        with tempfile.TemporaryDirectory() as tmp:
            bench_tall(visual, Path(tmp), args.sweep, args.rounds)
    bench_repeat(visual, args.repeats)


if __name__ == "__main__":
    main()
