"""`theme setup` on a machine that already has what rendering needs: finds it, installs nothing."""

import subprocess
import sys


def test_setup_is_idempotent_and_says_what_it_found():
    done = subprocess.run([sys.executable, "-m", "theme", "setup", "--no-playwright"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "fonts: found Noto Color Emoji"
    # for people: the executable, then how it was found (not a BrowserInfo repr)
    assert lines[1].startswith("browser: /") and " (" in lines[1] and "BrowserInfo" not in lines[1]
    assert "apt-get" not in done.stderr  # nothing was installed
    # what makes the short-lived commands fast: theme's bytecode and the compiled kernels
    import importlib.util
    from pathlib import Path

    import theme
    from theme.pixels import aot

    assert lines[2].startswith("bytecode: compiled ")
    for module in Path(theme.__file__).parent.rglob("*.py"):
        assert Path(importlib.util.cache_from_source(str(module))).is_file(), module
    assert lines[3].startswith("kernels: ")
    if aot.module_name() is not None and "could not" not in lines[3]:
        assert aot.load() is not None
    assert lines[4].startswith("git-lfs: found /")  # baselines under Git LFS can be fetched
