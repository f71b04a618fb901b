"""`theme compare`: build and capture two git revisions; the base revision is the baseline.

Each side is checked out in its own worktree (filters run, hooks off; the working tree is
snapshotted into a tree object first), builds with its own config (a side with no SCSS
entry has nothing to build: its committed pages are compared) in its own Session, and
goes through theme.check.pipeline like a pytest run; tolerances come from the head's config.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Callable, Iterator, Mapping

from ...check import pipeline
from ...check.entry import Entry
from ...core import config as config_mod
from ...core.config import Config, VisualConfig
from ...core.errors import ConfigError, ThemeError
from ...stylesheet import build as build_mod
from .. import report

if TYPE_CHECKING:  # Playwright and numpy load when the captures start
    from ...capture.model import Capture, JsonObject
    from ...check.expected import ExpectedImages

Progress = Callable[[str], None]
WORKING_TREE = "working tree"

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

    def to_json(self) -> dict[str, str]:
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
        return any(e.status.differs for e in self.report.entries)


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
            sides = [_prepare(rev, path, rel, say) for rev, path in zip(revs, paths, strict=True)]
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
        shown = entry.relative_to(checkout).as_posix() if entry.is_relative_to(checkout) else entry
        if _builds(source, entry):
            say(f"{rev.role} ({_short(rev)}): building {shown}")
            build_mod.build(cfg)
        else:
            say(f"{rev.role} ({_short(rev)}): no SCSS entry ({shown} absent, none configured); "
                "comparing the committed pages")
    return Side(rev, checkout, cfg)


def _builds(source: Path, entry: Path) -> bool:
    """Whether this side builds its stylesheet: its entry exists, or [tool.theme] names one
    (a configured entry that is missing stays an error: the build says so). An article
    adopted without scss/ serves the pages it commits, so there is nothing to build."""
    if entry.is_file():
        return True
    table = tomllib.loads(source.read_text(encoding="utf-8")).get("tool", {}).get("theme", {})
    return "entry" in table


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
    """Capture every base variant (spilled to disk), then every head variant through the
    same pipeline and check as pytest does, the base's captures standing for baselines."""
    from ...check.expected import CapturedImages
    from ...check.verdict import CheckContext, removed

    base_shots = list(_captures(base, scratch / "base", browser, say))
    expected = CapturedImages(base_shots)
    ctx = CheckContext.against_revision(expected, scratch / "images", {})
    entries: list[Entry] = []
    environment: JsonObject = {}
    for shot in _captures(head, scratch / "head", browser, say, expected):
        environment = environment or dict(shot.fingerprint)
        entries += [pipeline.check_image(ctx, head.visual, shot, region).entry
                    for region in pipeline.checks_of(shot, head.visual)]
    seen = {e.key for e in entries}
    for key in expected.keys():  # images only the base has
        if key not in seen:
            base_shot, region = expected.where(key)
            variant = base_shot.variant if base_shot is not None else None
            entries.append(Entry.from_check(removed(ctx, key), variant, region))
    environment["revisions"] = {"base": base.revision.to_json(), "head": head.revision.to_json()}
    pages = sorted({e.page for e in entries})
    return report.Report(tuple(entries), environment, None, tuple(sorted(seen)), tuple(pages))


def _captures(side: Side, spill_to: Path, browser: str | None, say: Progress,
              expected: ExpectedImages | None = None) -> Iterator[Capture]:
    """Every variant of one side, in one Session (theme.check.pipeline: overlapped, spilled to disk; with
    `expected`, regions that only sit at another sub-pixel phase are re-rendered at its phase).

    One Session per side, one after the other: each side serves its own root with its
    own config, and Playwright's sync API refuses a second instance in one thread."""
    from ...capture import open_session, variants

    rev = side.revision

    def tagged(msg: str) -> None:
        say(f"{rev.role} {msg}")

    with (_relabelled(side.checkout, rev),
          open_session(side.visual, browser=browser, source=side.config.source) as session):
        shots = pipeline.capture(session, variants(side.visual), spill_to=spill_to, expected=expected, progress=tagged)
        for shot in shots:
            for url in shot.aborted:
                tagged(f"{shot.variant.folder}: aborted {url}")
            yield shot


__all__ = ["Outcome", "Revision", "WORKING_TREE", "compare_revisions"]
