"""`theme setup` on a machine that already has what rendering needs: finds it, installs nothing."""

import subprocess
import sys


def test_setup_is_idempotent_and_says_what_it_found():
    done = subprocess.run([sys.executable, "-m", "theme", "setup", "--no-playwright"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "fonts: found Noto Color Emoji"
    assert lines[1].startswith("browser: found ")
    assert "apt-get" not in done.stderr  # nothing was installed
