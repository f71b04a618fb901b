"""`theme setup`: make this machine able to render, with no manual step.

A Chromium (THEME_BROWSER, else Playwright's, else Debian's `chromium` via apt-get), an emoji
font and fontconfig, bytecode for an editable install, the diff kernels compiled ahead of
time, and git-lfs (baselines under Git LFS). Each step checks before it acts, so a second run
changes nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Callable, Mapping

from ..core.errors import ThemeError

APT_BROWSER = ("chromium",)
APT_FONTS = ("fontconfig", "fonts-noto-color-emoji")
APT_LFS = ("git-lfs",)
EMOJI_FAMILY = "Noto Color Emoji"


class SetupError(ThemeError):
    pass


@dataclass(frozen=True)
class Step:
    name: str
    done: str  # what was found or installed


def setup(log: Callable[[str], None] = print, *, try_playwright: bool = True) -> list[Step]:
    """Ensure a browser and the system fonts are present; return what each step did."""
    steps = [_ensure_fonts(log), _ensure_browser(log, try_playwright), _ensure_bytecode(),
             _ensure_kernels(log), _ensure_git_lfs(log)]
    return steps


def _ensure_bytecode() -> Step:
    import compileall
    from pathlib import Path

    package = Path(__file__).resolve().parents[1]  # theme/
    # quiet=1: errors only; a read-only install cannot be helped and loses only speed
    ok = compileall.compile_dir(str(package), quiet=1)
    return Step("bytecode", f"compiled {package}" if ok else f"{package} partly not writable (slower start-up)")


def _ensure_kernels(log: Callable[[str], None]) -> Step:
    from ..pixels import aot

    if aot.load() is not None:
        return Step("kernels", "found the compiled diff and PNG kernels")
    if aot.module_name() is None:
        return Step("kernels", "numba missing: the diff uses numpy, PNGs decode with libspng")
    log("theme setup: compiling the diff and PNG kernels for this machine (about 10 s)")
    if aot.get() is None:
        return Step("kernels", "could not be compiled (see theme/__pycache__/*.failed): slower diffs")
    return Step("kernels", "compiled the diff and PNG kernels")


def _ensure_browser(log: Callable[[str], None], try_playwright: bool) -> Step:
    from ..capture import find_browser
    from ..core.errors import BrowserNotFound

    try:
        found = find_browser()
        return Step("browser", found.describe())
    except BrowserNotFound:
        pass
    if try_playwright and _playwright_install(log):
        return Step("browser", f"installed by Playwright: {find_browser().describe()}")
    log("theme setup: Playwright's browser download is unavailable; installing Debian's chromium")
    _apt_install(APT_BROWSER, log)
    return Step("browser", f"installed with apt-get: {find_browser().describe()}")


def _playwright_install(log: Callable[[str], None]) -> bool:
    """Try Playwright's own download; bounded, because a closed network may hang instead of refusing."""
    log("theme setup: trying `playwright install chromium`")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "playwright", "install", "chromium"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180,
        )
    except (subprocess.TimeoutExpired, OSError):
        return False
    return done.returncode == 0


def has_font(family: str) -> bool:
    if not shutil.which("fc-list"):
        return False
    out = subprocess.run(["fc-list", ":", "family"], capture_output=True, text=True).stdout
    return any(family in line for line in out.splitlines())


def _ensure_fonts(log: Callable[[str], None]) -> Step:
    if has_font(EMOJI_FAMILY):
        return Step("fonts", f"found {EMOJI_FAMILY}")
    _apt_install(APT_FONTS, log)
    if not has_font(EMOJI_FAMILY):
        raise SetupError(f"installed {' '.join(APT_FONTS)} but fc-list still has no {EMOJI_FAMILY!r}")
    return Step("fonts", f"installed {' '.join(APT_FONTS)}")


def _ensure_git_lfs(log: Callable[[str], None]) -> Step:
    """Baselines kept under Git LFS (`theme init --lfs`) arrive as pointer files without it.
    Not a reason to fail: rendering and checking work without it."""
    found = shutil.which("git-lfs")
    if found:
        return Step("git-lfs", "found " + found)
    try:
        _apt_install(APT_LFS, log)
    except SetupError as err:
        return Step("git-lfs", f"not installed ({err}): baselines under Git LFS cannot be fetched")
    return Step("git-lfs", "installed git-lfs")


_apt_updated = False


def _apt_install(packages: tuple[str, ...], log: Callable[[str], None]) -> None:
    global _apt_updated
    command = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages]
    prefix = _root_prefix(command)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if not _apt_updated:
        _run([*prefix, "apt-get", "update", "-q"], env, log)
        _apt_updated = True
    _run([*prefix, *command], env, log)


def _root_prefix(command: list[str]) -> list[str]:
    if not shutil.which("apt-get"):
        raise SetupError(
            f"no apt-get here: install {' '.join(command[3:])} with your package manager, "
            "or set THEME_BROWSER=/path/to/chromium"
        )
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo"):
        return ["sudo", "-n"]
    raise SetupError(f"installing needs root: run `sudo {' '.join(command)}` and then theme setup again")


def _run(command: list[str], env: Mapping[str, str], log: Callable[[str], None]) -> None:
    log("theme setup: " + " ".join(command))
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SetupError(f"`{' '.join(command)}` failed (exit {done.returncode}): {tail}")
