"""Runs: the whole flow driven once, from variants to a written report, each through the one
check flow (theme/check/pipeline.py). A pytest session's visual checks (suite.py, `VisualRun`,
which theme/pytest_plugin.py hands every hook to), with the renders its pytest-xdist workers
share (sharing.py); and `theme compare`'s two git revisions built, captured and checked
(revision_compare.py). Above check/, below the shells that call them; in review/ it writes
through report.py, and nothing else of review/ imports it."""
