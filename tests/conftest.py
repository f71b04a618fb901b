"""Fixtures shared by test folders, and how the suite is spread over pytest-xdist workers."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from subrun import THEME_SPEC

REPO = Path(__file__).resolve().parents[1]

# The README's command runs `-n 4 --dist loadscope --no-loadscope-reorder` (pyproject.toml):
# each test module runs whole on one worker, so its module-scoped renders happen once,
# except the modules below, whose tests each take minutes, or which hold a worker for
# minutes in all, and share nothing costly (a Session costs a second): the long page's three
# captures hold a worker, so its two other tests go elsewhere; test_capture_engine.py's 47
# tests were one worker's 5 minutes of `-m "not slow"` while the other three had finished.
SPREAD = frozenset({"tests/visual/test_init.py", "tests/visual/test_long_runtime_page.py",
                    "tests/visual/test_capture_engine.py"})
# Scheduled first, the longest first, so that no worker starts minutes of work at the end
# (the durations are in benchmarks/README.md "Test suite time"). xdist keeps a second unit
# queued on each worker from the start: the two short init tests are those of the two longest.
FIRST = (
    "tests/visual/test_init.py::test_the_published_ctc_article_renders_on_the_runtime_theme_ships",
    "tests/visual/test_init.py::test_the_published_ctc_article_from_nothing_to_two_green_checks",
    "tests/visual/test_long_runtime_page.py",
    "tests/visual/test_long_report_size.py",
    "tests/visual/test_states.py",
    "tests/visual/test_init.py::test_refusals_are_one_line_with_what_to_do",
    "tests/visual/test_init.py::test_packages_without_a_path_and_only_the_files_pages_load",
    "tests/visual/test_remote_browsers.py",
    "tests/integration/test_compare_revisions.py",
    "tests/visual/test_init.py",
    "tests/visual/test_style_causes.py",
    "tests/visual/test_adopt_render.py",
    "tests/visual/test_real_distill.py",
)
# Of the tests not marked slow (the contributor's loop, `-m "not slow"`), the modules that take
# longest, longest first: they start at once rather than after the quick unit tests.
QUICK_FIRST = (
    "tests/visual/test_capture_engine.py",
    "tests/visual/test_runtime_pages.py",
    "tests/visual/test_page_time.py",
    "tests/integration/test_cli_lint.py",
    "tests/visual/test_specimen.py",
    "tests/visual/test_capture_specimen.py",
    "tests/unit/test_code_checks.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put the longest first. Every worker sorts the same collection the same way, as xdist needs."""
    items.sort(key=_rank)


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """Each module's tests as one unit of work on one worker, so its module-scoped renders
    happen once; each test of a SPREAD module a unit of its own. The scheduler is xdist's
    loadscope with its scope split here, from the node id alone: `--dist loadgroup` with
    xdist_group markers stopped grouping under pytest 9.2 (xdist 3.8 renames an item's
    `_nodeid`, which pytest 9.2 no longer reads), and every module fixture ran per test."""
    if config.getvalue("dist") not in ("loadscope", "loadgroup"):
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByModule(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return nodeid if module in SPREAD else module

    return ByModule(config, log)


def _module(item: pytest.Item) -> str | None:
    """The test file's path as in node ids (tests/…/test_x.py); None for the snapshot items
    theme's own plugin adds (they are quick, and scheduled one by one)."""
    return item.nodeid.split("::", 1)[0] if isinstance(item, pytest.Function) else None


def _rank(item: pytest.Item) -> int:
    """FIRST in its order, then the other slow tests, then QUICK_FIRST in its order, then the rest."""
    slow = isinstance(item, pytest.Function) and item.get_closest_marker("slow") is not None
    first = _listed(item.nodeid, FIRST)
    if first is not None:
        return first
    if slow:
        return len(FIRST)
    quick = _listed(item.nodeid, QUICK_FIRST)
    return len(FIRST) + 1 + (len(QUICK_FIRST) if quick is None else quick)


def _listed(nodeid: str, prefixes: tuple[str, ...]) -> int | None:
    """The index of the first prefix naming this test, its module or a parametrised case of it."""
    return next((i for i, prefix in enumerate(prefixes)
                 if nodeid == prefix or nodeid.startswith((prefix + "::", prefix + "["))), None)


@pytest.fixture(scope="session", autouse=True)
def one_driver_and_browser_a_worker():
    """Each pytest process (an xdist worker) renders in-process with one Playwright driver and
    one Chromium per executable and flags, kept from Session to Session (kept_browsers(), as
    `theme init` does for its looks): a launch costs about a CPU-second (browser, GPU process,
    zygotes, driver), and the suite made 362 of them. The pages are each Session's own
    (a browser context each). Sub-runs (`python -m theme`, `python -m pytest`) launch their
    own, as a user's runs do. The driver starts with the first render: a worker of unit tests
    starts none. tests/visual/test_kept_browsers.py suspends it."""
    from theme.capture.launch import kept_browsers

    with kept_browsers():
        yield


@pytest.fixture(scope="session")
def plain_chromium(one_driver_and_browser_a_worker):
    """A plain Playwright Chromium (no theme engine around it, none of its flags), for tests
    that open pages theme wrote (the report) as a reviewer's browser would, or the specimen
    as a reader's. Skips when there is none. On the worker's one driver: a second sync
    Playwright cannot start in the same thread while it runs."""
    from theme.capture.driver import shared_playwright

    executable = os.environ.get("THEME_BROWSER", "/usr/bin/chromium")
    if not Path(executable).exists():
        pytest.skip(f"no Chromium at {executable} (set THEME_BROWSER)")
    with shared_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=["--no-sandbox"], headless=True)
        yield browser
        browser.close()


@pytest.fixture
def serve_browser():
    """Starts `theme browser serve` processes, as a user or a container runs them; each is
    stopped after the test. Returns theme.capture.remote.Served (endpoint, process)."""
    import subprocess
    import sys

    from theme.capture import remote

    started = []

    def start() -> remote.Served:
        process = subprocess.Popen([sys.executable, "-m", "theme", "browser", "serve"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        served = remote.Served(process.stdout.readline().strip(), process)
        started.append(served)
        assert served.endpoint.startswith("ws://127.0.0.1:"), served.endpoint  # loopback unless told otherwise
        return served

    yield start
    for served in started:
        served.stop()


@pytest.fixture(scope="session")
def katex_tarball(tmp_path_factory) -> Path:
    """katex-0.19.1.tgz made by npm from the vendored KaTeX, laid out as the registry's is
    (dist/, and the licence at the package's root)."""
    if not shutil.which("npm"):
        pytest.skip("npm is not installed (Node.js ships it)")
    folder = tmp_path_factory.mktemp("katex-package")
    shutil.copytree(REPO / "article/dist/assets/katex", folder / "package/dist")
    (folder / "package/dist/LICENSE").rename(folder / "package/LICENSE")
    (folder / "package/package.json").write_text(json.dumps({"name": "katex", "version": "0.19.1", "license": "MIT"}))
    done = subprocess.run(["npm", "pack", str(folder / "package"), "--json", "--pack-destination", str(folder)],
                          cwd=folder, capture_output=True, text=True, check=True)
    return folder / json.loads(done.stdout)[0]["filename"]


@pytest.fixture(scope="session")
def ctc_initialised(tmp_path_factory, katex_tarball) -> tuple[Path, subprocess.CompletedProcess]:
    """The published CTC article (tests/fixtures/distill-ctc) after `theme init --yes
    --package katex=…`, and what init said: the first step of the tests that adopt it (two
    in tests/visual/test_init.py, one in tests/integration/test_compare_revisions.py), the
    same command on the same files, run once in the suite (a minute of work: it loads every
    page in each viewport and watches it). Each test copies the folder and goes on in its
    copy. The tests run on different pytest-xdist workers, so the folder is in the session's
    temporary folder, which the workers share: the first to get here runs init, the others
    wait for it."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # a worker's basetemp is popen-gwN inside the session's
    folder, said = shared / "ctc-initialised", shared / "ctc-initialised.json"
    with open(shared / "ctc-initialised.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not said.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a worker that died in init left it half made
            article = shutil.copytree(REPO / "tests/fixtures/distill-ctc", folder)
            done = subprocess.run([sys.executable, "-m", "theme", "init", "--theme-requirement", THEME_SPEC, "--yes",
                                   "--package", f"katex={katex_tarball}"], cwd=article, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True)
            said.write_text(json.dumps({"returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr}))
    return folder, subprocess.CompletedProcess(args=["theme", "init"], **json.loads(said.read_text()))
