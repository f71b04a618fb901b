"""Diff speed against the peers, in one run, on the same images (issue 4 targets).

    python benchmarks/diff_bench.py [--long] [--repeat N]

Prints, for screenshot-like pairs (benchmarks/synthetic.py: text lines shifted
1 px plus a box change) and for heavy-difference pairs:
  * theme.pixels.diff.pixelmatch vs PyPI pixelmatch 0.4.0 at 1280×720     (target ≥ 150×)
  * theme.pixels.diff.pixelmatch vs JS pixelmatch 7.2.0 at 1280×16 000     (target ≥ 1.5×)
  * `theme diff` end to end vs `odiff` on the same PNG files        (target ≤ 1.0× its time)
    (screenshot pairs at 1280×720 and 1280×16 000, and every pixel different)
  * MP/s, and peak RSS of a 1280×120 000 compare() in a fresh process (target < 2 GiB),
    with an RGBA and with an indexed diff image
Engines: "aot" is the numba kernel compiled ahead of time (theme/pixels/aot.py, what
`theme diff` uses), "numba" the same kernel JIT-compiled, "numpy" the fallback.
Times are the best of --repeat runs, peers and ours interleaved, because the
machine is shared. JS peers are installed with npm into .bench/peers (git-ignored);
a peer that cannot be installed is skipped with a line saying so.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from synthetic import heavy_pairs, screenshot_pair  # noqa: E402
from theme.pixels import images  # noqa: E402
from theme.pixels.diff import available_engines, compare, pixelmatch  # noqa: E402

WORK = ROOT / ".bench"
PEERS = WORK / "peers"
NODE_DRIVER = r"""
const fs = require('fs');
const loaded = require(process.argv[2]);
const pixelmatch = loaded.default || loaded;
const [, , , a, b, w, h, repeat] = process.argv;
const img1 = fs.readFileSync(a), img2 = fs.readFileSync(b);
const out = Buffer.alloc(img1.length);
let best = Infinity, n = 0;
for (let i = 0; i < +repeat; i++) {
  const t = process.hrtime.bigint();
  n = pixelmatch(img1, img2, out, +w, +h, {threshold: 0.1});
  best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e6);
}
console.log(JSON.stringify({ms: best, count: n}));
"""


def best_ms(fn, repeat: int) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        value = fn()
        times.append((time.perf_counter() - t) * 1000)
    return min(times), value


def mps(width: int, height: int, ms: float) -> str:
    return f"{width * height / ms / 1000:.1f} MP/s"


def install_peers() -> dict[str, str]:
    """npm-install pixelmatch@7.2.0 (not 8.x: another colour metric), pngjs and odiff-bin."""
    found: dict[str, str] = {}
    if not shutil.which("node") or not shutil.which("npm"):
        return found
    PEERS.mkdir(parents=True, exist_ok=True)
    pm = PEERS / "node_modules" / "pixelmatch"
    if not (pm / "package.json").exists() or not (PEERS / "node_modules/.bin/odiff").exists():
        subprocess.run(["npm", "i", "--no-audit", "--no-fund", "--silent", "pixelmatch@7.2.0",
                        "pngjs", "odiff-bin"], cwd=PEERS, capture_output=True, text=True)
    if (pm / "package.json").exists():
        version = json.loads((pm / "package.json").read_text())["version"]
        if version.startswith("7."):
            found["pixelmatch"] = str(pm)
    odiff = PEERS / "node_modules" / ".bin" / "odiff"
    if odiff.exists():
        found["odiff"] = str(odiff)
    return found


def run_child(cmd: list[str], cwd: Path) -> tuple[float, int, int]:
    """(wall ms, exit code, peak RSS in bytes) of one process."""
    # GNU time reports the command's own peak RSS (a forked child of this big
    # process would inherit our RSS in ru_maxrss).
    wrap = ["/usr/bin/time", "-f", "RSS %M"] if Path("/usr/bin/time").exists() else []
    t = time.perf_counter()
    res = subprocess.run(wrap + cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    ms = (time.perf_counter() - t) * 1000
    rss = [int(x.split()[1]) * 1024 for x in res.stderr.splitlines() if x.startswith("RSS ")]
    return ms, res.returncode, rss[-1] if rss else 0


def bench_pypi(engines, repeat) -> None:
    w, h = 1280, 720
    a, b = screenshot_pair(w, h)
    out = np.zeros_like(a)
    from pixelmatch import pixelmatch as reference

    ref_out = bytearray(w * h * 4)
    t = time.perf_counter()
    n_ref = reference(a.tobytes(), b.tobytes(), w, h, ref_out)
    ref_ms = (time.perf_counter() - t) * 1000
    print(f"PyPI pixelmatch 0.4.0  {w}×{h}: {ref_ms:9.1f} ms  ({mps(w, h, ref_ms)}), {n_ref} px differ")
    for engine in engines:
        ms, n = best_ms(partial(pixelmatch, a, b, w, h, out, engine=engine), repeat)
        same = n == n_ref and out.tobytes() == bytes(ref_out)
        print(f"theme.pixels.diff [{engine:5}]   {w}×{h}: {ms:9.1f} ms  ({mps(w, h, ms)}), "
              f"identical output: {same}")
        print(f"RATIO vs PyPI pixelmatch at {w}×{h} [{engine}]: {ref_ms / ms:.0f}× faster (target ≥ 150×)")


def bench_js(peers, engines, repeat, pairs) -> None:
    if "pixelmatch" not in peers:
        print("JS pixelmatch 7.2.0: skipped (node/npm missing or install failed)")
        return
    for name, (a, b) in pairs.items():
        h, w = a.shape[:2]
        raw_a, raw_b = WORK / "a.rgba", WORK / "b.rgba"
        raw_a.write_bytes(a.tobytes())
        raw_b.write_bytes(b.tobytes())
        driver = WORK / "pm_driver.js"
        driver.write_text(NODE_DRIVER)
        res = subprocess.run(["node", str(driver), peers["pixelmatch"], str(raw_a), str(raw_b),
                              str(w), str(h), str(repeat)], capture_output=True, text=True)
        if res.returncode:
            print(f"JS pixelmatch 7.2.0: failed: {res.stderr.strip()[:200]}")
            return
        js = json.loads(res.stdout)
        print(f"JS pixelmatch 7.2.0   {name} {w}×{h}: {js['ms']:8.1f} ms  ({mps(w, h, js['ms'])}), "
              f"{js['count']} px differ")
        out = np.zeros_like(a)
        for engine in engines:
            ms, n = best_ms(partial(pixelmatch, a, b, w, h, out, engine=engine), repeat)
            print(f"theme.pixels.diff [{engine:5}]   {name} {w}×{h}: {ms:8.1f} ms  ({mps(w, h, ms)}), {n} px differ")
            print(f"RATIO vs JS pixelmatch 7.2.0, {name} {w}×{h} [{engine}]: "
                  f"{js['ms'] / ms:.2f}× faster (target ≥ 1.5×)")
        raw_a.unlink()
        raw_b.unlink()


def bench_odiff(peers, repeat, cases) -> None:
    if "odiff" not in peers:
        print("odiff: skipped (node/npm missing or odiff-bin install failed)")
        return
    theme_cmd = [sys.executable, "-m", "theme", "diff"]
    import importlib.util
    if not Path(importlib.util.cache_from_source(str(ROOT / "theme" / "cli" / "diff.py"))).is_file():
        print("note: theme has no bytecode (an editable install with PYTHONDONTWRITEBYTECODE): "
              "each `theme diff` below compiles its modules first; `theme setup` compiles them")
    for name, make in cases:
        a, b = make()
        h, w = a.shape[:2]
        pa, pb = WORK / f"a-{h}.png", WORK / f"b-{h}.png"
        images.write_png(pa, a, level=6)
        images.write_png(pb, b, level=6)
        del a, b
        ours, theirs = [], []
        for _ in range(repeat):  # interleaved: both see the same machine load
            theirs.append(run_child([peers["odiff"], pa.name, pb.name, "odiff-diff.png"], WORK))
            ours.append(run_child(theme_cmd + [pa.name, pb.name, "--out", "theme-diff.png"], WORK))
        o_ms, o_rc, o_rss = min(theirs)
        t_ms, t_rc, t_rss = min(ours)
        label = f"{name} {w}×{h}" if name else f"{w}×{h}"
        print(f"odiff (decode+diff+write)   {label}: {o_ms:8.1f} ms  ({mps(w, h, o_ms)}), "
              f"peak RSS {o_rss / 2**20:.0f} MiB, exit {o_rc}")
        print(f"theme diff --out (process)  {label}: {t_ms:8.1f} ms  ({mps(w, h, t_ms)}), "
              f"peak RSS {t_rss / 2**20:.0f} MiB, exit {t_rc}")
        print(f"RATIO theme diff / odiff, {label} end to end: {t_ms / o_ms:.2f}× its time (target ≤ 1.0×)")
        pa.unlink()
        pb.unlink()


MEMORY_CHILD = r"""
import resource, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from synthetic import screenshot_pair
from theme.pixels.diff import compare
tile_a, tile_b = screenshot_pair(1280, 16000)
height = int(sys.argv[2])
reps = -(-height // 16000)
a = np.concatenate([tile_a] * reps)[:height]
b = np.concatenate([tile_b] * reps)[:height]
del tile_a, tile_b
t = time.perf_counter()
r = compare(a, b, diff_image={"rgba": True, "indexed": "indexed"}[sys.argv[3]])
ms = (time.perf_counter() - t) * 1000
print(ms, r.diff_pixels, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def bench_memory(height: int = 120_000) -> None:
    """Peak RSS of compare() on a 1280×`height` pair in a fresh process, both images
    included: with an RGBA diff image (4 bytes a pixel) and an indexed one (1 byte,
    what `theme diff --out` uses)."""
    for kind in ("rgba", "indexed"):
        res = subprocess.run([sys.executable, "-c", MEMORY_CHILD, str(ROOT / "benchmarks"), str(height), kind],
                             capture_output=True, text=True)
        if res.returncode:
            print(f"memory check failed: {res.stderr.strip()[-300:]}")
            return
        ms, count, rss = res.stdout.split()
        ms, rss = float(ms), int(rss)
        print(f"compare() 1280×{height} with {kind} diff image: {ms:.0f} ms ({mps(1280, height, ms)}), "
              f"{count} px differ, peak RSS {rss / 2**30:.2f} GiB incl. both images "
              f"({'under' if rss < 2**31 else 'OVER'} the 2 GiB target)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--long", action="store_true", help="also 1280×120 000 end to end vs odiff")
    args = parser.parse_args()
    WORK.mkdir(exist_ok=True)
    engines = available_engines()[::-1]  # numba first when installed
    # compile / warm the kernels so first-call JIT time is not counted
    warm_a, warm_b = screenshot_pair(64, 64)
    for engine in engines:
        pixelmatch(warm_a, warm_b, 64, 64, np.zeros_like(warm_a), engine=engine)
    compare(warm_a, warm_b)
    print(f"engines: {', '.join(engines)}; cores: {os.cpu_count()}; load: {os.getloadavg()[0]:.1f}")
    peers = install_peers()
    bench_pypi(engines, args.repeat)
    pairs = {"screenshot": screenshot_pair(1280, 16000)}
    pairs.update(heavy_pairs(1280, 16000))
    bench_js(peers, engines, args.repeat, pairs)
    del pairs
    cases = [("", lambda: screenshot_pair(1280, 720)), ("", lambda: screenshot_pair(1280, 16000)),
             ("all pixels differ", lambda: heavy_pairs(1280, 16000)["all pixels differ"])]
    if args.long:
        cases.append(("", lambda: screenshot_pair(1280, 120_000)))
    bench_odiff(peers, args.repeat, cases)
    bench_memory()


if __name__ == "__main__":
    main()
