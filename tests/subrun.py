"""How the tests start pytest in a subprocess, as a user runs it in their project.

One run of the suite starts 123 such sub-runs (and 174 of `theme`). Each one autoloads every
pytest plugin installed beside theme: hypothesis's (a test dependency of this repository,
never used by a sub-run's project) imports all of hypothesis, and anyio's (installed with
watchfiles) imports trio: 1.7 CPU-s of a sub-run's 2.7 before it collects anything
(benchmarks/README.md, "Test suite time"). A project adopting theme has neither in use;
theme's own plugin and pytest-xdist still load from their entry points, as they do for it.
`-p no:NAME` for a plugin that is not installed (pytest-benchmark, on some machines) is a no-op.
"""

from __future__ import annotations

import sys

UNUSED_PLUGINS = ("-p", "no:hypothesispytest", "-p", "no:anyio", "-p", "no:benchmark")
# `python -m pytest` for a project in a subprocess: no cache written into it, and no unused plugin.
PYTEST = (sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *UNUSED_PLUGINS)
# How a generated workflow installs theme, for the tests that run `theme init`: this machine's
# theme may be an editable install from a checkout with no remote, or a remote and commit
# that vary, so the tests name one (without it, init would leave the workflow out or take
# the checkout's).
THEME_SPEC = "theme @ git+https://github.com/example/theme@0123456789abcdef0123456789abcdef01234567"
