"""pytest plugin: visual checks collected from `[tool.theme.visual]`, and the `assert_snapshot` fixture.

Each hook hands off to the session's theme.review.runs.suite.VisualRun. Visual items are
collected on a whole-suite run (`pytest` with no paths) or with `--visual`; ids read
`index[desktop-dark]::note-box/memory-usage-2`, so `-k`, `--lf` and xdist select naturally.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pytest

from .core.config import Config, Tolerance
from .core.errors import ThemeError
from .core.status import Status
from .review.runs.suite import Options, VisualRun, parse_shard

if TYPE_CHECKING:  # numpy and Playwright load only for visual checks
    from collections.abc import Callable, Sequence

    from _pytest._code.code import TerminalRepr, TracebackStyle

    from .capture.model import Capture, Failure, Region
    from .capture.naming import Variant
    from .capture.picture import Snapshotable
    from .check.inputs import Unchanged
    from .check.pipeline import Checked

STATUS_PROP = "theme_status"
RESULT_PROP = "theme_result"
KEY_PROP = "theme_key"
SHARED_INPUT = "theme_shared_renders"  # workerinput key: the folder of renders the workers share
_RUN = pytest.StashKey[VisualRun]()


# ---------------------------------------------------------------- options


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("theme", "visual snapshot checks (theme)")
    group.addoption(
        "--update-snapshots", nargs="?", const="changed", default="none",
        choices=("none", "missing", "changed", "all"), metavar="missing|changed|all",
        help="write baselines: 'missing' creates absent ones, 'changed' (the default when the flag "
             "has no value) also rewrites differing ones, 'all' rewrites every baseline",
    )
    group.addoption("--snapshot-warn-unused", action="store_true",
                    help="report unused baselines as a warning instead of failing the session")
    group.addoption("--prune-snapshots", action="store_true",
                    help="with --update-snapshots: delete baselines no collected check uses")
    group.addoption("--allow-ci-update", action="store_true",
                    help="allow --update-snapshots when CI=true (for the job that regenerates baselines)")
    group.addoption("--visual-report", metavar="DIR", default=None,
                    help="write the review report (HTML, JSON, Markdown) to DIR (default: [tool.theme.visual] report)")
    group.addoption("--visual-only", action="store_true", default=False,
                    help="run only the [tool.theme.visual] checks")
    group.addoption("--visual-shard", metavar="i/n", default=None,
                    help="run shard i of n of the visual checks, balanced by image area "
                         "(merge with theme report merge)")
    group.addoption("--visual", action="store_true", default=False,
                    help="collect the [tool.theme.visual] checks even when test paths are given")
    group.addoption("--no-visual", action="store_true", default=False,
                    help="do not collect the [tool.theme.visual] checks")
    group.addoption("--rerender", action="store_true", default=False,
                    help="render every variant, also those whose inputs did not change since their "
                         "baselines were written (skip_unchanged in [tool.theme.visual])")


# ---------------------------------------------------------------- the run


def _run(config: pytest.Config) -> VisualRun:
    return config.stash[_RUN]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "visual: a visual snapshot check collected from [tool.theme.visual]")
    config.stash[_RUN] = visual_run = VisualRun(_load_project(config), config.rootpath, _options(config))
    shared = getattr(config, "workerinput", {}).get(SHARED_INPUT)
    if shared is not None:  # an xdist worker: each variant rendered once, by one worker
        from .review.runs.sharing import SharedRenders

        visual_run.shared = SharedRenders(Path(shared))
    config.pluginmanager.register(_Results(visual_run), "theme-results")


def _options(config: pytest.Config) -> Options:
    """The run's options from pytest's command line (and CI from the environment)."""
    shard = config.getoption("visual_shard")
    if shard:
        try:
            parse_shard(shard)
        except ValueError as err:
            raise pytest.UsageError(str(err)) from None
    report = config.getoption("visual_report")
    return Options(update=config.getoption("update_snapshots"), warn_unused=config.getoption("snapshot_warn_unused"),
                   prune=config.getoption("prune_snapshots"), allow_ci_update=config.getoption("allow_ci_update"),
                   report=Path(report) if report else None, shard=shard,
                   ci=os.environ.get("CI", "").lower() in ("1", "true", "yes"), rerender=config.getoption("rerender"))


def _load_project(config: pytest.Config) -> Config | None:
    from .core import config as config_mod

    try:
        return config_mod.load(cwd=config.rootpath)
    except ThemeError:
        return None  # not a theme project: the fixture still works, nothing is collected


# ---------------------------------------------------------------- collection


def _wants_visual(config: pytest.Config) -> bool:
    if config.getoption("no_visual"):
        return False
    if config.getoption("visual") or config.getoption("visual_only"):
        return True
    return config.args_source is not pytest.Config.ArgsSource.ARGS


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Append one item per page variant x (page image + each region) before -k/--lf filter them.

    The regions are those the capture finds; with --collect-only nothing is rendered:
    the items are the manifest's baselines plus one per variant for regions not yet known."""
    visual_run = _run(config)
    if visual_run.visual is None or not _wants_visual(config):
        return
    if config.getoption("visual_only"):
        items.clear()  # not a deselection: the run is still complete for unused detection
    mine = _selectable(config, visual_run.variants())
    if config.option.collectonly:
        items.extend(item for v in mine for item in _collected(session, _collector(session, v, None)))
        return
    try:
        for shot in visual_run.captures(mine):
            items.extend(_collected(session, _collector(session, shot.variant, shot)))
    except ThemeError as err:
        # One failing item that says what is wrong; the rest of the suite still runs.
        setup = VisualSetupItem.from_parent(session, name="theme-visual-setup", error=str(err),
                                            nodeid="theme-visual-setup")
        items.append(setup)
        _count(session, setup, [setup])
        visual_run.mark_partial("the visual checks could not start")
    finally:
        visual_run.close_browser()  # every variant is on disk now; tests that drive their own Playwright may run


def _selectable(config: pytest.Config, variants: list[Variant]) -> list[Variant]:
    """The variants `-k` can select an item of, whatever their regions turn out to be named:
    `-k "not state"` selects no item of a reader state's variant (each is named
    `index[desktop-light]::state/NAME/…`), so that variant is not rendered at all. pytest's
    own deselection still decides each item of the variants that are rendered."""
    expr = config.getoption("keyword", "").strip()
    if not expr:
        return variants
    from _pytest.mark.expression import Expression

    try:
        compiled = Expression.compile(expr)
    except SyntaxError:
        return variants  # pytest says what is wrong with it
    # What every item of a variant is named by (KeywordMatcher.from_item), lower-cased; the
    # rest of an item's name (its region, "page") is not known before the render.
    return [v for v in variants
            if _satisfiable(compiled, (f"{v.page_name}[{v.id}]".lower(), v.prefix.lower(), "visual"), {})]


def _satisfiable(expr: Any, known: tuple[str, ...], fixed: dict[str, bool], depth: int = 0) -> bool:
    """Whether `expr` is true for some item whose names hold `known`: a word found in them
    matches; any other word may or may not (a region's name), and each is tried both ways."""
    unknown: list[str] = []

    def match(word: str, /, **_: object) -> bool:
        word = word.lower()
        if any(word in name for name in known):
            return True
        if word not in fixed and not unknown:
            unknown.append(word)
        return fixed.get(word, False)

    if expr.evaluate(match):
        return True
    if not unknown:
        return False
    if depth >= 12:  # an expression of that many words: render it, pytest deselects its items
        return True
    word = unknown[0]
    return any(_satisfiable(expr, known, {**fixed, word: value}, depth + 1) for value in (True, False))


def _collected(session: pytest.Session, collector: "VariantCollector") -> list[VisualItem]:
    """The collector's items, reported like any collected node, so that pytest's
    "collected N items" counts them (they are made after pytest's own collection)."""
    items = collector.collect()
    _count(session, collector, items)
    return items


def _count(session: pytest.Session, node: pytest.Collector | pytest.Item, items: Sequence[pytest.Item]) -> None:
    result: list[pytest.Item | pytest.Collector] = list(items)
    report = pytest.CollectReport(node.nodeid, "passed", None, result)
    session.ihook.pytest_collectreport(report=report)


def _collector(session: pytest.Session, variant: Variant,
               shot: Capture | Failure | Unchanged | None) -> "VariantCollector":
    name = f"{variant.page_name}[{variant.id}]"
    project, _ = _run(session.config).configured()
    return VariantCollector.from_parent(session, name=name, path=project.source,
                                        nodeid=name, variant=variant, shot=shot)


def pytest_deselected(items: list[pytest.Item]) -> None:
    for item in items:
        _run(item.config).mark_partial("deselected items")
        if isinstance(item, VisualItem):
            _run(item.config).unprepare(item.key)  # a page not checked: its encode is not needed


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    config, visual_run = session.config, _run(session.config)
    for option, flag in (("keyword", "-k"), ("markexpr", "-m"), ("lf", "--lf")):
        if config.getoption(option, False):
            visual_run.mark_partial(flag)
    visual_run.collected = {i.key for i in session.items if isinstance(i, VisualItem)}
    _refusals_said_once(session.items)


def _refusals_said_once(items: Sequence[pytest.Item]) -> None:
    """Each page's blocked resources named in full by the first of its refused variants that
    is still selected: `-k dark` may deselect the variant that named them at render time, and
    the others only point at it. The same order in every pytest-xdist worker, as at render."""
    from .capture.resources import PerPage

    said = PerPage()
    for item in items:
        if isinstance(item, FailedRenderItem) and item.failure.refusal is not None:
            item.failure = dataclasses.replace(item.failure, message=said.message(item.failure.refusal))


class VariantCollector(pytest.Collector):
    """One rendered page variant; captured once, shared by its page and region items.

    `shot` is the variant's capture (theme.capture.Capture, pixels memory-mapped),
    or None under --collect-only: then the items come from the manifest; or
    theme.check.inputs.Unchanged: its baselines stand for a render of the same inputs."""

    # **kwargs: pytest's node arguments (name, nodeid, path), as from_parent passes them
    def __init__(self, *, variant: Variant, shot: Capture | Failure | Unchanged | None, **kwargs: Any):
        super().__init__(**kwargs)
        self.variant, self.shot = variant, shot

    def collect(self) -> list[VisualItem]:
        from .capture.model import Failure
        from .check import pipeline
        from .check.inputs import Unchanged

        visual_run = _run(self.config)
        _, visual = visual_run.configured()
        folder = self.variant.folder.as_posix()
        items: list[VisualItem]
        if isinstance(self.shot, Failure):
            # One item fails for the variant, named like its page check; its baselines
            # are left alone (not checked, not unused, never written).
            full = visual.full_page and not self.variant.state
            items = [FailedRenderItem.from_parent(self, name=self.variant.prefix + ("page" if full else "render"),
                                                  key=f"{folder}/{'page.png' if full else 'render'}",
                                                  failure=self.shot)]
        elif isinstance(self.shot, Unchanged):
            prefix = self.variant.prefix  # a reader state's items are named under state/NAME/, rendered or not
            items = [UnchangedItem.from_parent(self, name=prefix + ("page" if rel == "page.png" else rel[:-4]),
                                               key=f"{folder}/{rel}", region=None) for rel in self.shot.keys]
        elif self.shot is None:
            prefix = self.variant.prefix
            items = [VisualItem.from_parent(self, name=prefix + ("page" if rel == "page.png" else rel[:-len(".png")]),
                                            key=f"{folder}/{rel}", region=None)
                     for rel in visual_run.listed(folder)]
            items.append(VisualItem.from_parent(self, name=prefix + "new-regions", key=f"{folder}/", region=None))
        else:
            items = [VisualItem.from_parent(
                self, name=self.variant.prefix + ("page" if region is None else f"{region.key}/{region.name}"),
                key=f"{folder}/{'page.png' if region is None else region.path.as_posix()}", region=region)
                for region in pipeline.checks_of(self.shot, visual)]
        for item in items:
            item.add_marker("visual")
        return items


class VisualSetupItem(pytest.Item):
    """Stands for the visual checks when they could not even be collected (no browser, bad page)."""

    def __init__(self, *, error: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        raise VisualMismatch(f"visual checks could not start: {self.error}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: TracebackStyle | None = None) -> str | TerminalRepr:
        return str(excinfo.value)

    def reportinfo(self) -> tuple[os.PathLike[str] | str, int | None, str]:
        return self.path, None, self.name


class VisualMismatch(AssertionError):
    """Raised by a visual item; its message is the whole report for that image."""


class VisualItem(pytest.Item):
    def __init__(self, *, key: str, region: Region | None, **kwargs: Any):
        super().__init__(**kwargs)
        self.key = key
        self.region = region
        self.user_properties.append((KEY_PROP, key))

    def runtest(self) -> None:
        from .capture.model import Capture

        visual_run, collector = _run(self.config), self.parent
        if not isinstance(collector, VariantCollector) or not isinstance(collector.shot, Capture):
            raise VisualMismatch(f"{self.key}: not captured (collected with --collect-only)")
        visual_run.begin_writes()  # recorded after the variant's last item (pytest_runtest_teardown)
        _record(self, visual_run.checked(collector.shot, self.region))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: TracebackStyle | None = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, VisualMismatch):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[os.PathLike[str] | str, int | None, str]:
        return self.path, None, self.nodeid


class FailedRenderItem(VisualItem):
    """A variant whose render could not be trusted or taken (theme.capture.Failure): it
    fails with the one-line reason, and the report shows the image that says why."""

    def __init__(self, *, failure: Failure, **kwargs: Any):
        super().__init__(region=None, **kwargs)
        self.failure = failure

    def runtest(self) -> None:
        from .check.entry import Entry

        v = self.failure.variant
        # "band", not "actual": what shows why is never a candidate baseline (theme accept).
        # The report shows one band per entry: a failure has one image (NotWhole's blank band).
        names = sorted(self.failure.saved)
        images = {"band": self.failure.saved[names[0]]} if names else {}
        entry = Entry(key=self.key, status=Status.FAILED, message=self.failure.message, page=v.page_name,
                      viewport=v.viewport, scheme=v.scheme, images=images)
        self.user_properties.append((STATUS_PROP, Status.FAILED.value))
        self.user_properties.append((RESULT_PROP, json.dumps(dataclasses.asdict(entry), sort_keys=True)))
        raise VisualMismatch(self.failure.message)


class UnchangedItem(VisualItem):
    """An image of a variant that was not rendered (theme.check.inputs): its inputs and its
    baselines are those of the render that wrote them, so it matches without a look."""

    def runtest(self) -> None:
        from .check.entry import Entry
        from .check.inputs import MESSAGE

        assert isinstance(self.parent, VariantCollector)  # made only by VariantCollector.collect()
        v = self.parent.variant
        entry = Entry(key=self.key, status=Status.MATCHED, message=f"{self.key}: {MESSAGE}", unchanged=True,
                      page=v.page_name, viewport=v.viewport, scheme=v.scheme)
        self.user_properties.append((STATUS_PROP, Status.MATCHED.value))
        self.user_properties.append((RESULT_PROP, json.dumps(dataclasses.asdict(entry), sort_keys=True)))


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """After a variant's last item, record the baselines its items wrote (theme/review/runs/suite.py
    VisualRun.end_writes): one manifest write a variant; pytest_sessionfinish records the
    rest of an interrupted run."""
    if isinstance(item, VisualItem) and (nextitem is None or nextitem.parent is not item.parent):
        _run(item.config).end_writes()


def _record(item: pytest.Item, checked: Checked) -> None:
    """Put the outcome on the report (it crosses xdist), then fail the item if it failed."""
    result, entry = checked.result, checked.entry
    item.user_properties.append((STATUS_PROP, result.status.value))
    if result.diff is not None:
        item.user_properties.append(("theme_diff_pixels", result.diff.diff_pixels))
    item.user_properties.append((RESULT_PROP, json.dumps(dataclasses.asdict(entry), sort_keys=True)))
    if not result.ok:
        raise VisualMismatch(entry.message)


# ---------------------------------------------------------------- fixture


@pytest.fixture
def assert_snapshot(request: pytest.FixtureRequest) -> Callable[..., None]:
    """`assert_snapshot(image_or_page_or_locator, name, **tolerances)` in a hand-written test.

    `name` is a path under the snapshots folder (".png" added when missing), e.g.
    "components/note-box-wide". Tolerance keywords are those of `[tool.theme.visual]`:
    threshold, include_aa, max_diff_pixels, max_diff_ratio.
    """
    visual_run = _run(request.config)

    def assert_snapshot(target: Snapshotable, name: str, **tolerances: float) -> None:
        import numpy as np

        from .capture.picture import image_of

        image, fingerprint = image_of(target)
        ctx = visual_run.context(fingerprint)
        key = name if name.endswith(".png") else f"{name}.png"
        base = visual_run.visual.tolerance if visual_run.visual else Tolerance()
        try:
            tolerance = Tolerance(**{**vars(base), **tolerances})
        except TypeError:
            raise TypeError(f"assert_snapshot: unknown tolerance in {sorted(tolerances)}; "
                            f"known: {sorted(vars(base))}") from None
        from .check.entry import Entry
        from .check.pipeline import Checked
        from .check.verdict import check

        result = check(ctx, key, np.ascontiguousarray(image), tolerance)
        _record(request.node, Checked(result, Entry.from_check(result)))

    return assert_snapshot


# ---------------------------------------------------------------- results


class _Results:
    """Gathers outcomes as reports arrive (in the xdist controller too: reports carry
    user_properties across). Registered per session, so no state outlives it."""

    def __init__(self, visual_run: VisualRun):
        self.visual_run = visual_run

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        if report.when != "call" or STATUS_PROP not in props:
            return
        entry = json.loads(str(props[RESULT_PROP])) if RESULT_PROP in props else {}
        key = entry.get("key") or props.get(KEY_PROP) or report.nodeid
        self.visual_run.record(str(key), str(props[STATUS_PROP]), entry)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    visual_run = _run(session.config)
    visual_run.close()
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller decides about unused baselines
        workeroutput["theme"] = visual_run.worker_output()
    elif visual_run.finish():
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if workeroutput is None:
        _compact_failures(session.config)


# Visual failures past which each one's FAILURES block is cut to its first line and its why:
# one change can fail hundreds of images, and the groups by cause (theme snapshots) say it
# in at most 25 lines. -v keeps every block whole.
COMPACT_AFTER = 10


def _compact_failures(config: pytest.Config) -> None:
    """Cut each visual failure's block (theme/check/causes.py groups them) when many failed.
    Runs on the process that prints (the xdist controller too), before the FAILURES section."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or config.get_verbosity() > 0:
        return
    visual = [r for r in reporter.stats.get("failed", [])
              if isinstance(r, pytest.TestReport) and any(name == KEY_PROP for name, _ in r.user_properties)]
    if len(visual) <= COMPACT_AFTER:
        return
    for report in visual:
        report.longrepr = compact_block(str(report.longrepr))
    _run(config).notes.append(f"{len(visual)} visual failures: each FAILURES block shows its first line and "
                              "why; -v shows them whole, the review report everything")


def compact_block(text: str) -> str:
    """A failure's first line and the line that says why (or the first `in:`), no more; a
    render refused for what did not load keeps its list and what to do (resources.Refusal:
    a run says each page's list once, so it is the only place the list is)."""
    from .capture.resources import FIX, ITEM, OR

    lines = text.splitlines()
    listed = [line for line in lines[1:] if line.startswith((ITEM, FIX, OR))]
    if listed:
        return "\n".join([lines[0], *listed])
    why = next((line for line in lines if line.strip().startswith(("why:", "in:"))), "")
    return "\n".join(line for line in (lines[0] if lines else "", why) if line)


class _Worker(Protocol):
    """What the xdist controller's hook reads of a finished worker (xdist's WorkerController;
    `workeroutput` is there once the worker sent it)."""

    config: pytest.Config


class _Starting(Protocol):
    """What the xdist controller's hook gives of a worker it starts (`workerinput` goes to it)."""

    config: pytest.Config
    workerinput: dict[str, Any]


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: _Starting) -> None:
    """xdist controller: give every worker the one folder their renders are shared in."""
    node.workerinput[SHARED_INPUT] = _run(node.config).shared_folder()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: _Worker, error: object) -> None:
    """xdist controller: gather what each worker collected."""
    out = getattr(node, "workeroutput", {}).get("theme")
    if out is not None:
        _run(node.config).merge(out)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    lines = _run(config).summary()
    if lines:
        terminalreporter.section("theme snapshots", sep="-")
    for line, colour in lines:
        terminalreporter.write_line(line, **colour)


__all__ = ["UnchangedItem", "VariantCollector", "VisualItem", "VisualMismatch", "assert_snapshot"]
