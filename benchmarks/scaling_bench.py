"""How a repository of articles scales: prints ratio lines from one run.

    python benchmarks/scaling_bench.py [--articles 8] [--screens 12] [--rounds 2]

Issue 33 item 5: N generated articles (unchanged_bench.make_repository: one shared stylesheet,
an SVG figure, each article sections of text, note-boxes, code and figures) x 2 viewports x
2 schemes, checked with every page rendered (`--rerender`):

(a) serially, one pytest process and one browser (`-n 0`);
(b) with `-n 2`: two pytest-xdist workers; each variant is rendered once, by the worker that
    claims it (theme/review/runs/sharing.py), so the renders are spread over two browsers;
(c) one pytest process whose variants are spread over two local `theme browser serve`
    endpoints (THEME_BROWSER_ENDPOINTS), as a CI job with browser containers runs it;
(d) the default check with one article changed: the other pages' inputs did not change, so
    they are not rendered (theme/check/inputs.py).

Baselines are written once per browser setup ((c) has its own copy, written through the
endpoints, since a remote browser's fingerprint is its own). The runs alternate round by round;
the best of each is kept. The floor F is a check that renders nothing (nothing changed).
The model's arithmetic is printed beside the measured numbers: with V variants, R seconds of
rendering and checking per variant (measured from (a): (a - F) / V) and W ways of working at
once on K cores, the wall time is about F + V * R / min(W, K), F being the floor of the same
setup (two xdist workers start, each with its browser, before anything is rendered).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from unchanged_bench import make_repository, timed_pytest  # noqa: E402  (the repository, a timed pytest)


def main() -> None:
    from theme.capture import remote

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--articles", type=int, default=8)
    parser.add_argument("--screens", type=int, default=12, help="sections per article (about a screen each)")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="theme-scaling-bench-") as tmp:
        local = Path(tmp) / "local"
        local.mkdir()
        pages = make_repository(local, args.articles, args.screens)
        served = Path(tmp) / "served"
        shutil.copytree(local, served)
        variants = len(pages) * 4
        servers = [remote.serve(), remote.serve()]
        endpoints = {"THEME_BROWSER_ENDPOINTS": ",".join(s.endpoint for s in servers)}
        try:
            made, said = timed_pytest(local, "--update-snapshots", "-n", "0")
            print(f"{len(pages)} articles x 2 viewports x 2 schemes = {variants} variants; "
                  f"baselines written in {made:.1f} s ({said})")
            timed_pytest(served, "--update-snapshots", "-n", "0", env=endpoints)
            changed = local / "site" / pages[len(pages) // 2]
            runs = {
                "a": (local, ("-n", "0", "--rerender"), None),
                "b": (local, ("-n", "2", "--rerender"), None),
                "c": (served, ("-n", "0", "--rerender"), endpoints),
                "d": (local, ("-n", "0"), None),
                "floor": (local, ("-n", "0"), None),
                "floor -n 2": (local, ("-n", "2"), None),  # what starting two workers costs
            }
            took: dict[str, list[float]] = {name: [] for name in runs}
            said_by: dict[str, str] = {}
            original = changed.read_text()
            for _ in range(args.rounds):
                for name, (project, flags, env) in runs.items():
                    if name == "d":  # a reworded comment: its inputs change, its pixels do not
                        changed.write_text(original.replace("<body>", "<body><!-- reworded in review -->", 1))
                    seconds, said_by[name] = timed_pytest(project, *flags, env=env)
                    changed.write_text(original)  # a check records nothing: the floor skips it again
                    took[name].append(seconds)
        finally:
            for server in servers:
                server.stop()
    best = {name: min(times) for name, times in took.items()}
    for name, times in took.items():
        print(f"    ({name}) " + ", ".join(f"{s:.1f} s" for s in times) + f"  {said_by[name]}")
    serial, floor = best["a"], best["floor"]
    per_variant = (serial - floor) / variants
    print(f"RATIO (b) -n 2 / (a) serial, every page rendered = {best['b'] / serial:.2f}x "
          f"({best['b']:.1f} s vs {serial:.1f} s, best of {args.rounds})")
    print(f"RATIO (c) two `theme browser serve` endpoints / (a) serial = {best['c'] / serial:.2f}x "
          f"({best['c']:.1f} s vs {serial:.1f} s, best of {args.rounds})")
    print(f"RATIO (d) one article of {len(pages)} changed, unchanged pages skipped / (a) every page rendered = "
          f"{best['d'] / serial:.2f}x ({best['d']:.1f} s vs {serial:.1f} s, best of {args.rounds}; target <= 0.3x)")
    print(f"model: F = {floor:.1f} s (a check that renders nothing), R = (a - F) / V = ({serial:.1f} - {floor:.1f}) "
          f"/ {variants} = {per_variant:.2f} s a variant, K = {cores} cores")
    print(f"    (b) starts two workers first: its floor F2 = {best['floor -n 2']:.1f} s")
    for name, base, ways, rendered in (("b", "F2", 2, variants), ("c", "F", 2, variants), ("d", "F", 1, 4)):
        fixed = best["floor -n 2"] if base == "F2" else floor
        predicted = fixed + rendered * per_variant / min(ways, cores)
        print(f"    ({name}) predicted {base} + {rendered} x R / min({ways}, {cores}) = {predicted:.1f} s, "
              f"measured {best[name]:.1f} s")


if __name__ == "__main__":
    main()
