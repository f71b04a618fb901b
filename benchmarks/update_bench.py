"""Updates, failing runs and clean checks of the long runtime page: ratio lines from one run.

    python benchmarks/update_bench.py [--rounds 2]

Issue 33 items 1 and 2, on the long runtime page (article/long/make_long.py, ~130 000 px at
1280 px), light and dark at 1280x800, each path a whole `pytest` run in its own process:

- clean check: baselines there, every page rendered (`--rerender`), everything matches;
- update, first baselines: no snapshots/ yet, `--update-snapshots` writes every one;
- update, nothing changed: `--update-snapshots --rerender` over baselines with the same pixels;
- failing run: the note-boxes' padding grows by 1 px, and every note-box below fails.

The paths are alternated, round by round, and the best of each is kept. Then every baseline the
run wrote is encoded again as theme encodes it, at theme's level (theme/store.py BASELINE_LEVEL)
and at level 6 (before), in this process: what encoding alone costs in CPU, and what the level
saves. Peak memory is the summed PSS of pytest and its browser (capture_bench.PeakRss).
Targets (issue 33): update <= 1.3x the clean check, failing <= 1.3x, peak PSS < 1.5 GiB.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capture_bench import long_project, timed_pytest  # noqa: E402  (the long page's project, a timed pytest)
from theme import images, store  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
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
