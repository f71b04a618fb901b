"""pytest plugin: visual checks collected from `[tool.theme.visual]`, and the `assert_snapshot` fixture.

Thin over the library: collection asks `theme.capture` for the variants and
regions, each item calls `theme.compare.check` once, and the terminal summary
is a pure function of the statuses the items reported. Run state lives in one
small dataclass kept in `config.stash`.

When are visual items collected? On a whole-suite run (`pytest` with no paths)
or with `--visual`; never when you ask for a single test file, so
`pytest tests/unit/test_x.py` stays fast. `--no-visual` turns them off.

Item ids read `index[desktop-dark]::note-box/memory-usage-2`, so `-k note-box`,
`-k desktop-dark` and `--lf` select naturally.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from . import __version__
from .config import Config, Tolerance, VisualConfig
from .errors import ThemeError
from .status import Status

STATUS_PROP = "theme_status"
RESULT_PROP = "theme_result"
KEY_PROP = "theme_key"


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
                    help="run shard i of n of the visual checks, balanced by image area (merge with theme report merge)")
    group.addoption("--visual", action="store_true", default=False,
                    help="collect the [tool.theme.visual] checks even when test paths are given")
    group.addoption("--no-visual", action="store_true", default=False,
                    help="do not collect the [tool.theme.visual] checks")


# ---------------------------------------------------------------- run state


@dataclass
class RunState:
    """Everything one pytest session knows about visual checks."""

    project: Config | None
    ctx: Any = None  # theme.compare.CheckContext, made on first use
    capture_session: Any = None  # theme.capture.Session, started lazily
    cache_dir: Path | None = None
    collected_keys: set[str] = field(default_factory=set)  # after deselection
    pages: set[str] = field(default_factory=set)  # page folders the config owns
    partial: bool = False  # -k, -m, --lf, deselection: unused detection is off
    statuses: dict[str, str] = field(default_factory=dict)  # key -> status, from reports
    aborted: dict[str, list[str]] = field(default_factory=dict)  # variant id -> external URLs
    entries: dict[str, dict] = field(default_factory=dict)  # key -> theme.report.Entry fields
    worker_outputs: list[dict] = field(default_factory=list)
    report_path: Path | None = None
    environment: dict = field(default_factory=dict)  # a capture's fingerprint, fonts included

    @property
    def visual(self) -> VisualConfig | None:
        return self.project.visual if self.project else None


_STATE = pytest.StashKey[RunState]()


def _state(config: pytest.Config) -> RunState:
    return config.stash[_STATE]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "visual: a visual snapshot check collected from [tool.theme.visual]")
    config.stash[_STATE] = state = RunState(project=_load_project(config))
    config.pluginmanager.register(_Results(state), "theme-results")


def _load_project(config: pytest.Config) -> Config | None:
    from . import config as config_mod

    try:
        return config_mod.load(cwd=config.rootpath)
    except ThemeError:
        return None  # not a theme project: the fixture still works, nothing is collected


def _check_context(config: pytest.Config, state: RunState, fingerprint: dict):
    # Imported here, not at module level: pytest loads this plugin in every run,
    # and a plain `pytest tests/unit` should not pay for numpy and Pillow.
    from .compare import CheckContext, Update
    from .store import Store

    if state.ctx is None:
        visual = state.visual
        snapshots = visual.snapshots if visual else config.rootpath / "snapshots"
        artifacts = visual.artifacts if visual else config.rootpath / ".theme-artifacts"
        state.ctx = CheckContext(
            store=Store(snapshots),
            artifacts_dir=artifacts,
            fingerprint=fingerprint,
            update=Update(config.getoption("update_snapshots")),
            ci=os.environ.get("CI", "").lower() in ("1", "true", "yes"),
            allow_ci_update=config.getoption("allow_ci_update"),
        )
    return state.ctx


# ---------------------------------------------------------------- collection


def _wants_visual(config: pytest.Config) -> bool:
    if config.getoption("no_visual"):
        return False
    if config.getoption("visual") or config.getoption("visual_only"):
        return True
    return config.args_source is not pytest.Config.ArgsSource.ARGS


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    """Append one item per page variant x (page image + each region) before -k/--lf filter them.

    The regions are those the capture finds; with --collect-only nothing is
    rendered: the items are the baselines the manifest lists, plus one per variant
    standing for regions that have no baseline yet."""
    state = _state(config)
    if state.visual is None or not _wants_visual(config):
        return
    from . import capture

    if config.getoption("visual_only"):
        items.clear()  # not a deselection: the run is still complete for unused detection
    all_variants = capture.variants(state.visual)
    state.pages.update(v.page_name for v in all_variants)
    mine = _shard(config, state, all_variants)
    if config.option.collectonly:
        for variant in mine:
            items.extend(_collector(session, variant, None).collect())
        return
    try:
        for shot in _capture_all(config, state, mine):
            items.extend(_collector(session, shot.variant, shot).collect())
    except ThemeError as err:
        # One failing item that says what is wrong; the rest of the suite still runs.
        items.append(VisualSetupItem.from_parent(session, name="theme-visual-setup", error=str(err),
                                                 nodeid="theme-visual-setup"))
        state.partial = True
    finally:
        _close_browser(state)  # every variant is on disk now; tests that drive their own Playwright may run


def _collector(session: pytest.Session, variant, shot) -> "VariantCollector":
    name = f"{variant.page_name}[{variant.id}]"
    return VariantCollector.from_parent(session, name=name, path=_state(session.config).project.source,
                                        nodeid=name, variant=variant, shot=shot)


def parse_shard(text: str) -> tuple[int, int]:
    """`i/n` with 1 <= i <= n, as given to --visual-shard."""
    try:
        i, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise pytest.UsageError(f"--visual-shard {text!r}: expected i/n, e.g. 1/2") from None
    if not 1 <= i <= n:
        raise pytest.UsageError(f"--visual-shard {text!r}: i must be between 1 and n")
    return i, n


def balance(weights: list[float], n: int) -> list[int]:
    """Shard index (0-based) for each weight: longest-processing-time-first greedy, deterministic.

    LPT puts each job, largest first, on the least loaded machine; it is within
    4/3 of the optimal makespan (Graham 1969) and needs no search. Ties break by
    position, so every machine computes the same assignment.
    """
    loads = [0.0] * n
    out = [0] * len(weights)
    for index in sorted(range(len(weights)), key=lambda k: (-weights[k], k)):
        target = min(range(n), key=lambda s: (loads[s], s))
        out[index] = target
        loads[target] += weights[index]
    return out


def _shard(config: pytest.Config, state: RunState, variants: list) -> list:
    """This machine's share of the variants, balanced by image area.

    The area of each variant's page image is read from the manifest's record of
    its committed page.png, so balancing costs no rendering; a variant with no
    baseline yet counts as its viewport's area times the median page length.
    """
    text = config.getoption("visual_shard")
    if not text:
        return variants
    i, n = parse_shard(text)
    state.partial = True  # unused baselines are judged on the merged report only
    from .store import Store

    sizes = Store(state.visual.snapshots).read_manifest()["baselines"]
    known = {v: sizes.get(f"{v.folder.as_posix()}/page.png", {}).get("size") for v in variants}
    lengths = sorted(s[1] / max(v.height, 1) for v, s in known.items() if s) or [1.0]
    median = lengths[len(lengths) // 2]
    weights = [float(s[0] * s[1]) if s else v.width * v.height * median for v, s in known.items()]
    return [v for v, shard in zip(variants, balance(weights, n)) if shard == i - 1]


def pytest_deselected(items: list) -> None:
    for item in items:
        _state(item.config).partial = True


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    state = _state(session.config)
    config = session.config
    if config.getoption("keyword") or config.getoption("markexpr") or config.getoption("lf", False):
        state.partial = True
    state.collected_keys = {i.key for i in session.items if isinstance(i, VisualItem)}


class VariantCollector(pytest.Collector):
    """One rendered page variant; captured once, shared by its page and region items.

    `shot` is the variant's capture (theme.capture.Capture, pixels memory-mapped),
    or None under --collect-only: then the items come from the manifest."""

    def __init__(self, *, variant, shot, **kwargs):
        super().__init__(**kwargs)
        self.variant, self.shot = variant, shot

    def collect(self):
        from . import run

        visual = _state(self.config).visual
        folder = self.variant.folder.as_posix()
        if self.shot is None:
            items = [VisualItem.from_parent(self, name=rel[:-len(".png")] if rel != "page.png" else "page",
                                            key=f"{folder}/{rel}", region=None)
                     for rel in _listed(self.config, folder, visual)]
            items.append(VisualItem.from_parent(self, name="new-regions", key=f"{folder}/", region=None))
        else:
            items = [VisualItem.from_parent(
                self, name="page" if region is None else f"{region.key}/{region.name}",
                key=f"{folder}/{'page.png' if region is None else region.path.as_posix()}", region=region)
                for region in run.checks_of(self.shot, visual)]
        for item in items:
            item.add_marker("visual")
        return items


def _listed(config: pytest.Config, folder: str, visual: VisualConfig) -> list[str]:
    """The baselines the manifest lists for a variant folder, page first (no browser needed)."""
    from .store import Store

    rels = sorted(Store(visual.snapshots).sizes(folder))
    return ["page.png"] * ("page" in rels and visual.full_page) + [f"{r}.png" for r in rels if r != "page"]


def _capture_all(config: pytest.Config, state: RunState, variants: list):
    """Capture each variant once per session (theme.run: overlapped, pixels parked in a
    memory-mapped file until used, sub-pixel moves re-rendered against the baselines)."""
    from . import capture, run

    if not variants:
        return
    if state.capture_session is None:
        state.capture_session = capture.Session(state.visual, source=state.project.source).__enter__()
    if state.cache_dir is None:
        state.cache_dir = Path(tempfile.mkdtemp(prefix="theme-captures-"))
        _check_context(config, state, dict(state.capture_session.fingerprint))
    for shot in run.capture(state.capture_session, variants, spill_to=state.cache_dir, expected=state.ctx.store):
        state.environment = state.environment or dict(shot.fingerprint)
        if shot.aborted:
            state.aborted[f"{shot.variant.page_name}[{shot.variant.id}]"] = list(shot.aborted)
        yield shot


class VisualSetupItem(pytest.Item):
    """Stands for the visual checks when they could not even be collected (no browser, bad page)."""

    def __init__(self, *, error: str, **kwargs):
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        raise VisualMismatch(f"visual checks could not start: {self.error}")

    def repr_failure(self, excinfo, style=None):
        return str(excinfo.value)

    def reportinfo(self):
        return self.path, None, self.name


class VisualMismatch(AssertionError):
    """Raised by a visual item; its message is the whole report for that image."""


class VisualItem(pytest.Item):
    def __init__(self, *, key: str, region, **kwargs):
        super().__init__(**kwargs)
        self.key = key
        self.region = region
        self.user_properties.append((KEY_PROP, key))

    def runtest(self) -> None:
        from . import run

        state, shot = _state(self.config), self.parent.shot
        ctx = dataclasses.replace(state.ctx, fingerprint=shot.fingerprint)
        _record(self, run.check_image(ctx, state.visual, shot, self.region))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, VisualMismatch):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, self.nodeid


def _record(item: pytest.Item, checked) -> None:
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
def assert_snapshot(request: pytest.FixtureRequest):
    """`assert_snapshot(image_or_page_or_locator, name, **tolerances)` in a hand-written test.

    `name` is a path under the snapshots folder (".png" added when missing), e.g.
    "components/note-box-wide". Tolerance keywords are those of `[tool.theme.visual]`:
    threshold, include_aa, max_diff_pixels, max_diff_ratio.
    """
    config = request.config
    state = _state(config)

    def assert_snapshot(target: Any, name: str, **tolerances: Any) -> None:
        import numpy as np

        image, fingerprint = _image_of(target)
        ctx = _check_context(config, state, fingerprint)
        key = name if name.endswith(".png") else f"{name}.png"
        base = state.visual.tolerance if state.visual else Tolerance()
        try:
            tolerance = Tolerance(**{**vars(base), **tolerances})
        except TypeError:
            raise TypeError(f"assert_snapshot: unknown tolerance in {sorted(tolerances)}; "
                            f"known: {sorted(vars(base))}") from None
        from .compare import check
        from .report import Entry
        from .run import Checked

        result = check(ctx, key, np.ascontiguousarray(image), tolerance)
        _record(request.node, Checked(result, Entry.from_check(result)))

    return assert_snapshot


def _image_of(target: Any):
    """An RGBA array and the environment it was made in, from an array, a Page or a Locator."""
    import numpy as np

    if isinstance(target, np.ndarray):
        if target.ndim != 3 or target.shape[2] != 4 or target.dtype != np.uint8:
            raise TypeError(f"assert_snapshot: expected an (H, W, 4) uint8 RGBA array, got "
                            f"{target.dtype} {target.shape}")
        return target, _plain_fingerprint()
    from . import capture

    page = target if hasattr(target, "goto") else target.page
    browser = page.context.browser
    fingerprint = {**_plain_fingerprint(),
                   "browser": {"name": browser.browser_type.name, "version": browser.version}}
    return capture.screenshot(target), fingerprint


def _plain_fingerprint() -> dict[str, Any]:
    """An in-memory image has no browser; record only what made it."""
    return {"platform": {"system": platform.system(), "machine": platform.machine()},
            "theme_version": __version__}


# ---------------------------------------------------------------- results


class _Results:
    """Gathers outcomes as reports arrive (in the xdist controller too: reports carry
    user_properties across). Registered per session, so no state outlives it."""

    def __init__(self, state: RunState):
        self.state = state

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        if report.when != "call" or STATUS_PROP not in props:
            return
        entry = json.loads(props[RESULT_PROP]) if RESULT_PROP in props else {}
        key = entry.get("key") or props.get(KEY_PROP) or report.nodeid
        self.state.statuses[key] = props[STATUS_PROP]
        if entry:
            self.state.entries[key] = entry


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = _state(session.config)
    _close_capture(state)
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller decides about unused baselines
        workeroutput["theme"] = {"keys": sorted(state.collected_keys), "pages": sorted(state.pages),
                                 "partial": state.partial, "aborted": state.aborted,
                                 "environment": state.environment}
        return
    for out in state.worker_outputs:
        state.collected_keys |= set(out["keys"])
        state.pages |= set(out["pages"])
        state.partial |= out["partial"]
        state.aborted.update(out["aborted"])
        state.environment = state.environment or out["environment"]
    unused = _unused(state)
    if unused and _prune(session.config, state):
        state.ctx.store.delete(unused)
        state.statuses.update({k: Status.PRUNED for k in unused})
    elif unused:
        state.statuses.update({k: Status.UNUSED for k in unused})
        if not session.config.getoption("snapshot_warn_unused"):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
    for key in unused:
        state.entries[key] = {"key": key, "status": str(state.statuses[key])}
    state.report_path = _write_report(session.config, state)


def _write_report(config: pytest.Config, state: RunState) -> Path | None:
    """The review folder, after every run with something to review (a failure, an update, unused)."""
    from . import report

    entries = tuple(report.Entry.from_json(e) for e in state.entries.values())
    drift = next((e.drift for e in entries if e.drift), None)
    env = state.environment or (dict(state.ctx.fingerprint) if state.ctx else {})
    rep = report.Report(entries, env, drift, collected=tuple(sorted(state.collected_keys)),
                        pages=tuple(sorted(state.pages)))
    explicit = config.getoption("visual_report")
    if not rep.needs_review() and not explicit:
        return None
    folder = explicit or (
        state.visual.report if state.visual else config.rootpath / "visual-report")
    index = report.write(Path(folder), rep)
    report.append_step_summary(rep)
    return index


def _close_browser(state: RunState) -> None:
    """Playwright's sync API allows one instance per thread: never keep ours past collection."""
    if state.capture_session is not None:
        state.capture_session.__exit__(None, None, None)
        state.capture_session = None


def _close_capture(state: RunState) -> None:
    _close_browser(state)
    if state.cache_dir is not None:
        shutil.rmtree(state.cache_dir, ignore_errors=True)
        state.cache_dir = None


def _unused(state: RunState) -> list[str]:
    """Baselines under the config's pages that no collected item matched, on complete runs only."""
    if state.visual is None or state.partial or not state.pages:
        return []
    from .store import Store

    store = state.ctx.store if state.ctx else Store(state.visual.snapshots)
    owned = {k for k in store.keys() if k.split("/", 1)[0] in state.pages}
    return sorted(owned - state.collected_keys)


def _prune(config: pytest.Config, state: RunState) -> bool:
    return (config.getoption("prune_snapshots") and state.ctx is not None
            and state.ctx.update.creates() and (not state.ctx.ci or state.ctx.allow_ci_update))


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """xdist controller: gather what each worker collected."""
    out = getattr(node, "workeroutput", {}).get("theme")
    if out is not None:
        _state(node.config).worker_outputs.append(out)


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    state = _state(config)
    if not state.statuses and not state.aborted:
        return
    tr = terminalreporter
    tr.section("theme snapshots", sep="-")
    for variant, urls in sorted(state.aborted.items()):
        for url in urls:
            tr.write_line(f"aborted external request in {variant}: {url}", yellow=True)
    counts = summarize(state.statuses)
    for key, status in sorted(state.statuses.items()):
        if status in (Status.CREATED, Status.UPDATED, Status.UNUSED, Status.PRUNED):
            tr.write_line(f"{status:>8}  {key}", **_colour(status))
    tr.write_line(_summary_line(counts), bold=True)
    if counts.get(Status.UNUSED) and state.visual:
        hint = ("--snapshot-warn-unused was given" if config.getoption("snapshot_warn_unused")
                else "remove them with pytest --update-snapshots --prune-snapshots")
        tr.write_line(f"{counts['unused']} unused baseline(s) in {state.visual.snapshots}: {hint}")
    if state.report_path is not None:
        tr.write_line(f"review report: {state.report_path}")
    if state.partial and state.visual is not None and state.collected_keys:
        tr.write_line("unused-baseline check skipped: partial run (-k, -m, --lf or deselection)")


def summarize(statuses: dict[str, str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for status in statuses.values():
        counts[status] = counts.get(status, 0) + 1
    return counts


def _summary_line(counts: dict[str, int]) -> str:
    order = (Status.MATCHED, Status.FAILED, Status.CREATED, Status.UPDATED, Status.UNUSED, Status.PRUNED)
    parts = [f"{counts.get(name, 0)} {name}" for name in order if counts.get(name) or name in order[:2]]
    return "theme: " + ", ".join(parts)


def _colour(status: str) -> dict[str, bool]:
    return {Status.CREATED: {"green": True}, Status.UPDATED: {"yellow": True}, Status.UNUSED: {"red": True},
            Status.PRUNED: {"yellow": True}}.get(status, {})
