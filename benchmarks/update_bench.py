"""Updates, failing runs and clean checks of the long runtime page: ratio lines from one run.

    python benchmarks/update_bench.py [--rounds 2]

Issue 33 items 1 and 2, on the long runtime page (article/long/make_long.py, ~130 000 px at
1280 px), light and dark at 1280x800, each path a whole `pytest` run in its own process:

- clean check: baselines there, every page rendered (`--rerender`), everything matches;
- update, first baselines: no snapshots/ yet, `--update-snapshots` writes every one;
- update, nothing changed: `--update-snapshots --rerender` over baselines with the same pixels;
- failing run: the note-boxes' padding grows by 1 px, and every note-box below fails.

The paths are alternated, round by round, and the best of each is kept. Then every baseline the
run wrote is encoded again as theme encodes it, at theme's level (theme/baselines/store.py BASELINE_LEVEL)
and at level 6 (before), in this process: what encoding alone costs in CPU, and what the level
saves. Peak memory is the summed PSS of pytest and its browser (capture_bench.PeakRss).
Targets (issue 33): update <= 1.3x the clean check, failing <= 1.3x, peak PSS < 1.5 GiB.

    python benchmarks/update_bench.py --against REV [--rounds 3]

A clean check (`--rerender`) of the long page, light and dark, by this checkout and by the
revision REV (a git worktree of it, imported through PYTHONPATH, with this checkout's page and
baselines), alternated, best of each: what a change costs a check. Issue 48's target: a check
on page time with seeded random numbers costs at most 1.05x one from before them (900657c).

    python benchmarks/update_bench.py --memory [--tile-height 16384]

The memory target's own setting: the long page in its four variants (desktop and mobile, light and
dark), one first-baselines run, one clean check and one failing run, each with its peak summed PSS
and, at that peak, what each kind of process held (pytest, Playwright's node driver, and Chromium's
browser, renderer and GPU process: the GPU process composites the tiles, also with --disable-gpu).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capture_bench import _rollup, long_project, timed_pytest, tree_pids  # noqa: E402  (the long page's project, a timed pytest)
from theme.baselines import store  # noqa: E402
from theme.pixels import images

NOTE_CHANGE = "\n.note-box { padding-top: 13px !important; }\n"  # the seeds' kind of change: note-boxes only


def encode_seconds(folder: Path, levels: tuple[int, ...]) -> dict[int, tuple[float, float, int]]:
    """{level: (CPU seconds, seconds, bytes)} to encode every baseline under `folder` as theme
    encodes them (images.encode_png, opaque ones as RGB with the alpha dropped by Pillow), at each
    of `levels` in turn, file by file; decoding is not timed. The CPU seconds are this thread's
    (Pillow encodes in it): on a loaded machine the wall seconds of one encode vary 2x run to run."""
    out = {level: (0.0, 0.0, 0) for level in levels}
    for path in sorted(folder.rglob("*.png")):
        rgba = images.read_png(path)
        opaque = int(rgba[:, :, 3].min()) == 255
        for level in levels:
            c0, t0 = time.thread_time(), time.perf_counter()
            size = len(images.encode_png(rgba, level=level, drop_alpha=opaque))
            cpu, took, total = out[level]
            out[level] = (cpu + time.thread_time() - c0, took + time.perf_counter() - t0, total + size)
    return out


def process_kind(pid: str) -> str:
    """pytest, node, or a Chromium process's --type (browser when it has none). Chromium rewrites
    its command line as one string, so the type is searched in it."""
    try:
        line = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").replace("\0", " ")
    except OSError:
        return "gone"
    if "chromium" in line or "chrome" in line:
        found = re.search(r"--type=([a-z-]+)", line)
        return found.group(1) if found else "browser"
    return "pytest" if "pytest" in line else Path(line.split(" ", 1)[0]).name


def peak_by_kind(project: Path, *args: str) -> tuple[float, float, dict[str, int], int]:
    """(seconds, peak summed PSS in MB, {kind: MB} at that peak, exit code) of one pytest run."""
    peak, parts, stop = 0.0, {}, threading.Event()

    def sample() -> None:
        nonlocal peak, parts
        while not stop.wait(0.2):
            now: dict[str, float] = {}
            for pid in tree_pids():
                kind = process_kind(pid)
                now[kind] = now.get(kind, 0.0) + _rollup(pid)[1] / 1024
            if sum(now.values()) > peak:
                peak, parts = sum(now.values()), {k: round(v) for k, v in sorted(now.items())}

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                          cwd=project, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    stop.set()
    sampler.join()
    return seconds, peak, parts, done.returncode


def memory(tile_height: int | None) -> None:
    """The four-variant runs of the memory target, each with its peak and what held it."""
    with tempfile.TemporaryDirectory(prefix="theme-memory-bench-") as tmp:
        project = long_project(Path(tmp), "long", "{ desktop = [1280, 800], mobile = [390, 844] }")
        if tile_height is not None:
            config = project / "pyproject.toml"
            text = config.read_text(encoding="utf-8")
            table = "[tool.theme.visual]\n"
            config.write_text(text.replace(table, f"{table}tile_height = {tile_height}\n"), encoding="utf-8")
        style = project / "site" / "style.css"
        original = style.read_text(encoding="utf-8")
        peaks = []
        for name, args, expect in (("first baselines", ("--update-snapshots",), 0), ("clean check", ("--rerender",), 0),
                                   ("failing run", ("--rerender",), 1)):
            if name == "failing run":
                style.write_text(original + NOTE_CHANGE, encoding="utf-8")
            seconds, peak, parts, code = peak_by_kind(project, *args)
            if code != expect:
                sys.exit(f"{name}: pytest exited {code}, not {expect}")
            held = ", ".join(f"{k} {v}" for k, v in parts.items())
            print(f"    {name}: {seconds:.1f} s, peak PSS {peak:.0f} MB: {held}")
            peaks.append(peak)
        shown = "theme's default" if tile_height is None else f"tile_height {tile_height}"
        print(f"RATIO peak memory (summed PSS) of the long page's 4 variants, update, check and failing run, "
              f"{shown} / 1.5 GiB = {max(peaks) / 1536:.2f}x ({max(peaks):.0f} MB)")


def against(rev: str, rounds: int) -> None:
    """Clean checks by this checkout and by `rev`, alternated (module docstring)."""
    repo = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="theme-against-bench-") as tmp:
        tree = Path(tmp) / "rev"
        subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", "-q", str(tree), rev], check=True)
        try:
            project = long_project(Path(tmp), "long", "{ desktop = [1280, 800] }")
            timed_pytest(project, "--update-snapshots")  # the baselines, by this checkout
            timed_pytest(project, "--rerender", theme_from=tree)  # warm: its kernels compile once
            took: dict[str, list[float]] = {"head": [], rev: []}
            for _ in range(rounds):
                took["head"].append(timed_pytest(project, "--rerender")[0])
                took[rev].append(timed_pytest(project, "--rerender", theme_from=tree)[0])
        finally:
            subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(tree)], check=False)
    for name, seconds in took.items():
        print(f"    {name}: " + ", ".join(f"{s:.1f} s" for s in seconds))
    head, old = min(took["head"]), min(took[rev])
    print(f"RATIO clean check (long page, light+dark), this checkout / {rev} = {head / old:.2f}x "
          f"({head:.1f} s vs {old:.1f} s, best of {rounds}; target <= 1.05x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--memory", action="store_true", help="only the four-variant memory runs")
    parser.add_argument("--tile-height", type=int, help="with --memory: this tile_height instead of theme's default")
    parser.add_argument("--against", metavar="REV", help="only clean checks, by this checkout and by REV")
    args = parser.parse_args()
    if args.against:
        against(args.against, args.rounds)
        return
    if args.memory:
        memory(args.tile_height)
        return
    with tempfile.TemporaryDirectory(prefix="theme-update-bench-") as tmp:
        project = long_project(Path(tmp), "long", "{ desktop = [1280, 800] }")
        style = project / "site" / "style.css"
        original = style.read_text(encoding="utf-8")
        timed_pytest(project, "--update-snapshots")  # warm: fonts, the browser, the page's caches
        runs: dict[str, list[tuple[float, float, str, float]]] = {"check": [], "first": [], "same": [], "failing": []}
        for _ in range(args.rounds):
            runs["check"].append(timed_pytest(project, "--rerender"))
            shutil.rmtree(project / "snapshots")
            runs["first"].append(timed_pytest(project, "--update-snapshots"))
            runs["same"].append(timed_pytest(project, "--update-snapshots", "--rerender"))
            style.write_text(original + NOTE_CHANGE, encoding="utf-8")
            try:
                runs["failing"].append(timed_pytest(project, "--rerender", expect_failures=True))
            finally:
                style.write_text(original, encoding="utf-8")
        best = {name: min(r[0] for r in rs) for name, rs in runs.items()}
        for name, rs in runs.items():
            print(f"    {name}: " + ", ".join(f"{r[0]:.1f} s (peak PSS {r[3]:.0f} MB: {r[2]})" for r in rs))
        check = best["check"]
        print(f"RATIO update, first baselines / clean check (long page, light+dark) = {best['first'] / check:.2f}x "
              f"({best['first']:.1f} s vs {check:.1f} s, best of {args.rounds}; target <= 1.3x)")
        print(f"RATIO update, nothing changed / clean check = {best['same'] / check:.2f}x "
              f"({best['same']:.1f} s vs {check:.1f} s, best of {args.rounds})")
        print(f"RATIO failing run (note-box padding +1 px) / clean check = {best['failing'] / check:.2f}x "
              f"({best['failing']:.1f} s vs {check:.1f} s, best of {args.rounds}; target <= 1.3x)")
        peak = max(r[3] for rs in runs.values() for r in rs)
        print(f"RATIO peak memory (summed PSS, pytest + browser) of any of these runs / 1.5 GiB = "
              f"{peak / 1536:.2f}x ({peak:.0f} MB)")
        theirs = store.BASELINE_LEVEL
        encoded = encode_seconds(project / "snapshots", (theirs, 6))
        (mine, mine_wall, mine_bytes), (six, six_wall, six_bytes) = encoded[theirs], encoded[6]
        print(f"RATIO CPU to encode the same baselines, level {theirs} (theme's) / level 6 (before) = "
              f"{mine / six:.2f}x ({mine:.1f} s vs {six:.1f} s CPU, {mine_wall:.1f} s vs {six_wall:.1f} s wall; "
              f"{mine_bytes / 1e6:.1f} MB vs {six_bytes / 1e6:.1f} MB, {(mine_bytes / six_bytes - 1) * 100:+.1f} %)")

if __name__ == "__main__":
    main()
