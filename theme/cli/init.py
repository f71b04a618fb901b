"""`theme init [DIR]`: render an existing article and write its config, vendored
libraries, .gitignore entries and CI workflow (theme/init/); `--scss` also turns its
stylesheet into tokens."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import click

from ..init.adopt import adopt_stylesheet
from ..init.errors import AdoptIncomplete, InitBlocked, InitError
from ..init.plan import LOCAL, Plan, Write, make_plan
from . import main


def _packages(values: tuple[str, ...]) -> dict[str, Path]:
    out = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name or not path:
            raise click.BadParameter(f"{value!r} is not NAME=PATH (e.g. katex=katex-0.19.1.tgz)",
                                     param_hint="--package")
        if not Path(path).exists():
            raise click.BadParameter(f"{path}: no such file or folder", param_hint="--package")
        out[name] = Path(path)
    return out


@main.command()
@click.argument("directory", metavar="[DIR]", required=False, default=".",
                type=click.Path(file_okay=False, path_type=Path))
@click.option("--dry-run", is_flag=True, help="Print the plan; write nothing.")
@click.option("--yes", "-y", is_flag=True, help="Write without asking.")
@click.option("--force", is_flag=True,
              help="Replace a workflow or vendored copy that differs, and root, pages, viewports and color_schemes "
                   "in [tool.theme.visual]; your regions, mask and route entries stay.")
@click.option("--lfs", is_flag=True, help="Keep snapshots/**/*.png in Git LFS (.gitattributes, checkout with lfs).")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path),
              help="The folder the article is served from, relative to DIR (default: dist, else DIR itself).")
@click.option("--package", "packages", multiple=True, metavar="NAME=PATH",
              help="Take npm package NAME from a local tarball or package folder instead of the registry.")
@click.option("--scss", is_flag=False, flag_value="", default=None, metavar="[CSS]",
              help="Also turn the article's hand-written style.css (or CSS) into SCSS tokens.")
@click.option("--theme-requirement", "requirement", metavar="SPEC", default=None,
              help="How the workflow installs theme, as pip takes it (default: where this theme was installed "
                   "from, when CI can reach it; else the remote and commit of the git checkout it was installed "
                   "from; else the workflow is left out).")
def init(directory: Path, dry_run: bool, yes: bool, force: bool, lfs: bool, root: Path | None,
         packages: tuple[str, ...], scss: str | None, requirement: str | None) -> None:
    """Render the article in DIR, merge [tool.theme.visual], vendor what it loads from CDNs, write .gitignore
    entries and the CI workflow."""
    if not directory.is_dir():
        raise click.BadParameter(f"{directory}: no such directory", param_hint="DIR")
    adopt = adopt_stylesheet if scss is not None else None
    local = _packages(packages)
    if not (yes or dry_run) and not sys.stdin.isatty():
        # Asked before rendering, which takes a while: the answer cannot come.
        raise InitError("no terminal to ask whether to write what theme init finds; pass --yes to "
                        "render the article and write it (or --dry-run to only see the plan)")
    click.echo(f"… rendering {directory.resolve()} offline", err=True)
    plan = make_plan(directory, root=root, lfs=lfs, force=force, packages=local,
                     build_check=scss is not None, requirement=requirement)
    for line in plan.lines + file_lines(plan, force=force):
        click.echo(line)
    changes = plan.changes(force=force)
    if dry_run:
        click.echo("dry run: nothing written")
    elif plan.conflicts and not force:
        first = plan.conflicts[0]
        more = f" (and {len(plan.conflicts) - 1} more)" if len(plan.conflicts) > 1 else ""
        raise InitError(f"{first.where or directory / first.path}: {first.what} is not what theme init "
                        f"would write{more}; rerun with --force to replace it (--dry-run shows the plan)")
    elif not changes:
        click.echo("nothing to change")
    else:
        if not yes:
            click.confirm(f"write {len(changes)} file(s) in {directory.resolve()}?", abort=True)
        plan.write(force=force)
        click.echo(f"wrote {len(changes)} file(s)")
    if adopt is not None:
        result = adopt(directory.resolve(), Path(scss) if scss else None, dry_run=dry_run, force=force)
        for line in result.lines:
            click.echo(line)
        if not result.ok:
            raise AdoptIncomplete(f"{directory.resolve()}: --scss did not adopt the whole stylesheet "
                                  "(see above); fix what it names and run theme init --scss again")
    if plan.blocked:
        # The checks would refuse the pages that need them: no baselines yet, so no "next:".
        raise InitBlocked(blocked_message(plan.blocked))
    click.echo("next:")
    extra = _stylesheet_paths(directory) if adopt is not None else []
    for step in next_steps(plan, extra, lfs=lfs or any(w.path.name == ".gitattributes" for w in plan.writes)):
        click.echo(f"  {step}")


def file_lines(plan: Plan, *, force: bool) -> list[str]:
    """One line per file, or per vendored folder, saying what init does to it; sorted by name."""
    groups: dict[str, list[Write]] = {}
    for w in plan.writes:
        vendored = w.path.parts[0] == "vendor" and len(w.path.parts) > 2
        groups.setdefault(f"{Path(*w.path.parts[:2]).as_posix()}/" if vendored else w.path.as_posix(), []).append(w)
    return [_file_line(name, group, force) for name, group in sorted(groups.items())]


def _file_line(name: str, group: list[Write], force: bool) -> str:
    files = [w for w in group if w.state not in ("stale", "unloaded")]
    what = (files or group)[0].what + (f" ({len(files)} files)" if len(files) > 1 else "")
    stale = sum(w.state == "stale" for w in group)
    unloaded = sum(w.state == "unloaded" for w in group)
    if stale:
        what += f", {stale} file(s) not in the package"
    if unloaded:
        what += f", {unloaded} file(s) of the package no page loaded: " + ("removed" if force else
                                                                          "kept (--force removes them)")
    states = {w.state for w in group}
    states = (states - {"unloaded"}) | ({"update"} if force and unloaded else set())
    if states <= {"unchanged"}:
        verb = "unchanged"
    elif states & {"conflict", "stale"}:
        verb = "replace" if force else "differs (needs --force):"
    else:
        verb = "create" if states == {"create"} else "update"
    return f"{verb} {name}: {what}"


def _stylesheet_paths(directory: Path) -> list[str]:
    """What --scss made to commit: scss/ and the folders of [tool.theme] outputs."""
    try:
        table = tomllib.loads((directory / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return ["scss"]
    outputs = table.get("tool", {}).get("theme", {}).get("outputs", [])
    return ["scss", *(Path(o).parts[0] for o in outputs if isinstance(o, str) and o)]


def next_steps(plan: Plan, extra: tuple[str, ...] | list[str] = (), *, lfs: bool) -> list[str]:
    """The commands after init: the first baselines, then the commit."""
    paths = sorted({w.path.parts[0] for w in plan.writes} | {"snapshots", *extra})
    return (["git lfs install   # once per machine: baselines are stored in Git LFS"] if lfs else []) + [
        "python3 -m pytest --update-snapshots   # render the baselines",
        f"git add {' '.join(paths)} && git commit -m 'Visual checks with theme'",
    ]



def blocked_message(blocked: list[str]) -> str:
    """Why init stops before the first baselines: the addresses still blocked, and the page's
    own files that are missing (LOCAL + path), counted apart, each with what to do."""
    missing = [u for u in blocked if u.startswith(LOCAL + "/")]
    n, m = len(blocked) - len(missing), len(missing)
    parts = []
    if n:
        many = n > 1
        parts.append(
            f"{n} address{'es' if many else ''} the pages need {'are' if many else 'is'} blocked (the `blocked` "
            f"{'lines above say' if many else 'line above says'} why and what to do); serve {'them' if many else 'it'} "
            f"or list {'them' if many else 'it'} in allow_blocked")
    if m:
        many = m > 1
        parts.append(
            f"{m} file{'s' if many else ''} the pages need {'are' if many else 'is'} missing (the `missing` "
            f"{'lines above name them' if many else 'line above names it'}); put {'them' if many else 'it'} under "
            f"the served folder or list {'them' if many else 'it'} in allow_blocked")
    return "; ".join(parts) + ", then run theme init again before the first baselines"

