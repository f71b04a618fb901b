"""Base vs head: build and capture two git revisions, compare every image, write one report.

No committed baselines are needed: the base revision *is* the baseline.

    git worktree (base) ─┐                       ┌─ base image  = "expected"
                         ├─ theme.build ─ capture ┤
    git worktree (head) ─┘   (each side's own     └─ head image  = "actual"
                              pyproject.toml)         │
                                      theme.diff.compare (head's tolerances)
                                                      │
                                       theme.report.write(out) ─▶ index.html, report.json …

Decisions, and why:

- **The head defaults to the working tree as it is**, uncommitted and untracked
  (not ignored) files included. The question asked before a commit is "what does
  my change do to the page?", and `--head HEAD` remains one flag away. The
  working tree is *snapshotted* into a git tree with a throw-away index
  (`GIT_INDEX_FILE`, `git add -A`, `git write-tree`) and checked out into its own
  worktree like the base, so (1) the build never writes into the user's folder,
  and (2) both sides are made by the same steps from the same kind of checkout,
  so a stale ignored file that only the working tree has cannot make a difference.
  The snapshot writes blobs into the object store and no ref: nothing the user
  sees changes, and `git gc` drops them later.
- **Worktrees, not `git archive`**: a checkout runs the repository's filters
  (Git LFS smudge), so images stored in LFS are real images on both sides. Hooks
  are switched off for these checkouts (`core.hooksPath=/dev/null`, which holds none): a
  comparison must not run a post-checkout hook.
- **Two capture sessions, one per side, one after the other.** A Session serves
  one root with one config, and the sides' roots are two folders with two
  configs; serving their common parent would change every page's URL
  (root-absolute links such as `/style.css` would break), and sharing one
  Session would force one side's regions, masks and style on the other. Both
  sessions cannot be open at once either: Playwright's sync API refuses a second
  instance in one thread (tried). Measured here on a 480×360 page: a Session
  starts and stops in ~1.3 s and a capture takes ~0.8 s; on the real article a
  variant takes 17-30 s (benchmarks/README.md), so the second start is ~1 % of a run.
  Base captures are spilled to `.npy` files and read back memory-mapped while
  the head is captured, so one page image at a time is in memory (a 1280 ×
  120 000 page is 600 MB of RGBA), and only differing images are encoded to PNG.
- **Tolerances come from the head's config**: the head is the revision under
  review, exactly as a normal check uses the checked-out config.

Statuses: `matched`, `failed` (the image differs), `added` (only the head has
it), `removed` (only the base has it). Nothing here knows argv.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Callable, Iterator, Mapping

import numpy as np

from . import build as build_mod
from . import config as config_mod
from . import diff as diff_mod
from . import images, phase, report
from .config import Config, VisualConfig
from .errors import ConfigError, ThemeError

Progress = Callable[[str], None]
WORKING_TREE = "working tree"
DIFFERENT = ("failed", "added", "removed")

# No prompt for credentials, no index refresh written behind the user's back.
_QUIET_GIT = {"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}


@dataclass(frozen=True)
class Revision:
    """One side of the comparison as the user named it and as git resolved it."""

    role: str  # "base" | "head"
    ref: str  # what the user passed, or WORKING_TREE
    commit: str  # the commit checked out (for the working tree: HEAD, plus `tree` on top)
    tree: str  # the tree whose files the side is built from

    @property
    def label(self) -> str:
        """How messages name a file of this side: git's own `REF:path` notation."""
        return "" if self.ref == WORKING_TREE else f"{self.ref}:"

    def to_json(self) -> dict:
        return {"ref": self.ref, "commit": self.commit, "tree": self.tree}


@dataclass(frozen=True)
class Side:
    revision: Revision
    checkout: Path  # the temporary worktree
    config: Config

    @property
    def visual(self) -> VisualConfig:
        assert self.config.visual is not None
        return self.config.visual


@dataclass(frozen=True)
class Outcome:
    report: report.Report
    index: Path  # the written index.html (`report` is what report.json holds: image paths relative to it)
    base: Revision
    head: Revision

    @property
    def differs(self) -> bool:
        return any(e.status in DIFFERENT for e in self.report.entries)


# ---------------------------------------------------------------- git


class Git:
    """A few git plumbing calls in one repository; every failure is one line."""

    def __init__(self, top: Path):
        self.top = top

    @classmethod
    def of(cls, folder: Path) -> "Git":
        try:
            out = _git(folder, "rev-parse", "--show-toplevel")
        except _GitFailed:
            raise ConfigError(f"{folder}: not inside a git repository; theme compare checks out "
                              "revisions with git, so run it in a clone") from None
        return cls(Path(out).resolve())

    def run(self, *args: str, env: Mapping[str, str] | None = None, cwd: Path | None = None) -> str:
        return _git(cwd or self.top, *args, env=env)

    def commit(self, ref: str, option: str) -> str:
        """The commit `ref` names, or ConfigError naming the ref and the flag it came from."""
        if not ref or ref.startswith("-"):
            raise ConfigError(f"{option} {ref!r}: not a git revision; pass a branch, tag or commit")
        try:
            return self.run("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
        except _GitFailed:
            raise ConfigError(f"{option} {ref}: unknown git revision {ref!r}; "
                              "pass a branch, tag or commit that exists here (see git log)") from None

    def snapshot_working_tree(self, scratch: Path) -> str:
        """A tree object holding the working tree as it is (tracked changes and untracked files).

        A copy of the real index keeps git's stat cache, so unchanged files are not
        re-hashed; the real index and every ref are left untouched.
        """
        index = scratch / "index"
        real = Path(self.run("rev-parse", "--path-format=absolute", "--git-path", "index"))
        if real.is_file():
            shutil.copyfile(real, index)
        env = {"GIT_INDEX_FILE": str(index)}
        self.run("add", "--all", "--", ".", env=env)
        return self.run("write-tree", env=env)

    def worktree(self, path: Path, commit: str, tree: str) -> None:
        """A detached worktree at `commit` whose files are those of `tree`."""
        self.run("worktree", "add", "--detach", "--no-checkout", str(path), commit)
        self.run("read-tree", "-u", "--reset", tree, cwd=path)

    def remove_worktree(self, path: Path) -> None:
        with contextlib.suppress(_GitFailed):
            self.run("worktree", "remove", "--force", str(path))
        with contextlib.suppress(_GitFailed):
            self.run("worktree", "prune")


class _GitFailed(Exception):
    pass


def _git(cwd: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    """Run git; its last error line becomes _GitFailed. Hooks are off (/dev/null holds none)."""
    full_env = {**os.environ, **_QUIET_GIT, **(env or {})}
    try:
        done = subprocess.run(["git", "-c", "core.hooksPath=/dev/null", *args], cwd=cwd, env=full_env,
                              capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise ConfigError("git: not found on PATH; theme compare needs git installed") from None
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise _GitFailed(lines[-1] if lines else f"git {args[0]} failed")
    return done.stdout.strip()


# ---------------------------------------------------------------- the flow


def compare_revisions(cfg: Config, base: str, head: str | None = None, *, out: Path | None = None,
                      browser: str | None = None, progress: Progress | None = None) -> Outcome:
    """Build, capture and compare `base` against `head` (None: the working tree); write the report.

    `cfg` is the working tree's config: it says where the project sits in the
    repository (its pyproject.toml's path) and, unless `out` is given, where the
    report goes.
    """
    say = progress or (lambda _msg: None)
    git = Git.of(cfg.project_dir)
    rel = _relative_config(cfg, git)
    out = Path(out) if out is not None else _default_out(cfg)
    with tempfile.TemporaryDirectory(prefix="theme-compare-") as tmp:
        scratch = Path(tmp)
        revs = _resolve(git, base, head, scratch)
        with _checkouts(git, revs, scratch) as paths:
            sides = [_prepare(rev, path, rel, say) for rev, path in zip(revs, paths)]
            rep = _capture_and_compare(sides[0], sides[1], scratch / "images", browser, say)
        index = report.write(out, rep)  # copies the images out of the temporary folder
    written = report.from_json((index.parent / "report.json").read_text(encoding="utf-8"))
    return Outcome(written, index, revs[0], revs[1])


def _relative_config(cfg: Config, git: Git) -> PurePosixPath:
    try:
        return PurePosixPath(cfg.source.resolve().relative_to(git.top).as_posix())
    except ValueError:
        raise ConfigError(f"{cfg.source}: the config is outside the git repository at {git.top}; "
                          "theme compare reads each revision's own copy of it, so it must be tracked") from None


def _default_out(cfg: Config) -> Path:
    return cfg.visual.report if cfg.visual is not None else cfg.project_dir / "visual-report"


def _resolve(git: Git, base: str, head: str | None, scratch: Path) -> tuple[Revision, Revision]:
    base_commit = git.commit(base, "--base")
    base_rev = Revision("base", base, base_commit, git.run("rev-parse", f"{base_commit}^{{tree}}"))
    if head is not None:
        head_commit = git.commit(head, "--head")
        return base_rev, Revision("head", head, head_commit, git.run("rev-parse", f"{head_commit}^{{tree}}"))
    try:
        current = git.run("rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    except _GitFailed:
        raise ConfigError(f"{git.top}: the repository has no commit yet; commit once, "
                          "then compare against it") from None
    return base_rev, Revision("head", WORKING_TREE, current, git.snapshot_working_tree(scratch))


@contextlib.contextmanager
def _checkouts(git: Git, revs: tuple[Revision, ...], scratch: Path) -> Iterator[list[Path]]:
    """One temporary worktree per side, removed (and pruned from git's list) whatever happens."""
    made: list[Path] = []
    try:
        for rev in revs:
            path = scratch / rev.role
            made.append(path)  # before adding: a half-made worktree is removed too
            try:
                git.worktree(path, rev.commit, rev.tree)
            except _GitFailed as err:
                raise ConfigError(f"{rev.ref}: cannot check out the {rev.role} revision ({err}); "
                                  "check `git worktree list` and free disk space") from None
        yield made
    finally:
        for path in made:
            git.remove_worktree(path)


def _prepare(rev: Revision, checkout: Path, rel: PurePosixPath, say: Progress) -> Side:
    """Load this side's own config and build its stylesheet into its checkout."""
    source = checkout.joinpath(*rel.parts)
    with _relabelled(checkout, rev):
        if not source.is_file():
            raise ConfigError(f"{rev.label}{rel}: no such file in the {rev.role} revision; "
                              f"theme compare needs [tool.theme] in both revisions")
        cfg = config_mod.load(source)
        if cfg.visual is None:
            raise ConfigError(f"{rev.label}{rel}: no [tool.theme.visual] table in the {rev.role} "
                              "revision; add one there or compare a later revision")
        entry = cfg.build.entry
        say(f"{rev.role} ({_short(rev)}): building "
            f"{entry.relative_to(checkout).as_posix() if entry.is_relative_to(checkout) else entry}")
        build_mod.build(cfg)
    return Side(rev, checkout, cfg)


def _short(rev: Revision) -> str:
    if rev.ref == WORKING_TREE:
        return rev.ref
    return rev.commit[:10] if rev.commit.startswith(rev.ref) else f"{rev.ref} {rev.commit[:10]}"


@contextlib.contextmanager
def _relabelled(checkout: Path, rev: Revision) -> Iterator[None]:
    """Errors name files as `REF:path` (the working tree: `path`), not by the temporary checkout."""
    try:
        yield
    except ThemeError as err:
        text = str(err)
        prefixes = {str(checkout) + os.sep}
        with contextlib.suppress(ValueError):
            prefixes.add(os.path.relpath(checkout) + os.sep)
        for prefix in sorted(prefixes, key=len, reverse=True):
            text = text.replace(prefix, rev.label)
        first, sep, rest = text.partition("\n")  # the tag ends the one line a user reads first
        raise type(err)(f"{first} [{rev.role}: {_short(rev)}]{sep}{rest}") from None


# ---------------------------------------------------------------- capture + compare


def _capture_and_compare(base: Side, head: Side, scratch: Path, browser: str | None,
                         say: Progress) -> report.Report:
    """Capture every base variant (spilled to disk), then every head variant, comparing as it comes."""
    from .capture import variants  # Playwright loads only when a capture runs

    base_v = {v.folder: v for v in variants(base.visual)}
    head_v = {v.folder: v for v in variants(head.visual)}
    spilled = {}
    for folder, shot in _captures(base, list(base_v.values()), browser, say):
        spilled[folder] = _spill(shot, scratch / "base" / f"{len(spilled)}.npy")
    entries: list[report.Entry] = []
    environment: dict = {}
    images_dir = scratch / "images"
    base_of = lambda folder: _unspill(spilled.get(folder))  # noqa: E731
    for folder, shot in _captures(head, list(head_v.values()), browser, say, base_of):
        environment = environment or dict(shot.fingerprint)
        entries += _compare_variant(folder, _unspill(spilled.pop(folder, None)), shot, head.visual, images_dir)
    for folder, stored in spilled.items():  # variants the head no longer has
        entries += _compare_variant(folder, _unspill(stored), None, head.visual, images_dir)
    environment["revisions"] = {"base": base.revision.to_json(), "head": head.revision.to_json()}
    order = list(head_v) + [f for f in base_v if f not in head_v]
    pages = sorted({f.parent.as_posix() for f in order})  # <page name>/<variant id>
    return report.Report(tuple(entries), environment, None,
                         tuple(sorted(e.key for e in entries)), tuple(pages))


def _captures(side: Side, todo: list, browser: str | None, say: Progress,
              base_of=None) -> Iterator[tuple]:
    """(variant folder, Capture) for each variant, in one Session for this side.

    With `base_of` (folder -> the base side's Capture or None), a head variant
    whose regions differ from the base's only because they sit at another
    sub-pixel phase is captured once more with them moved back onto it
    (theme/phase.py); those crops are in `shot.realigned`.

    One Session per side, one after the other: Playwright's sync API refuses a
    second instance in the same thread, and each side serves its own root with
    its own config. A Session starts and stops in ~1.3 s on this machine, against
    17-30 s per variant of the real article (benchmarks/README.md).
    """
    from .capture import Session

    rev = side.revision
    with _relabelled(side.checkout, rev), Session(side.visual, browser=browser, source=side.config.source) as session:
        for number, variant in enumerate(todo, start=1):
            say(f"{rev.role} [{number}/{len(todo)}] {variant.folder}")
            shot = session.capture(variant, progress=say)
            for url in shot.aborted:
                say(f"{rev.role} {variant.folder}: aborted {url}")
            shot.realigned = _realign(session, shot, base_of(variant.folder) if base_of else None, side, say)
            yield variant.folder, shot


def _realign(session, shot, base_shot, side: Side, say: Progress) -> dict:
    """{region path: crop at the base's sub-pixel phase} for the regions that need it."""
    if base_shot is None:
        return {}
    recorded = {r.path.as_posix(): r.css_box for r in base_shot.regions if r.css_box is not None}
    crops = {r.path.as_posix(): r for r in base_shot.regions}
    expected_of = lambda path: np.ascontiguousarray(base_shot.crop(crops[path]))  # noqa: E731
    wanted = phase.plan_against(shot, recorded, expected_of, side.visual.tolerance_for)
    if not wanted:
        return {}
    say(f"{side.revision.role} {shot.variant.folder}: {len(wanted)} regions moved by a fraction of a "
        "pixel; capturing them at the base's sub-pixel position")
    return phase.realigned(session.capture(shot.variant, progress=say, nudges=wanted), recorded)


def _spill(shot, path: Path):
    """Keep the base capture on disk, not in memory: a 1280 × 120 000 page is 600 MB of RGBA."""
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, shot.image)
    shot.image = None
    return shot, path


def _unspill(stored):
    if stored is None:
        return None
    shot, path = stored
    shot.image = np.load(path, mmap_mode="r")  # the OS pages it in as the diff reads it
    return shot


@dataclass
class _Image:
    pixels: np.ndarray
    region: object | None  # theme.capture.Region, None for the page


def _images_of(shot) -> dict[str, _Image]:
    if shot is None:
        return {}
    regions = {r.path: r for r in shot.regions}
    return {rel.as_posix(): _Image(pixels, regions.get(rel)) for rel, pixels in shot.images()}


def _compare_variant(folder: PurePosixPath, base_shot, head_shot, visual: VisualConfig,
                     scratch: Path) -> list[report.Entry]:
    base_imgs, head_imgs = _images_of(base_shot), _images_of(head_shot)
    variant = (head_shot or base_shot).variant
    names = list(head_imgs) + [n for n in base_imgs if n not in head_imgs]
    out = []
    for name in names:
        key = f"{folder.as_posix()}/{name}"
        old, new = base_imgs.get(name), head_imgs.get(name)
        region = (new or old).region
        common = _common_fields(key, variant, region)
        if old is None:
            out.append(report.Entry(status="added", images=_write(scratch, key, actual=new.pixels),
                                    message=f"{key}: only in the head revision (new image)", **common))
        elif new is None:
            out.append(report.Entry(status="removed", images=_write(scratch, key, expected=old.pixels),
                                    message=f"{key}: only in the base revision (image gone)", **common))
        else:
            out.append(_compared(key, old, new, visual, scratch, head_shot, base_shot, common))
    return out


def _common_fields(key: str, variant, region) -> dict:
    fields_ = {"key": key, "page": variant.page_name, "viewport": variant.viewport, "scheme": variant.scheme}
    if region is not None:
        fields_.update(region_key=region.key, region_name=region.name, heading=region.heading,
                       selector=region.selector)
    return fields_


def _compared(key, old: _Image, new: _Image, visual: VisualConfig, scratch: Path,
              head_shot, base_shot, common: dict) -> report.Entry:
    region_key = new.region.key if new.region is not None else None
    tolerance = visual.tolerance_for(region_key)
    again = head_shot.realigned.get(new.region.path.as_posix()) if new.region else None
    result, moved = phase.compare(old.pixels, new.pixels, again, tolerance, diff_image=True)
    if moved:
        return report.Entry(status="matched", diff=result.to_json(), realigned=True, **common,
                            message=f"{key}: matches at the base's sub-pixel position (only its "
                                    "place on the page moved, by a fraction of a pixel)")
    if result.matches:
        return report.Entry(status="matched", message=f"{key}: {result.summary()}",
                            diff=result.to_json(), **common)
    lines = [f"{key}: {result.summary()}"]
    lines += [f"  in: {s}" for s in _attribution(result, new, head_shot, base_shot)]
    files = _write(scratch, key, expected=old.pixels, actual=new.pixels, diff=result.diff)
    return report.Entry(status="failed", message="\n".join(lines), diff=result.to_json(),
                        images=files, **common)


def _attribution(result, new: _Image, head_shot, base_shot) -> list[str]:
    """Name the elements under the changes, sizes read from the base side's regions."""
    from .attribution import attribute, resized

    base_sizes = {f"{r.key}/{r.name}": r.box[2:] for r in base_shot.regions}
    if new.region is not None:
        sentence = resized(new.region, base_sizes.get(f"{new.region.key}/{new.region.name}"))
        return [sentence] if sentence else []
    return attribute(result.boxes, head_shot.regions, base_sizes)


def _write(scratch: Path, key: str, **kinds: np.ndarray | None) -> dict[str, str]:
    """PNG files for the report (report.write copies them into its images/ folder)."""
    stem = key[: -len(".png")]
    files = {}
    for kind, pixels in kinds.items():
        if pixels is None:
            continue
        path = scratch / f"{stem}.{kind}.png"
        images.write_png(path, pixels)
        files[kind] = str(path)
    return files


__all__ = ["Outcome", "Revision", "WORKING_TREE", "compare_revisions"]
