"""CPU time of a command's whole process tree, Chromium's processes included; prints one line.

    python benchmarks/tree_cpu.py python3 -m pytest -n 0 tests/visual/test_init.py

`time` (and getrusage of the children one waits for) leaves out the browser: Chromium's
processes outlive the Playwright driver that started them, are re-parented to init, and
nobody waits for them, so their CPU time is counted nowhere (benchmarks/README.md, "Test
suite time"). Here the command runs under a child subreaper (prctl PR_SET_CHILD_SUBREAPER,
Linux 3.4+): every orphaned descendant is re-parented to this process, which waits for each
one, so all of their CPU time lands in its RUSAGE_CHILDREN. The line printed:

    tree_cpu: wall 908.8 s, cpu 567.3 s (user 498.5, sys 68.8), exit 0

`--log FILE` appends the same line to FILE, prefixed with `--tag`. Exits with the command's code.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def become_subreaper() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed: Linux only")


def run(command: list[str]) -> tuple[int, float]:
    """Run `command`; wait for it and for every orphan that lands here; its exit code and wall time."""
    start = time.monotonic()
    child = subprocess.Popen(command)
    code = 1
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:  # nothing left: the command and all its orphans are reaped
            break
        if pid == child.pid:
            code = os.waitstatus_to_exitcode(status)
            child.returncode = code
    return code, time.monotonic() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", help="append the line to this file too")
    parser.add_argument("--tag", default="", help="what the line in --log says first")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if not args.command:
        parser.error("no command given")
    become_subreaper()
    code, wall = run(args.command)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    line = (f"wall {wall:.1f} s, cpu {used.ru_utime + used.ru_stime:.1f} s "
            f"(user {used.ru_utime:.1f}, sys {used.ru_stime:.1f}), exit {code}")
    print(f"tree_cpu: {line}", file=sys.stderr)
    if args.log:
        with open(args.log, "a", encoding="utf-8") as log:
            log.write(f"{args.tag}\t{line}\n")
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
