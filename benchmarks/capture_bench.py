"""Capture engine benchmark: prints ratio lines against peers measured in the same run.

    python benchmarks/capture_bench.py [--repeats 20] [--skip-tall] [--tile-height 32768] [--rounds 2]

(a) the specimen, every variant of the repo's config: the engine's wall time
    (load, settle, stability checks, tiles, decode, guard, regions) against the
    sum of the bare Playwright/DevTools screenshot calls it makes — measured
    by issuing the very same calls (same clips) on a plainly loaded page.
    Target: <= 1.3x.
(b) the long runtime page (article/long/make_long.py, ~131 000 px at 1280 px, on the
    Distill runtime): the whole check, `pytest` with baselines (capture, compare,
    report), light and dark at 1280x800, against the bare captureBeyondViewport
    calls for the same tiles (target <= 1.3x), and against a bare Playwright script
    taking the same tiles as its own process; all four variants (target < 60 s);
    peak RSS of pytest and its browser (target < 2 GiB).
(a') the specimen captured with and without the style record of its regions.
(f) the long runtime page (desktop, light) captured with and without the record of its text
    flow (theme/capture/js/flow_record.js, issue 49); target <= 1.02x.
(c) N consecutive captures of the specimen (desktop, light): differing pixels
    against the first (target 0).
Tile heights are passed explicitly (--tile-height), not read from the config.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from theme.capture import Session, Variant, variants
from theme.capture.tiles import tile_clips
from theme.core import config

REPO = Path(__file__).resolve().parents[1]


def tree_pids() -> list[str]:
    """This process's descendants: the pytest run being measured and its browser. Not this
    process, which by then holds what parts (a) and (b) captured in it."""
    parents = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                parents[proc.name] = (proc / "stat").read_text().rsplit(")", 1)[1].split()[1]
            except OSError:
                pass
    pids, changed = {str(os.getpid())}, True
    while changed:
        changed = False
        for pid, ppid in parents.items():
            if ppid in pids and pid not in pids:
                pids.add(pid)
                changed = True
    return sorted(pids - {str(os.getpid())})


def _rollup(pid: str) -> tuple[int, int]:
    """(Rss, Pss) of one process in kB. Summed over processes, Rss counts each shared page
    (a renderer's and the GPU process's capture surfaces, libraries) once per process; Pss
    splits it between them, so the Pss sum is what the run takes from the machine."""
    rss = pss = 0
    try:
        for line in open(f"/proc/{pid}/smaps_rollup", encoding="ascii"):
            if line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("Pss:"):
                pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


def tree_memory_mb() -> tuple[float, float]:
    """(summed RSS, summed PSS) of this process's descendants, in MB."""
    both = [_rollup(pid) for pid in tree_pids()]
    return sum(r for r, _ in both) / 1024, sum(p for _, p in both) / 1024


class PeakRss:
    """Samples tree_memory_mb() every 0.2 s in a thread: .peak (summed RSS) and .peak_pss."""

    def __enter__(self):
        self.peak, self.peak_pss, self._stop = 0.0, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self):
        while not self._stop.wait(0.2):
            rss, pss = tree_memory_mb()
            self.peak, self.peak_pss = max(self.peak, rss), max(self.peak_pss, pss)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def serve_from(prefix: str, folder: Path):
    """A Playwright route handler that answers URLs under `prefix` from `folder`."""
    def serve(route) -> None:
        rest = route.request.url[len(prefix):].split("?")[0]
        route.fulfill(path=str(folder / rest), headers={"Access-Control-Allow-Origin": "*"})
    return serve


def bare_calls(session: Session, variant: Variant, height: int, width: int, tile: int, viewport_shots: int) -> float:
    """Seconds of the same DevTools screenshot calls on a plainly loaded page (no engine around them)."""
    with session._browser.new_context(viewport={"width": variant.width, "height": variant.height},
                                      color_scheme=variant.media_scheme) as ctx:
        page = ctx.new_page()
        for prefix, folder in session.visual.route.items():  # as a plain Playwright user would route them
            page.route(prefix + "**", serve_from(prefix, Path(folder)))
        page.goto(session.server.url(variant.page), wait_until="load")
        page.wait_for_load_state("networkidle")  # KaTeX and fragments arrive after load
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


def bare_script(project: Path) -> None:
    """What a plain Playwright user's script does for the same images, as a whole process: launch
    the browser, then per variant a page routed like the config, goto + networkidle, and the same
    tile calls; nothing settled, guarded, decoded or compared. The peer of the whole check."""
    from playwright.sync_api import sync_playwright

    from theme.capture.browser import find_browser
    from theme.capture.server import LocalServer

    visual = config.load(project / "pyproject.toml").visual
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(find_browser(None, playwright=pw).executable))
        with LocalServer(visual.root) as server:  # a plain script serves the files too
            for v in variants(visual):
                with browser.new_context(viewport={"width": v.width, "height": v.height},
                                         color_scheme=v.media_scheme) as ctx:
                    page = ctx.new_page()
                    for prefix, folder in visual.route.items():
                        page.route(prefix + "**", serve_from(prefix, Path(folder)))
                    page.goto(server.url(v.page), wait_until="load")
                    page.wait_for_load_state("networkidle")
                    height = page.evaluate("() => document.documentElement.scrollHeight")
                    cdp = ctx.new_cdp_session(page)
                    for y, rows, shared in tile_clips(height, visual.tile_height):
                        cdp.send("Page.captureScreenshot", {
                            "format": "png", "captureBeyondViewport": True, "optimizeForSpeed": True,
                            "clip": {"x": 0, "y": y, "width": v.width, "height": rows + shared, "scale": 1}})
        browser.close()


def timed_bare_script(project: Path) -> float:
    import subprocess

    t0 = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--bare-script", str(project)], check=True)
    return time.perf_counter() - t0


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
                                for a, b in zip(caps, singles, strict=True))
            del singles
            peers.append(sum(
                bare_calls(session, c.variant, c.image.shape[0], c.image.shape[1], visual.tile_height,
                           c.timings["check_shots"])
                for c in caps
            ))
    own_calls = sum(c.timings["tile_seconds"] + c.timings["check_shot_seconds"] for c in caps)
    engine, peer, one_by_one = min(engines), min(peers), min(singles_s)
    rounds_said = ", ".join(f"{e:.2f}/{p:.2f} = {e / p:.2f}x" for e, p in zip(engines, peers, strict=True))
    print("    rounds (engine s / bare s): " + rounds_said)
    print(f"(a) specimen, {len(caps)} variants, tiles of {visual.tile_height} px, best of {rounds}: "
          f"engine {engine:.2f} s (capture_all, browser already started), its own screenshot calls "
          f"{own_calls:.2f} s (overlapping other work), the same calls bare {peer:.2f} s; "
          f"capture() one variant at a time {one_by_one:.2f} s (last round's breakdown:)")
    for c in caps:
        t = c.timings
        print(f"    {c.variant.folder}: {c.image.shape[1]}x{c.image.shape[0]} px, {c.seconds:.2f} s from open "
              f"(load {t['load']:.2f}, settle {t['settle']:.2f}, stable {t['stable']:.2f}, tiles {t['tiles']:.2f}, "
              f"guard {t['guard']:.2f}, regions {t['regions']:.2f}; "
              f"{t['tile_calls']} tile + {t['check_shots']} check shots"
              f"{', scheme switched' if t['switched'] else ''})")
    median = statistics.median(e / p for e, p in zip(engines, peers, strict=True))
    print(f"RATIO specimen engine / bare screenshot calls = {engine / peer:.2f}x (best of {rounds} each, after a "
          f"warm-up round; median of the rounds' ratios {median:.2f}x; target <= 1.3x)")
    print(f"RATIO specimen capture() per variant / capture_all = {one_by_one / engine:.2f}x "
          f"({one_by_one:.2f} s vs {engine:.2f} s; differing pixels between the two: {overlap_diff})")


LONG_PYPROJECT = """
[tool.theme]
entry = "scss/style.scss"
outputs = []

[tool.theme.visual]
root = "site"
pages = ["index.html"]
viewports = {viewports}
color_schemes = ["light", "dark"]
regions = {{ note-box = ".note-box", math = "d-math[block]", code = "d-code[block]" }}
route = {{ "https://distill.pub/third-party/katex/" = "{katex}" }}
"""


def long_project(workdir: Path, name: str, viewports: str) -> Path:
    """A project around the long runtime page (article/long/make_long.py): its site and config."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_long", REPO / "article/long/make_long.py")
    make_long = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_long)
    project = workdir / name
    make_long.build(project / "site")
    (project / "pyproject.toml").write_text(LONG_PYPROJECT.format(
        viewports=viewports, katex=(REPO / "article/dist/assets/katex").as_posix()))
    return project


def timed_pytest(project: Path, *args: str, expect_failures: bool = False,
                 theme_from: Path | None = None) -> tuple[float, float, str, float]:
    """(seconds, peak summed RSS of pytest and its browser in MB, last line, peak summed PSS).
    expect_failures: the run must fail its checks (exit 1) rather than pass. theme_from: a
    checkout whose `theme` package the run imports instead (another revision, as a peer)."""
    import subprocess

    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    if theme_from is not None:
        env["PYTHONPATH"] = str(theme_from)
    with PeakRss() as rss:
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                              cwd=project, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
    tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]
    if done.returncode != (1 if expect_failures else 0):
        sys.exit(f"pytest exited {done.returncode} in {project}: {done.stdout[-2000:]}")
    return seconds, rss.peak, tail, rss.peak_pss


def bench_styles(visual, rounds: int) -> None:
    """(a') the specimen's variants captured with and without each region's style record
    (theme/capture/shoot.py RECORD_STYLES), alternating, in one warm browser."""
    from theme.capture import shoot

    todo = variants(visual)
    took: dict[bool, list[float]] = {True: [], False: []}
    reading: list[float] = []
    with Session(visual) as session:
        list(session.capture_all(todo))  # warm, as in (a)
        try:
            for _ in range(rounds):
                for record in (False, True):
                    shoot.RECORD_STYLES = record
                    t0 = time.perf_counter()
                    caps = list(session.capture_all(todo))
                    took[record].append(time.perf_counter() - t0)
                    if record:
                        reading.append(sum(c.timings.get("styles", 0.0) for c in caps))
        finally:
            shoot.RECORD_STYLES = True
    with_, without = min(took[True]), min(took[False])
    print(f"(a') specimen, {len(todo)} variants, best of {rounds}: with style records {with_:.2f} s, "
          f"without {without:.2f} s; reading them {min(reading):.2f} s "
          f"({sum(len(c.styles) for c in caps)} regions)")
    print(f"RATIO specimen capture with style records / without = {with_ / without:.2f}x (best of {rounds} each)")


def bench_flow(workdir: Path, rounds: int) -> None:
    """(f) the long runtime page's desktop-light capture with and without the record of its
    text flow, alternating, in one warm browser; the record's own time beside it."""
    from theme.capture import shoot

    visual = config.load(long_project(workdir, "flow", "{ desktop = [1280, 800] }") / "pyproject.toml").visual
    visual = dataclasses_replace(visual, color_schemes=("light",))
    (todo,) = variants(visual)
    recorded = shoot.flow_record
    took: dict[bool, list[float]] = {True: [], False: []}
    reading: list[float] = []

    def timed_record(*args: object) -> object:
        t0 = time.perf_counter()
        try:
            return recorded(*args)
        finally:
            reading.append(time.perf_counter() - t0)

    with Session(visual) as session:
        session.capture(todo)  # warm
        try:
            for _ in range(rounds):
                for flow in (False, True):
                    shoot.flow_record = timed_record if flow else (lambda *args: {})
                    t0 = time.perf_counter()
                    cap = session.capture(todo)
                    took[flow].append(time.perf_counter() - t0)
        finally:
            shoot.flow_record = recorded
    with_, without = min(took[True]), min(took[False])
    kinds = len(cap.styles.get("page.png", {}))
    print(f"(f) long page {cap.image.shape[1]}x{cap.image.shape[0]}, best of {rounds}: with its flow record "
          f"{with_:.2f} s, without {without:.2f} s; reading it {min(reading):.2f} s ({kinds} kinds of element)")
    print(f"RATIO long-page capture with its flow record / without = {with_ / without:.2f}x "
          f"({with_:.1f} s vs {without:.1f} s, best of {rounds} each; target <= 1.02x)")


def bench_long(workdir: Path, rounds: int) -> None:
    """(b) the long runtime page: the whole check (pytest: capture, compare, report) against
    the bare DevTools calls for the same tiles; then all four variants; peak RSS of each."""
    desktop = long_project(workdir, "desktop", "{ desktop = [1280, 800] }")
    timed_pytest(desktop, "--update-snapshots")  # baselines, not timed
    checks = [timed_pytest(desktop) for _ in range(rounds)]
    visual = config.load(desktop / "pyproject.toml").visual
    with Session(visual) as session:
        caps = list(session.capture_all(variants(visual)))
        heights = [c.image.shape[0] for c in caps]
        for c in caps:
            t = c.timings
            e = c.explain
            print(f"(b) long {c.variant.scheme}: 1280x{c.image.shape[0]} px, {len(c.regions)} regions, "
                  f"{c.seconds:.2f} s from open: load {t['load']:.2f}, settle {t['settle']:.2f} (read through "
                  f"{e.get('read_through', {}).get('seconds', 0):.2f}), stable {t['stable']:.2f}, "
                  f"tiles {t['tiles']:.2f} "
                  f"({t['tile_calls']} calls, browser {t['tile_seconds']:.2f}), guard {t['guard']:.2f}"
                  f"{', scheme switched' if t['switched'] else ''}")
        del caps
        pairs = list(zip(variants(visual), heights, strict=True))
        peers = [sum(bare_calls(session, v, h, 1280, visual.tile_height, 0) for v, h in pairs)
                 for _ in range(rounds)]
    scripts = [timed_bare_script(desktop) for _ in range(rounds)]
    check, peer, script = min(c[0] for c in checks), min(peers), min(scripts)
    print("    whole check rounds: " + ", ".join(f"{c[0]:.1f} s (peak RSS {c[1]:.0f} MB: {c[2]})" for c in checks))
    print(f"RATIO long page whole check (pytest: capture, compare, report; light+dark) / bare tile calls = "
          f"{check / peer:.2f}x ({check:.1f} s vs {peer:.1f} s, best of {rounds}; target <= 1.3x)")
    print(f"RATIO long page whole check / a bare Playwright script (launch, goto + networkidle, the same tile "
          f"calls; no settling, no compare) = {check / script:.2f}x "
          f"({check:.1f} s vs {script:.1f} s, best of {rounds})")
    four = long_project(workdir, "four", "{ mobile = [390, 844], desktop = [1280, 800] }")
    timed_pytest(four, "--update-snapshots")
    seconds, peak, tail, pss = timed_pytest(four)
    print(f"RATIO long page all four variants, whole check / 60 s target = {seconds / 60:.2f}x "
          f"({seconds:.1f} s: {tail})")
    print(f"RATIO long page peak memory (summed PSS) of the four-variant check, pytest + browser / 2 GiB "
          f"target = {pss / 2048:.2f}x ({pss:.0f} MB)")
    print(f"RATIO long page peak summed RSS (shared pages counted once per process) of the same run / 2 GiB = "
          f"{peak / 2048:.2f}x ({peak:.0f} MB)")


def bench_remote(visual, rounds: int) -> None:
    """(c) the specimen's four variants through `theme browser serve` endpoints (Playwright's
    protocol over a websocket on 127.0.0.1) against a local launch of the same browser."""
    from theme.capture import remote
    from theme.capture.pool import Pool

    def timed(make) -> float:
        t0 = time.perf_counter()
        with make() as session:
            for _ in session.capture_all(variants(visual)):
                pass
        return time.perf_counter() - t0

    servers = [remote.serve(), remote.serve()]
    try:
        local, one, two = [], [], []
        for _ in range(rounds):  # interleaved, so load drifts hit all three alike
            local.append(timed(lambda: Session(visual)))
            one.append(timed(lambda: Pool(visual, [servers[0].endpoint])))
            two.append(timed(lambda: Pool(visual, [s.endpoint for s in servers])))
    finally:
        for s in servers:
            s.stop()
    print(f"RATIO specimen through one local browser server / local launch = {min(one) / min(local):.2f}x "
          f"({min(one):.1f} s vs {min(local):.1f} s, best of {rounds}; target <= 1.1x)")
    print(f"RATIO specimen through two browser servers / local launch = {min(two) / min(local):.2f}x "
          f"({min(two):.1f} s vs {min(local):.1f} s, best of {rounds}; 2 cores shared by both servers and the client)")


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
    parser.add_argument("--styles-only", action="store_true", help="only part (a'): the style record's cost")
    parser.add_argument("--flow-only", action="store_true", help="only part (f): the flow record's cost")
    parser.add_argument("--bare-script", type=Path, help=argparse.SUPPRESS)  # part (b)'s peer, run as its own process
    args = parser.parse_args()
    if args.bare_script:
        return bare_script(args.bare_script)
    # the pages alone (no reader states), as the figures in benchmarks/README.md were measured
    visual = dataclasses_replace(config.load(REPO / "pyproject.toml").visual, tile_height=args.tile_height, states=())
    if not (visual.root / "index.html").is_file():
        sys.exit("article/dist/index.html is missing: the specimen must exist")
    if args.styles_only:
        return bench_styles(visual, args.rounds)
    if args.flow_only:
        with tempfile.TemporaryDirectory() as tmp:
            return bench_flow(Path(tmp), args.rounds)
    bench_specimen(visual, args.rounds)
    bench_styles(visual, args.rounds)
    bench_remote(visual, args.rounds)
    if not args.skip_tall:
        with tempfile.TemporaryDirectory() as tmp:
            bench_long(Path(tmp), args.rounds)
            bench_flow(Path(tmp), args.rounds)
    bench_repeat(visual, args.repeats)


if __name__ == "__main__":
    main()
