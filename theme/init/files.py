"""The text of what `theme init` writes: `[tool.theme.visual]` merged into pyproject.toml
(tomlkit, so every other byte stays), the article's workflow and the LFS rule."""

from __future__ import annotations

import importlib.metadata
import json
import tomllib
from typing import Any

import tomlkit

# The keys of [tool.theme.visual] init decides; any other key there is the user's and kept.
MANAGED = ("root", "pages", "viewports", "color_schemes", "regions", "mask", "route")
LFS_RULE = "snapshots/**/*.png filter=lfs diff=lfs merge=lfs -text"


def merged_pyproject(text: str | None, visual: dict[str, Any], notes: dict[str, str],
                     *, force: bool) -> tuple[str, list[str]]:
    """(the new pyproject text, the managed keys that differ from what is there). With
    differing keys and no `force` the text is unchanged. `notes`: key → a comment put above it."""
    doc = tomlkit.parse(text or "")
    current = tomllib.loads(text or "").get("tool", {}).get("theme", {}).get("visual")
    if current is not None:
        differ = [k for k in MANAGED if current.get(k) != visual.get(k)]
        if not differ or not force:
            return text or "", differ
        # The managed keys first, in init's order; the user's own keys (tolerance, …) after them.
        old = doc["tool"]["theme"]["visual"]
        fresh = _table(visual, notes)
        for key in [k for k in old.keys() if k not in MANAGED]:
            fresh.add(key, old[key])
        doc["tool"]["theme"]["visual"] = fresh
        return tomlkit.dumps(doc), differ
    tool = doc.setdefault("tool", tomlkit.table(is_super_table=True))
    theme = tool.setdefault("theme", tomlkit.table(is_super_table=True))
    theme["visual"] = _table(visual, notes)
    return tomlkit.dumps(doc), []


def _table(visual: dict[str, Any], notes: dict[str, str]):
    table = tomlkit.table()
    for key in MANAGED:
        value = visual[key]
        for line in notes.get(key, "").splitlines():
            table.add(tomlkit.comment(line))
        if isinstance(value, dict):
            inline = tomlkit.inline_table()
            inline.update(value)
            value = inline
        elif isinstance(value, list) and sum(len(str(v)) for v in value) > 60:
            array = tomlkit.array()
            array.extend(value)
            array.multiline(True)
            value = array
        table.add(key, value)
    table.add(tomlkit.nl())
    return table


def install_spec() -> str:
    """How CI installs this theme: the VCS URL and commit it was installed from (PEP 610),
    else its name and version."""
    dist = importlib.metadata.distribution("theme")
    direct = json.loads(dist.read_text("direct_url.json") or "{}")
    vcs = direct.get("vcs_info")
    if vcs and direct.get("url"):
        return f"theme @ {vcs['vcs']}+{direct['url']}@{vcs['commit_id']}"
    return f"theme=={dist.version}"


def gitattributes(text: str | None) -> str:
    """`.gitattributes` with the snapshots' PNGs under Git LFS; other lines kept as they are."""
    text = text or ""
    if LFS_RULE in text.splitlines():
        return text
    return text + ("" if not text or text.endswith("\n") else "\n") + LFS_RULE + "\n"


def has_lfs_rule(text: str | None) -> bool:
    return LFS_RULE in (text or "").splitlines()


def workflow(*, lfs: bool, build_check: bool, spec: str) -> str:
    """`.github/workflows/visual.yml` for an article: the checks on every pull request, the
    report when they fail, and a manual job that regenerates baselines in CI's environment."""
    checkout = "      - uses: actions/checkout@v5\n" + ("        with:\n          lfs: true\n" if lfs else "")
    build = ("      - name: Committed style.css is current\n"
             "        run: theme build --check\n") if build_check else ""
    install = ("      - uses: actions/setup-python@v6\n"
               "        with:\n"
               '          python-version: "3.11"\n'
               "      - name: Install theme, pytest and a browser\n"
               '        run: python3 -m pip install "$THEME_SPEC" pytest && theme setup\n')
    return f"""# Visual checks of the article, written by `theme init`.
# Every pull request renders the pages and compares them with the baselines in
# snapshots/; when something differs, the report is uploaded and summarised.
# Baselines belong to the environment that checks them: run this workflow by hand
# (workflow_dispatch) to regenerate them here, then commit the uploaded snapshots/.
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
  # How CI installs theme; change it if you install theme another way.
  THEME_SPEC: "{spec}"

jobs:
  check:
    if: github.event_name == 'pull_request'
    runs-on: ubuntu-latest
    timeout-minutes: 60
    steps:
{checkout}{install}{build}      - name: Visual checks
        run: python3 -m pytest --visual-only --visual-report visual-report
      - name: Summary of what differs
        if: failure()
        run: |
          if [ -f visual-report/summary.md ]; then
            cat visual-report/summary.md >> "$GITHUB_STEP_SUMMARY"
          fi
      - name: Upload the report and artefacts
        if: failure()
        uses: actions/upload-artifact@v6
        with:
          name: visual-report
          path: |
            visual-report/
            .theme-artifacts/
          if-no-files-found: ignore

  update-baselines:
    if: github.event_name == 'workflow_dispatch'
    runs-on: ubuntu-latest
    timeout-minutes: 60
    steps:
{checkout}{install}      - name: Regenerate baselines in CI's environment
        run: >-
          python3 -m pytest --visual-only
          --update-snapshots="${{{{ inputs.update }}}}" --allow-ci-update
          --snapshot-warn-unused
      - uses: actions/upload-artifact@v6
        with:
          name: baselines
          path: snapshots/
"""
