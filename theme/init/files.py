"""The text of what `theme init` writes: `[tool.theme.visual]` merged into pyproject.toml
(tomlkit, so every other byte stays), `.gitignore` entries, the article's workflow and the
LFS rule."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import textwrap
import tomllib
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import tomlkit
from tomlkit.items import Table

# The keys of [tool.theme.visual] init decides; any other key there is the user's and kept.
# A value init decides for the whole table: kept when it differs, replaced only with --force.
WHOLE = ("root", "pages", "viewports", "color_schemes")
# Collections init adds entries to: an entry already there is the user's, --force or not.
ENTRIES = ("regions", "mask", "route", "allow_overflow", "allow_blocked")
LISTS = ("mask", "allow_overflow", "allow_blocked")  # of those, lists of selectors, pages or addresses
MANAGED = WHOLE + ENTRIES
LFS_RULE = "snapshots/**/*.png filter=lfs diff=lfs merge=lfs -text"


@dataclass
class Merged:
    """The new pyproject text and what init would have written differently."""

    text: str
    kept: list[tuple[str, Any, Any]] = field(default_factory=list)  # (key, yours, init's): yours stays
    replaced: list[str] = field(default_factory=list)  # keys --force set to init's value


def merged_pyproject(text: str | None, visual: dict[str, Any], notes: dict[str, str], *,
                     force: bool, owned: frozenset[str] = frozenset()) -> Merged:
    """`[tool.theme.visual]` with what init found merged in, never removing anything.

    - No table: init's whole table (`notes`: key → a comment put above it).
    - root, pages, viewports, color_schemes: added when absent; a different value is
      the user's and kept, or with `force` replaced by init's.
    - regions, mask, route: init's entries are added when their key (selector) is absent;
      an entry already there is the user's and stays as written, `force` or not. Only a
      route init itself wrote (`owned`: the prefixes vendor/VENDORED.md lists) is updated.
    - every other key is the user's and kept.
    """
    doc = tomlkit.parse(text or "")
    current = tomllib.loads(text or "").get("tool", {}).get("theme", {}).get("visual")
    if current is None:
        tool = doc.setdefault("tool", tomlkit.table(is_super_table=True))
        theme = tool.setdefault("theme", tomlkit.table(is_super_table=True))
        theme["visual"] = _table(visual, notes)
        _add_states(theme["visual"], [], visual.get("states", []))
        return Merged(tomlkit.dumps(doc))
    table = doc["tool"]["theme"]["visual"]
    out = Merged(text or "")
    _add_states(table, current.get("states", []), visual.get("states", []))
    for key in MANAGED:
        if key not in current:
            if key in WHOLE or visual.get(key):
                for line in notes.get(key, "").splitlines():
                    table.add(tomlkit.comment(line))
                table.add(key, _value(visual[key]))
        elif key in WHOLE:
            if current[key] != visual[key]:
                if force:
                    table[key] = _value(visual[key])
                    out.replaced.append(key)
                else:
                    out.kept.append((key, current[key], visual[key]))
        else:
            _merge_entries(table, key, current[key], visual.get(key, []), owned, out)
    out.text = tomlkit.dumps(doc)
    return out


def _merge_entries(table: Table, key: str, theirs: Any, mine: Any, owned: frozenset[str], out: Merged) -> None:
    """Add init's entries of `key` (a region, mask selector or route) that are not there.
    `theirs` and `mine`: a list (mask) or a table (regions, route), as TOML holds them."""
    if key in LISTS:
        for selector in mine:
            if selector not in theirs:
                table[key].append(selector)
        return
    merged = dict(theirs)
    for name, value in mine.items():
        if name not in theirs or (key == "route" and name in owned):
            merged[name] = value
        elif theirs[name] != value:
            out.kept.append((f"{key}.{name}", theirs[name], value))
    if merged == theirs:
        return
    if isinstance(table[key], tomlkit.items.InlineTable):
        table[key] = _value(merged)
    else:  # a [tool.theme.visual.<key>] table of its own
        for name, value in merged.items():
            table[key][name] = value


def _add_states(table: Table, theirs: list[dict[str, Any]], mine: list[dict[str, Any]]) -> None:
    """Append init's reader states whose name is not there: a state already there is the
    user's, as written (`[[tool.theme.visual.states]]`, an array of tables)."""
    names = {state.get("name") for state in theirs}
    new = [state for state in mine if state["name"] not in names]
    if not new:
        return
    if "states" not in table:
        table.add(tomlkit.comment("Reader states (theme's docs, \"Reader states\"): each is checked after its steps."))
        table.add("states", tomlkit.aot())
    for state in new:
        item = tomlkit.table()
        for key, value in state.items():
            item.add(key, _value(value) if isinstance(value, dict) else _steps(value) if key == "steps" else value)
        table["states"].append(item)


def _steps(steps: list[dict[str, Any]]) -> object:
    """A state's steps as an array of inline tables, as the manual writes them (docs/states.md)."""
    array = tomlkit.array()
    for step in steps:
        array.append(_value(step))
    return array


def _table(visual: dict[str, Any], notes: dict[str, str]) -> Table:
    table = tomlkit.table()
    for key in MANAGED:
        if key in ("allow_overflow", "allow_blocked") and not visual.get(key):
            continue  # said only when a page needs it
        for line in notes.get(key, "").splitlines():
            table.add(tomlkit.comment(line))
        table.add(key, _value(visual[key]))
    table.add(tomlkit.nl())
    return table


def _value(value: object) -> object:
    """An inline table for a mapping, a multi-line array for a long list."""
    if isinstance(value, dict):
        inline = tomlkit.inline_table()
        inline.update(value)
        return inline
    if isinstance(value, list) and sum(len(str(v)) for v in value) > 60:
        array = tomlkit.array()
        array.extend(value)
        array.multiline(True)
        return array
    return value


# ---------------------------------------------------------------- how CI installs theme


@dataclass(frozen=True)
class Install:
    """How CI installs theme (`spec`), or why it cannot be told from this machine (`why`).
    `lines`: what the plan says of a spec taken from the git checkout theme is installed
    from (`checkout`), and what to do before CI can install it."""

    spec: str | None
    why: str = ""
    lines: tuple[str, ...] = ()
    checkout: bool = False


def install_spec(dist: importlib.metadata.Distribution | None = None) -> Install:
    """What pip recorded of where this theme came from (PEP 610 `direct_url.json`), as a
    requirement CI can install: a VCS URL at its commit, or an archive URL. A local path
    or an editable folder cannot travel itself, but the git checkout it is can: its remote
    at its commit (`from_checkout`). A theme with no install record cannot."""
    try:
        dist = dist or importlib.metadata.distribution("theme")
    except importlib.metadata.PackageNotFoundError:
        return Install(None, "theme is not installed (run from a source folder)")
    text = dist.read_text("direct_url.json")
    if text is None and dist.read_text("INSTALLER") is None:
        # Metadata with no installer's record: a source folder's own egg-info, found first
        # on sys.path (run from the checkout). No index has that version.
        return Install(None, "theme runs from a source folder, which CI cannot reach")
    if text is None:  # installed by name from an index: the version is what that index has
        return Install(f"theme=={dist.version}")
    try:
        direct = json.loads(text)
    except json.JSONDecodeError:
        return Install(None, "pip's record of where theme came from (direct_url.json) is unreadable")
    return _from_direct_url(direct)


def _from_direct_url(direct: dict[str, Any]) -> Install:
    url = str(direct.get("url", ""))
    parts = urlsplit(url)
    remote = parts.scheme not in ("", "file")
    fragment = f"#subdirectory={direct['subdirectory']}" if direct.get("subdirectory") else ""
    vcs = direct.get("vcs_info")
    if vcs and remote and vcs.get("commit_id"):
        return Install(f"theme @ {vcs.get('vcs', 'git')}+{url}@{vcs['commit_id']}{fragment}")
    if "archive_info" in direct and remote:
        return Install(f"theme @ {url}{fragment}")
    where = url.removeprefix("file://") or "an unknown place"
    editable = bool(direct.get("dir_info", {}).get("editable"))
    how = "an editable install" if editable else "installed"
    why = f"theme is {how} from {where}, which CI cannot reach"
    if parts.scheme != "file" or "archive_info" in direct or (vcs and vcs.get("vcs", "git") != "git"):
        return Install(None, why)
    folder = Path(unquote(parts.path)) / str(direct.get("subdirectory") or "")
    # A VCS install from a local repository is its commit; a folder install is its working tree.
    found = from_checkout(folder, commit=vcs.get("commit_id") if vcs else None, how=how)
    return found if found.spec else Install(None, f"{why}, and {found.why}")


def from_checkout(folder: Path, *, commit: str | None = None, how: str = "installed") -> Install:
    """`theme @ git+URL@COMMIT` for the git checkout `folder`: the URL of its remote origin
    (else its first remote), as CI can fetch it (https; an ssh address said as https), and
    `commit` (else HEAD), with `#subdirectory=` when `folder` is not the checkout's top.
    The plan's lines say where it came from and warn of what CI will not have: changes not
    committed, a commit no fetched branch of the remote has (offline, init cannot ask the
    remote itself)."""
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=30,
                                  env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    if not folder.is_dir() or git("rev-parse", "--git-dir") is None:
        return Install(None, "that folder is not a git checkout")
    remotes = (git("remote") or "").split()
    if not remotes:
        return Install(None, "its git checkout has no remote to install it from")
    name = "origin" if "origin" in remotes else remotes[0]
    address = git("remote", "get-url", name) or ""
    url = ci_url(address)
    if url is None:
        return Install(None, f"its git remote {name} ({_safe(address)}) is not an address CI can fetch "
                             "(https, or ssh as git@HOST:OWNER/REPO)")
    head = commit or git("rev-parse", "HEAD")
    if head is None:
        return Install(None, f"its git checkout {folder} has no commit yet")
    prefix = (git("rev-parse", "--show-prefix") or "").strip("/")
    spec = f"theme @ git+{url}@{head}" + (f"#subdirectory={prefix}" if prefix else "")
    lines = [f"workflow: CI installs {spec}: theme is {how} from {folder}, a git checkout, so the workflow "
             f"takes its remote {name} at its commit"]
    if commit is None and git("status", "--porcelain", "--", ".") not in ("", None):
        lines.append(f"note: {folder} has changes not committed; CI installs commit {head[:12]} without them: "
                     "commit and push them, then run theme init again (or pass --theme-requirement SPEC)")
    fetched = (git("branch", "-r", "--contains", head) or "").split()
    if not any(ref.startswith(f"{name}/") for ref in fetched):
        lines.append(f"note: commit {head[:12]} must be pushed to {url} before the workflow runs: no branch of "
                     f"{name} this checkout has fetched holds it (git -C {folder} push {name})")
    return Install(spec, lines=tuple(lines), checkout=True)


def ci_url(address: str) -> str | None:
    """A git remote's address as CI fetches it without keys: https (user and password left
    out), an ssh one (ssh://git@HOST/PATH, git@HOST:PATH) said as https://HOST/PATH; None
    for a path on this machine or a host CI cannot reach."""
    address = address.strip()
    scp = re.fullmatch(r"(?:[^@/:\s]+@)?([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+):(?!/)([^\s]+)", address)
    if scp and "://" not in address:
        return f"https://{scp.group(1)}/{scp.group(2)}"
    try:
        parts = urlsplit(address)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port and parts.scheme in ("https", "http") else ""
    except ValueError:
        return None
    if "." not in host or host.startswith("127.") or not parts.path.strip("/"):
        return None
    if parts.scheme in ("https", "http"):
        return f"{parts.scheme}://{host}{port}{parts.path}"
    if parts.scheme in ("ssh", "git+ssh"):
        return f"https://{host}{parts.path}"
    return None


def _safe(address: str) -> str:
    """A remote's address as the plan may show it: no password or token."""
    return re.sub(r"//[^/@\s]+@", "//***@", address)


def spec_in_workflow(text: str | None) -> str | None:
    """The THEME_SPEC an earlier `theme init` (or the user) put in the workflow."""
    m = re.search(r'^\s*THEME_SPEC:\s*"([^"\n]+)"\s*$', text or "", re.M)
    return m.group(1) if m else None


# ---------------------------------------------------------------- .gitignore


def gitignore(text: str | None, folders: list[str]) -> str:
    """`.gitignore` with each of `folders` (what runs write: artefacts, the report) ignored;
    every other byte kept, nothing added for a folder a line already ignores."""
    text = text or ""
    have = {line.strip().strip("/") for line in text.splitlines() if line.strip() and not line.startswith("#")}
    missing = [f"/{f.strip('/')}/" for f in folders if f.strip("/") not in have]
    if not missing:
        return text
    return text + ("" if not text or text.endswith("\n") else "\n") + "".join(m + "\n" for m in missing)


def gitattributes(text: str | None) -> str:
    """`.gitattributes` with the snapshots' PNGs under Git LFS; other lines kept as they are."""
    text = text or ""
    if LFS_RULE in text.splitlines():
        return text
    return text + ("" if not text or text.endswith("\n") else "\n") + LFS_RULE + "\n"


def has_lfs_rule(text: str | None) -> bool:
    return LFS_RULE in (text or "").splitlines()


def has_browser_service(compose: str | None) -> bool:
    """Whether a compose file defines the `browser` service theme's manual describes (the
    image that runs `theme browser serve` on port 3000). Only the names directly under
    `services:` are read, by their indentation: theme does not depend on a YAML parser."""
    lines = (compose or "").splitlines()
    start = next((n for n, line in enumerate(lines) if re.match(r"services:\s*(#.*)?$", line)), None)
    if start is None:
        return False
    indent = None
    for line in lines[start + 1:]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            return False  # the next top-level key: services has ended
        here = len(line) - len(line.lstrip())
        indent = indent or here
        if here == indent and re.match(r"\s*browser:\s*(#.*)?$", line):
            return True
    return False


SHARDS = 2  # as this repository's own workflow: two runners share the pages
ENDPOINT = "ws://localhost:3000/theme"  # the compose service's endpoint (docs/browsers.md)


def workflow(*, lfs: bool, build_check: bool, spec: str, browser_service: bool = False,
             artifacts: str = ".theme-artifacts") -> str:
    """`.github/workflows/visual.yml` for an article, shaped like theme's own: the checks on
    every pull request in shards (after `theme build --check` when the article builds its
    stylesheet with theme), one merged report and a comment when they fail, and a manual job
    that regenerates baselines in CI's environment. With `browser_service`, both jobs render
    in the article's compose `browser` service, the one developers run locally."""
    artifacts = artifacts.strip("/")
    steps = _setup_steps(lfs, spec, build_check, browser_service)
    endpoint = (f"        env:\n          THEME_BROWSER_ENDPOINTS: {ENDPOINT}\n") if browser_service else ""
    return f"""# Visual checks of the article, written by `theme init`.
# Every pull request renders the pages in {SHARDS} shards and compares them with the baselines
# in snapshots/; when something differs, one merged report is uploaded, summarised and
# linked from a comment on the pull request. Baselines belong to the environment that
# checks them: run this workflow by hand (workflow_dispatch) to regenerate them here, then
# commit the uploaded snapshots/.
name: visual

on:
  pull_request:
  workflow_dispatch:
    inputs:
      update:
        description: "Which baselines to rewrite (missing, changed, all)"
        required: true
        default: changed
        type: choice
        options: [missing, changed, all]

permissions:
  contents: read

concurrency:
  group: visual-${{{{ github.ref }}}}
  cancel-in-progress: true

env:
  # How CI installs theme (theme init --theme-requirement SPEC sets it).
  THEME_SPEC: "{spec}"

jobs:
  check:
    if: github.event_name == 'pull_request'
    runs-on: ubuntu-latest
    timeout-minutes: 60
    strategy:
      fail-fast: false
      matrix:
        shard: [{", ".join(str(n) for n in range(1, SHARDS + 1))}]
    steps:
{steps}      - name: Visual checks (shard ${{{{ matrix.shard }}}} of {SHARDS})
{endpoint}        run: >-
          python3 -m pytest --visual-only
          --visual-shard "${{{{ matrix.shard }}}}/{SHARDS}"
          --visual-report "visual-report-${{{{ matrix.shard }}}}"
          --snapshot-warn-unused
      - name: Upload the report
        if: failure()
        uses: actions/upload-artifact@v6
        with:
          name: visual-report-${{{{ matrix.shard }}}}
          path: visual-report-${{{{ matrix.shard }}}}/
          if-no-files-found: ignore
      # The full-size images of the failed checks, which theme accept and theme review take
      # (--artifacts DIR). A dot folder: upload-artifact leaves it out unless told.
      - name: Upload the full-size images of the failed checks
        if: failure()
        uses: actions/upload-artifact@v6
        with:
          name: visual-artifacts-${{{{ matrix.shard }}}}
          path: {artifacts}/
          include-hidden-files: true
          if-no-files-found: ignore

  report:
    if: failure() && github.event_name == 'pull_request'
    needs: check
    runs-on: ubuntu-latest
    permissions:
      contents: read
      pull-requests: write  # one comment on the pull request, updated on every run
    steps:
      - uses: actions/checkout@v5
      - uses: actions/setup-python@v6
        with:
          python-version: "3.11"
      - run: python3 -m pip install "$THEME_SPEC"
      - uses: actions/download-artifact@v7
        with:
          pattern: visual-report-*
          path: shards
      - name: Merge the shards into one report and step summary
        run: theme report merge shards/visual-report-* --out visual-report || true
      - uses: actions/upload-artifact@v6
        id: upload
        with:
          name: visual-report
          path: visual-report/
      - uses: actions/download-artifact@v7
        with:
          pattern: visual-artifacts-*
          merge-multiple: true  # the shards checked different images: no name is in two
          path: visual-artifacts
      - uses: actions/upload-artifact@v6
        id: upload-artifacts
        with:
          name: visual-artifacts
          path: visual-artifacts/
          if-no-files-found: ignore
      - name: Comment on the pull request (or update the comment posted before)
        uses: actions/github-script@v8
        env:
          REPORT_URL: ${{{{ steps.upload.outputs.artifact-url }}}}
          ARTIFACTS_URL: ${{{{ steps.upload-artifacts.outputs.artifact-url }}}}
        with:
          script: |
{_comment_script()}
  update-baselines:
    if: github.event_name == 'workflow_dispatch'
    runs-on: ubuntu-latest
    timeout-minutes: 60
    steps:
{steps}      - name: Regenerate baselines in CI's environment
{endpoint}        run: >-
          python3 -m pytest --visual-only
          --update-snapshots="${{{{ inputs.update }}}}" --allow-ci-update
          --snapshot-warn-unused
      - uses: actions/upload-artifact@v6
        with:
          name: baselines
          path: snapshots/
"""


def _comment_script() -> str:
    """The comment step's script (theme/init/comment.js without its `//` header), indented
    under `script: |`; actions/github-script runs it as the body of an async function."""
    lines = (files("theme.init") / "comment.js").read_text(encoding="utf-8").splitlines(keepends=True)
    while lines and lines[0].startswith("//"):
        lines.pop(0)
    return textwrap.indent("".join(lines), " " * 12)


def _setup_steps(lfs: bool, spec: str, build_check: bool, browser_service: bool) -> str:
    """Checkout, Python, theme and its browser; the stylesheet guard; the compose browser."""
    out = "      - uses: actions/checkout@v5\n" + ("        with:\n          lfs: true\n" if lfs else "")
    out += ("      - uses: actions/setup-python@v6\n"
            "        with:\n"
            '          python-version: "3.11"\n'
            "      - name: Install theme, pytest and a browser\n"
            '        run: python3 -m pip install "$THEME_SPEC" pytest && theme setup\n')
    if build_check:
        out += ("      - name: Committed style.css is current\n"
                "        run: theme build --check\n")
    if browser_service:
        out += ("      - name: Start the shared browser (compose.yaml) and wait for it\n"
                "        run: |\n"
                "          docker compose up -d --build browser\n"
                "          for _ in $(seq 60); do\n"
                "            curl -s -o /dev/null --max-time 2 http://localhost:3000/ && exit 0\n"
                "            sleep 1\n"
                "          done\n"
                "          docker compose logs browser\n"
                "          exit 1\n")
    return out
