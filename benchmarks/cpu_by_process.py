"""Where a command's CPU goes, by kind of process: Chromium's renderers, its GPU and
browser processes, Playwright's node driver, Python, and the rest.

    python benchmarks/cpu_by_process.py python3 -m pytest

Linux only (it reads /proc). Every process that starts after the command does is counted,
on the whole machine, so keep the machine quiet. Playwright starts each Chromium in a
session of its own and Chromium's zygote re-parents its renderers, so a walk of the
command's descendants would miss most of the browser's work. Each process is sampled
every 0.2 s and counted at its last sample: what a process does in its last 0.2 s is lost,
so the total is a little under the command's own rusage, which is printed beside it.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections import defaultdict

TICK = os.sysconf("SC_CLK_TCK")
Key = tuple[int, str]  # (pid, start time in ticks): a pid may be reused within the run
Times = tuple[float, float, str]  # user s, system s, kind


def _boot_ticks_now() -> float:
    with open("/proc/uptime") as f:
        return float(f.read().split()[0]) * TICK


def _sample(since: float, me: int, kinds: dict[Key, str]) -> dict[Key, Times]:
    """(pid, start) → (user s, system s, kind) of every process started at or after `since`
    ticks. `kinds` keeps each process's kind, read once from its command line."""
    seen: dict[Key, Times] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
            fields = stat[stat.rindex(")") + 2:].split()
            if float(fields[19]) < since:  # field 22, starttime, counted from field 3
                continue
            key = (int(name), fields[19])
            if key not in kinds:
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    kinds[key] = kind(f.read().split(b"\0"))
        except (OSError, ValueError):
            continue  # gone between listdir and read
        seen[key] = (int(fields[11]) / TICK, int(fields[12]) / TICK, kinds[key])
    return seen


def kind(argv: list[bytes]) -> str:
    if len(argv) <= 2 and b" --" in argv[0]:  # Chromium's children rewrite their title, spaces between
        argv = argv[0].split(b" ")
    exe = os.path.basename(argv[0].decode(errors="replace")) if argv and argv[0] else "?"
    if "crashpad" in exe:
        return "chromium crashpad handler"
    if "chrom" in exe or exe == "chrome":
        for arg in argv:
            if arg.startswith(b"--type="):
                return "chromium " + arg[7:].decode(errors="replace")
        return "chromium browser"
    if exe == "node" and any(b"playwright" in a for a in argv):
        return "node (Playwright's driver)"
    if exe.startswith("python"):
        return "python " + _python_role(argv[1:])
    return exe


def _python_role(args: list[bytes]) -> str:
    """What a Python process is for: a test suite's own work and its sub-runs cost differently."""
    args = args[1:] if args[:1] == [b"-u"] else args  # execnet starts xdist's workers unbuffered
    if args[:1] == [b"-c"] and len(args) > 1 and b"sys.stdin" in args[1]:
        return "(pytest-xdist worker)"
    if args[:2] == [b"-m", b"theme"]:
        return "-m theme"
    if args[:2] == [b"-m", b"pytest"]:
        return "-m pytest"
    if args[:2] == [b"-m", b"pip"] or any(a.endswith(b"/pip") for a in args[:1]):
        return "-m pip"
    return "(other)"


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: cpu_by_process.py COMMAND [ARGS...]", file=sys.stderr)
        return 2
    since = _boot_ticks_now() - 1  # starttime is in whole ticks
    start = time.perf_counter()
    child = subprocess.Popen(argv)
    last: dict[Key, Times] = {}
    kinds: dict[Key, str] = {}
    while child.poll() is None:
        last.update(_sample(since, os.getpid(), kinds))
        time.sleep(0.2)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    by: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for user, system, what in last.values():
        row = by[what]
        row[0] += user
        row[1] += system
        row[2] += 1
    total = sum(u + s for u, s, _n in by.values())
    print(f"cpu_by_process: wall {wall:.1f} s, sampled {total:.1f} CPU-s in {len(last)} processes; "
          f"the command's rusage {usage.ru_utime + usage.ru_stime:.1f} CPU-s "
          f"(reaped descendants only), exit {child.returncode}", file=sys.stderr)
    for what, (user, system, n) in sorted(by.items(), key=lambda kv: -(kv[1][0] + kv[1][1])):
        share = 100 * (user + system) / total if total else 0.0
        print(f"  {user + system:9.1f} CPU-s {share:5.1f} %  (user {user:.1f}, sys {system:.1f})  "
              f"{int(n):5d} × {what}", file=sys.stderr)
    return child.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
