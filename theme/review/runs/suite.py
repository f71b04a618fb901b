"""The visual checks of one pytest session, as one object the plugin's hooks hand off to:
which variants this machine captures, the capture itself (theme.check.pipeline), outcomes as reports
arrive, unused baselines, the review folder and the terminal summary."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import shutil
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator

from ...core.config import Config, VisualConfig
from ...core.errors import ConfigError, ThemeError
from ...core.status import Status, unused_baselines

if TYPE_CHECKING:  # imported when first used: numpy and Playwright load only for visual checks
    from ...capture.model import Capture, Failure, JsonObject, Region, Renderer
    from ...capture.naming import Variant
    from ...capture.resources import PerPage
    from ...check.inputs import Unchanged
    from ...check.pipeline import Checked
    from ...check.verdict import CheckContext, CheckResult
    from .sharing import SharedRenders

# pytest's terminal writer's markup keywords (green=True, bold=True, …) for a summary line.
Markup = dict[str, bool]


@dataclass(frozen=True)
class Options:
    """What the command line asked of the visual checks."""

    update: str = "none"  # --update-snapshots: none | missing | changed | all
    warn_unused: bool = False
    prune: bool = False
    allow_ci_update: bool = False
    report: Path | None = None  # --visual-report
    shard: str | None = None  # --visual-shard i/n
    ci: bool = False  # CI=true in the environment
    rerender: bool = False  # --rerender: render every variant, even those whose inputs did not change



class VisualRun:
    """Everything one pytest session knows about visual checks; gone with the session."""

    def __init__(self, project: Config | None, root: Path, options: Options):
        self.project, self.root, self.options = project, root, options
        self.ctx: CheckContext | None = None  # made on first use
        self._checker: ThreadPoolExecutor | None = None  # checks started at capture (_check_early)
        self._early: dict[str, Future[CheckResult]] = {}  # page key -> its verdict, started at capture
        self._tiles_kept = False  # whether configured() took the baselines' tile height (config.keep_tile_height)
        self._session: Renderer | None = None  # only while capturing
        self._cache: Path | None = None  # the session's spilled page images
        # Under pytest-xdist: the renders the workers share (theme.review.runs.sharing); the controller
        # makes the folder (shared_folder), each worker gets it (pytest_plugin.pytest_configure).
        self.shared: SharedRenders | None = None
        self._shared_folder: Path | None = None
        self.rendered: dict[str, list[str]] = {}  # xdist worker id -> the variant folders it rendered
        self.collected: set[str] = set()  # keys of the items left after deselection
        self.pages: set[str] = set()  # page folders the config owns
        # Why this run does not see every baseline (-k, a shard, …): unused detection is off.
        self.partial_reasons: set[str] = set()
        self.failed: dict[str, str] = {}  # variant folder -> why its render failed (not checked)
        self._refused: PerPage | None = None  # says each page's blocked resources once (captures)
        self.statuses: dict[str, Status] = {}  # key -> status, from reports
        self.entries: dict[str, JsonObject] = {}  # key -> theme.check.entry.Entry fields, as report.json has them
        self.aborted: dict[str, list[str]] = {}  # variant id -> external URLs
        self.environment: JsonObject = {}  # a capture's fingerprint, fonts included
        self.report_path: Path | None = None
        self.notes: list[str] = []  # said at the end: what happened to browser endpoints

    @property
    def partial(self) -> bool:
        return bool(self.partial_reasons)

    def mark_partial(self, why: str) -> None:
        self.partial_reasons.add(why)

    @property
    def visual(self) -> VisualConfig | None:
        return self.project.visual if self.project else None

    def configured(self) -> tuple[Config, VisualConfig]:
        """The project and its [tool.theme.visual] table: what collecting visual checks needs."""
        if self.project is None or self.project.visual is None:
            raise ConfigError(f"{self.root / 'pyproject.toml'}: no [tool.theme.visual] table; "
                              "add one to collect visual checks (see README)")
        visual = self.project.visual
        if not self._tiles_kept:  # once, before anything is captured: every variant alike
            from ...baselines.store import Store
            from ...core.config import keep_tile_height

            visual, note = keep_tile_height(visual, Store(visual.snapshots).recorded_tile_height())
            self.project, self._tiles_kept = dataclasses.replace(self.project, visual=visual), True
            self.notes += [note] if note else []
        return self.project, visual

    def context(self, fingerprint: JsonObject) -> CheckContext:
        """The check context of this run (made once; numpy and Pillow load only now)."""
        from ...baselines.store import Store
        from ...check.verdict import CheckContext, Update

        if self.ctx is None:
            visual = self.visual
            self.ctx = CheckContext.against_baselines(
                Store(visual.snapshots if visual else self.root / "snapshots"),
                visual.artifacts if visual else self.root / ".theme-artifacts", fingerprint,
                update=Update(self.options.update), ci=self.options.ci, allow_ci_update=self.options.allow_ci_update)
        return self.ctx

    # ------------------------------------------------------------ what to capture

    def variants(self) -> list[Variant]:
        """This machine's variants (all of them unless sharded); every page is owned either way."""
        from ... import capture

        every = capture.variants(self.configured()[1])
        self.pages.update(v.page_name for v in every)
        if not self.options.shard:
            return every
        i, n = parse_shard(self.options.shard)
        self.mark_partial(f"shard {i}/{n}")  # unused baselines are judged on the merged report only
        return [v for v, shard in zip(every, balance(self._areas(every), n), strict=True) if shard == i - 1]

    def _areas(self, variants: list[Variant]) -> list[float]:
        """Each variant's page image area, from the manifest's record of its committed page.png
        (no rendering); a variant with no baseline yet counts as its viewport times the median
        page length."""
        from ...baselines.store import Store

        sizes = Store(self.configured()[1].snapshots).read_manifest()["baselines"]
        known = [sizes.get(f"{v.folder.as_posix()}/page.png", {}).get("size") for v in variants]
        lengths = sorted(s[1] / max(v.height, 1) for v, s in zip(variants, known, strict=True) if s) or [1.0]
        median = lengths[len(lengths) // 2]
        return [float(s[0] * s[1]) if s else v.width * v.height * median for v, s in zip(variants, known, strict=True)]

    def listed(self, folder: str) -> list[str]:
        """A variant's baselines as the manifest lists them, page first (no browser needed)."""
        from ...baselines.store import Store

        visual = self.configured()[1]
        # page and <key>/<name>: a reader state's baselines (state/<name>/…) are its own variant's
        rels = sorted(r for r in Store(visual.snapshots).sizes(folder) if r.count("/") <= 1)
        page = ["page.png"] if "page" in rels and visual.full_page else []
        return page + [f"{r}.png" for r in rels if r != "page"]

    def captures(self, variants: list[Variant]) -> Iterator[Capture | Failure | Unchanged]:
        """Each variant captured once (theme.check.pipeline), pixels memory-mapped from this run's cache;
        first, as Unchanged, the variants whose inputs did not change (theme.check.inputs), not rendered."""
        from ... import capture
        from ...capture.model import Failure
        from ...check import pipeline

        if not variants:
            return
        from ...baselines.store import Store

        project, visual = self.configured()
        Store(visual.snapshots).check_lfs()  # one error before any browser starts
        if self._session is None:
            self._session = capture.open_session(visual, source=project.source).__enter__()
        session = self._session
        if self._cache is None:
            self._cache = Path(tempfile.mkdtemp(prefix="theme-captures-"))
        ctx = self.context(dict(session.fingerprint))
        skipped = self._unchanged(variants, session.fingerprint)
        for unchanged in skipped:
            if unchanged.aborted:
                self.aborted[f"{unchanged.variant.page_name}[{unchanged.variant.id}]"] = list(unchanged.aborted)
            yield unchanged
        todo = [v for v in variants if v not in {u.variant for u in skipped}]
        held = self._held(todo, session.fingerprint)
        duplicates = pipeline.Duplicates()
        for shot, own in self._rendered(session, todo, ctx):
            self.notes += shot.notes
            if isinstance(shot, Failure):
                if shot.refusal is not None:  # what did not load: each page's list said once
                    shot = dataclasses.replace(shot, message=self._refused_once().message(shot.refusal))
                self.failed[shot.variant.folder.as_posix()] = shot.message
                self.unprepare(f"{shot.variant.folder.as_posix()}/page.png")  # an encode a first render began
                yield shot
                continue
            shot.same_inputs = shot.variant in held
            if (same := duplicates.see(shot)) is not None:
                self.notes.append(same)
            self.environment = self.environment or dict(shot.fingerprint)
            if shot.aborted:
                self.aborted[f"{shot.variant.page_name}[{shot.variant.id}]"] = list(shot.aborted)
            if own:
                self._record_inputs(shot)
            yield shot
        self.notes += session.notes  # browser endpoints that refused or went away

    def _refused_once(self) -> PerPage:
        """The run's one PerPage: every worker sees every variant's render in the same order
        (_rendered), so each says the same variant carries a page's list."""
        from ...capture.resources import PerPage

        if self._refused is None:
            self._refused = PerPage()
        return self._refused

    def _rendered(self, session: Renderer, todo: list[Variant],
                  ctx: CheckContext) -> Iterator[tuple[Capture | Failure, bool]]:
        """(render, whether this process took it) of each variant of `todo`, in order: all taken
        here, or under pytest-xdist each by the worker that claimed it (theme.review.runs.sharing)."""
        from ...capture.model import Failure
        from ...check import pipeline

        if self.shared is None:
            for shot in pipeline.capture(session, todo, spill_to=self._cache, expected=ctx.expected, failures=True,
                                         captured=self._taken, reproduce=self._writes, mask_at=self._mask_at()):
                yield (self._saved(shot) if isinstance(shot, Failure) else shot), True
            return
        mine = set()
        for variant in todo:  # one at a time, so that the workers share the variants out
            if not self.shared.claim(variant):
                continue
            mine.add(variant)
            self.rendered.setdefault(os.environ.get("PYTEST_XDIST_WORKER", "worker"), []).append(
                variant.folder.as_posix())
            try:
                shot = next(iter(pipeline.capture(session, [variant], spill_to=self.shared.spill_folder(variant),
                                                  expected=ctx.expected, failures=True, reproduce=self._writes,
                                                  mask_at=self._mask_at())))
            except ThemeError as err:  # every worker's collection ends at this variant alike
                self.shared.publish_error(variant, str(err))
                break
            self.shared.publish(variant, self._saved(shot) if isinstance(shot, Failure) else shot)
        for variant in todo:
            yield self.shared.take(variant), variant in mine

    def _writes(self, shot: Capture) -> bool:
        """Whether this run would write a baseline of `shot` (an update whose page is not already,
        pixel for pixel, its baseline): then it is rendered twice before anything is written.
        A reader state's variant has no page image: it is its baseline when each image is."""
        ctx = self.ctx
        if ctx is None or not (ctx.policy.creates() and ctx.policy.may_write()):
            return False
        folder = shot.variant.folder.as_posix()
        if not shot.full_page:
            from ...pixels.images import pixels_sha256  # numpy: only on an update with reader states

            images = list(shot.images())
            return not images or not all(
                ctx.expected.has_pixels(f"{folder}/{path.as_posix()}", functools.partial(pixels_sha256, image))
                for path, image in images)
        key, pixels = f"{folder}/page.png", shot.pixels
        return pixels is None or not ctx.expected.has_pixels(key, lambda: pixels)

    def _mask_at(self) -> str:
        from ...capture.config_checks import config_position

        return config_position(self.configured()[0].source, "mask")

    def _saved(self, failure: Failure) -> Failure:
        """A failed variant with its images saved as PNGs in the artefacts folder, not held."""
        return dataclasses.replace(failure, images={}, saved=self._save(failure))

    def _held(self, todo: list[Variant], fingerprint: JsonObject) -> set[Variant]:
        """Of a check's variants rendered although their inputs did not change (--rerender,
        skip_unchanged = false), those whose record still holds: a difference of theirs is
        the page not holding still (causes.Cause.UNSTEADY). None on an update run."""
        from ...baselines.store import Store
        from ...check import inputs

        visual = self.configured()[1]
        skips = not self.options.rerender and visual.skip_unchanged  # then _unchanged took them all
        if self.options.update != "none" or skips or not todo:
            return set()
        return {u.variant for u in inputs.unchanged(Store(visual.snapshots), visual, todo, fingerprint)}

    def _unchanged(self, variants: list[Variant], fingerprint: JsonObject) -> list[Unchanged]:
        """The variants a check need not render (theme.check.inputs): none on an update run
        (it writes what the pages are now), with --rerender, or with skip_unchanged = false."""
        from ...baselines.store import Store
        from ...check import inputs

        visual = self.configured()[1]
        if self.options.update != "none" or self.options.rerender or not visual.skip_unchanged:
            return []
        return inputs.unchanged(Store(visual.snapshots), visual, variants, fingerprint)

    def _record_inputs(self, shot: Capture) -> None:
        """On a run that writes baselines, record what `shot`'s render depended on beside them
        (a later check skips it only while its baselines are exactly this render)."""
        from ...check import inputs

        policy = self.ctx.policy if self.ctx is not None else None
        if policy is None or policy.baselines is None or not (policy.creates() and policy.may_write()):
            return
        policy.baselines.record_inputs(shot.variant.folder.as_posix(), inputs.record(shot, self.configured()[1]))

    def _taken(self, shot: Capture) -> None:
        """A page just taken (pipeline.capture's `captured`), before the next variant's render and
        the realignment of regions: what needs only its page image starts now, beside them.
        Not under xdist (_rendered does not hand pages over then): another worker may check them."""
        self._prepare(shot)
        self._check_early(shot)

    def _prepare(self, shot: Capture) -> None:
        """On a run that writes baselines, start encoding the page image its check will write
        (theme/check/verdict.py prepare)."""
        from ...check import pipeline, verdict
        from ...pixels.resident import release

        ctx = self.ctx
        if ctx is None or shot.pixels is None or None not in pipeline.checks_of(shot, self.configured()[1]):
            return
        verdict.prepare(ctx, f"{shot.variant.folder.as_posix()}/page.png", shot.image, shot.pixels,
                        done=lambda: release(shot.image))

    def _check_early(self, shot: Capture) -> None:
        """On a run that writes nothing, start the verdict on a page image that will not match its
        baseline (its pixels are not the ones on record) in a worker thread: a failed page's
        decode, compare and review (~5 s for a 130 000 px page) use the core the browser leaves
        idle while the next variant renders. Its item takes it (checked): the same function,
        context and capture it would check with, so the same verdict and artefacts."""
        from ...check import pipeline

        ctx = self.ctx
        if (ctx is None or shot.pixels is None or ctx.policy.creates()
                or None not in pipeline.checks_of(shot, self.configured()[1])):
            return
        key, pixels = f"{shot.variant.folder.as_posix()}/page.png", shot.pixels
        if ctx.expected.has_pixels(key, lambda: pixels):
            return  # the common case: it matches without a decode; nothing to gain
        if self._checker is None:
            self._checker = ThreadPoolExecutor(1, thread_name_prefix="theme-check")
        self._early[key] = self._checker.submit(pipeline.page_verdict, self.check_context(shot),
                                                self.configured()[1], shot)

    def check_context(self, shot: Capture) -> CheckContext:
        """The context `shot`'s images are checked in: this run's, in its capture's environment."""
        return dataclasses.replace(self.context(shot.fingerprint), fingerprint=shot.fingerprint)

    def checked(self, shot: Capture, region: Region | None) -> Checked:
        """The check of one image of `shot`: the one _check_early() started, else made now."""
        from ...check import pipeline

        early = self._early.pop(f"{shot.variant.folder.as_posix()}/page.png", None) if region is None else None
        return pipeline.check_image(self.check_context(shot), self.configured()[1], shot, region,
                                    page=early.result() if early is not None else None)

    def unprepare(self, key: str) -> None:
        """Drop what _prepare() and _check_early() started for `key`, whose check will not run
        (deselected): an encode, or a check, whose artefacts would then be of no item."""
        if self.ctx is not None and self.ctx.policy.baselines is not None:
            self.ctx.policy.baselines.discard_prepared([key])
        self._drop_early([key])

    def _drop_early(self, keys: Iterable[str]) -> None:
        from ...check import verdict

        for key in keys:
            early = self._early.pop(key, None)
            if early is None or early.cancel():
                continue
            with contextlib.suppress(Exception):  # its item never ran: nothing reports its error
                early.result()
            if self.ctx is not None:
                verdict.clear_artifacts(self.ctx, key)

    def _save(self, failure: Failure) -> dict[str, str]:
        """A failed variant's images (a blank band) as PNGs in the artefacts folder; kind -> path."""
        from ...pixels import images

        folder = self.configured()[1].artifacts / failure.variant.folder
        out = {}
        for name, pixels in sorted(failure.images.items()):
            path = folder / f"{name}.png"
            images.write_png(path, pixels)
            out[name] = str(path)
        return out

    def close_browser(self) -> None:
        """Playwright's sync API allows one instance per thread: never keep ours past collection."""
        if self._session is not None:
            self._session.__exit__(None, None, None)
            self._session = None

    def shared_folder(self) -> str:
        """The xdist controller's folder of shared renders, made on the first worker's start and
        removed with the session, after every worker has stopped reading it."""
        if self._shared_folder is None:
            self._shared_folder = Path(tempfile.mkdtemp(prefix="theme-shared-renders-"))
        return str(self._shared_folder)

    def begin_writes(self) -> None:
        """On a run that writes baselines, collect their manifest entries and style records in
        memory (theme/baselines/store.py, Store.batch) until end_writes(): once a variant, not once an image."""
        policy = self.ctx.policy if self.ctx is not None else None
        if policy is not None and policy.baselines is not None and policy.creates() and policy.may_write():
            policy.baselines.begin()

    def end_writes(self) -> None:
        """Record what begin_writes() collected (after each variant's last item, and on closing:
        also after a failure or an interrupt, so files and manifest agree)."""
        store = self.ctx.policy.baselines if self.ctx is not None else None
        if store is not None:
            store.end()

    def close(self) -> None:
        try:
            self.end_writes()
        finally:
            if self.ctx is not None and self.ctx.policy.baselines is not None:
                self.ctx.policy.baselines.discard_prepared()
            self._drop_early(list(self._early))  # items that never ran (-x, an interrupt)
            if self._checker is not None:
                self._checker.shutdown(wait=True)
                self._checker = None
            self.close_browser()
            for folder in (self._cache, self._shared_folder):
                if folder is not None:
                    shutil.rmtree(folder, ignore_errors=True)
            self._cache = self._shared_folder = None

    # ------------------------------------------------------------ outcomes

    def record(self, key: str, status: str, entry: JsonObject) -> None:
        """A checked image's outcome, as a report carries it (across xdist: plain text)."""
        self.statuses[key] = Status(status)
        if entry:
            self.entries[key] = entry

    def worker_output(self) -> JsonObject:
        """What an xdist worker hands the controller, which decides about unused baselines."""
        return {"keys": sorted(self.collected), "pages": sorted(self.pages), "partial": sorted(self.partial_reasons),
                "failed": self.failed, "aborted": self.aborted, "environment": self.environment, "notes": self.notes,
                "rendered": self.rendered}

    def merge(self, out: JsonObject) -> None:
        self.collected |= set(out["keys"])
        self.pages |= set(out["pages"])
        self.partial_reasons |= set(out["partial"])
        self.failed.update(out.get("failed", {}))
        self.aborted.update(out["aborted"])
        self.environment = self.environment or out["environment"]
        self.notes += [n for n in out.get("notes", []) if n not in self.notes]
        self.rendered.update(out.get("rendered", {}))

    def finish(self) -> bool:
        """Judge unused baselines (prune them when asked) and write the review folder;
        True when unused baselines fail the session."""
        unused = self._unused()
        policy = self.ctx.policy if self.ctx is not None else None
        store = policy.baselines if policy is not None else None
        prune = (bool(unused) and self.options.prune and policy is not None and store is not None
                 and policy.creates() and policy.may_write())
        if prune and store is not None:
            store.delete(unused)
        status = Status.PRUNED if prune else Status.UNUSED
        for key in unused:
            self.record(key, status, {"key": key, "status": status.value})
        self.report_path = self._write_report()
        return bool(unused) and not prune and not self.options.warn_unused

    def _unused(self) -> list[str]:
        """Baselines under the config's pages that no collected item matched, on complete runs only."""
        if self.visual is None or self.partial or not self.pages:
            return []
        from ...baselines.store import Store

        store = (self.ctx.policy.baselines if self.ctx else None) or Store(self.visual.snapshots)
        return unused_baselines(store.keys(), self.pages, self.collected, self.failed)

    def _write_report(self) -> Path | None:
        """The review folder, after every run that checked images: "154 matched" is a report
        too, and a folder left from an earlier failing run would show failures that are gone.
        It is written beside the old one and swapped in, so no stale image survives."""
        from ...check.entry import Entry
        from .. import report

        entries = tuple(Entry.from_json(e) for e in self.entries.values())
        drift = next((e.drift for e in entries if e.drift), None)
        env = self.environment or (dict(self.ctx.fingerprint) if self.ctx else {})
        rep = report.Report(entries, env, drift, collected=tuple(sorted(self.collected)),
                            pages=tuple(sorted(self.pages)), unchecked=tuple(sorted(self.failed)))
        if not entries and not self.options.report:
            return None
        folder = Path(self.options.report or (self.visual.report if self.visual else self.root / "visual-report"))
        folder.parent.mkdir(parents=True, exist_ok=True)
        fresh = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
        try:
            report.write(fresh, rep)
            _swap_in(fresh, folder)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)
        report.append_step_summary(rep)
        return folder / "index.html"

    def summary(self) -> list[tuple[str, Markup]]:
        """The terminal summary: (line, colour keywords for pytest's writer)."""
        if not self.statuses and not self.aborted and not self.notes:
            return []
        lines: list[tuple[str, Markup]] = [(note, {"yellow": True}) for note in self.notes]
        lines += [(f"aborted external request in {variant}: {url}", {"yellow": True})
                 for variant, urls in sorted(self.aborted.items()) for url in urls]
        counts = summarize(self.statuses)
        skipped = sum(1 for e in self.entries.values() if e.get("unchanged"))
        lines += [(f"{status:>8}  {key}", _COLOUR[status]) for key, status in sorted(self.statuses.items())
                  if status in _COLOUR]
        lines += self._causes()
        lines.append((summary_line(counts, skipped), {"bold": True}))
        if counts.get(Status.UNUSED) and self.visual:
            hint = ("--snapshot-warn-unused was given" if self.options.warn_unused
                    else "remove them with pytest --update-snapshots --prune-snapshots")
            lines.append((f"{counts[Status.UNUSED]} unused baseline(s) in {self.visual.snapshots}: {hint}", {}))
        if self.rendered:  # under xdist: each variant is rendered once, by the worker that claimed it
            each = ", ".join(f"{worker}: {len(folders)}" for worker, folders in sorted(self.rendered.items()))
            total = sum(len(folders) for folders in self.rendered.values())
            workers = len(self.rendered)
            lines.append((f"rendered {total} variant(s) across {workers} pytest-xdist worker(s) ({each})", {}))
        if self.report_path is not None:
            lines.append((f"review report: {self.report_path}", {}))
        if self.failed:
            lines.append((f"{len(self.failed)} variant(s) not checked: their render failed "
                          f"({', '.join(sorted(self.failed))}); nothing was written for them", {"red": True}))
        if self.partial and self.visual is not None and self.collected:
            # -k and -m deselect items: the option is the reason worth saying.
            reasons = sorted(self.partial_reasons - ({"deselected items"} if len(self.partial_reasons) > 1 else set()))
            lines.append((f"unused-baseline check skipped: partial run ({', '.join(reasons)})", {}))
        return lines

    def _causes(self) -> list[tuple[str, Markup]]:
        """The failed images grouped by cause (theme/check/causes.py), in at most 25 lines
        however many failed (pytest's own FAILED lines, -rf and -v, still list every item),
        then the one line on pages whose baselines predate text-flow records."""
        from ...check import causes
        from ...check.entry import Entry, cause_groups, unrecorded_flow_line

        entries = [Entry.from_json(e) for e in self.entries.values()]
        lines: list[tuple[str, Markup]] = [(line, {}) for line in causes.terminal_lines(cause_groups(entries))]
        if said := unrecorded_flow_line(entries):
            lines.append((said, {"yellow": True}))
        return lines


def _swap_in(fresh: Path, folder: Path) -> None:
    """Put the folder `fresh` where `folder` is: the old one is moved aside, then removed."""
    old = None
    if folder.exists():
        old = folder.with_name(f".{folder.name}-old-{os.getpid()}")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(folder, old)
    os.replace(fresh, folder)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


_COLOUR: dict[Status, Markup] = {Status.CREATED: {"green": True}, Status.UPDATED: {"yellow": True},
                                 Status.UNUSED: {"red": True}, Status.PRUNED: {"yellow": True}}


def summarize(statuses: dict[str, Status]) -> dict[Status, int]:
    counts: dict[Status, int] = {}
    for status in statuses.values():
        counts[status] = counts.get(status, 0) + 1
    return counts


def summary_line(counts: dict[Status, int], unchanged: int = 0) -> str:
    """`theme: 12 matched, 0 failed (8 matched with inputs unchanged, not rendered)`."""
    order = (Status.MATCHED, Status.FAILED, Status.CREATED, Status.UPDATED, Status.UNUSED, Status.PRUNED)
    parts = [f"{counts.get(name, 0)} {name}" for name in order if counts.get(name) or name in order[:2]]
    said = f" ({unchanged} matched with inputs unchanged, not rendered)" if unchanged else ""
    return "theme: " + ", ".join(parts) + said


def parse_shard(text: str) -> tuple[int, int]:
    """`i/n` with 1 <= i <= n, as given to --visual-shard; ValueError says what is wrong
    (the pytest plugin turns it into a usage error before anything runs)."""
    try:
        i, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(f"--visual-shard {text!r}: expected i/n, e.g. 1/2") from None
    if not 1 <= i <= n:
        raise ValueError(f"--visual-shard {text!r}: i must be between 1 and n")
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
