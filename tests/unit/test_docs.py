"""The manual (docs/, mkdocs.yml) agrees with the code: its generated references are what
scripts/gen_docs.py makes now, every `[tool.theme]` key a page names is one theme reads, and the
site builds in strict mode, where a link to a missing page or heading is an error."""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from theme.core import config
from theme.core.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
PAGES = sorted((REPO / "docs").rglob("*.md")) + [REPO / "README.md"]


@functools.cache
def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_docs", REPO / "scripts/gen_docs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def test_the_generated_references_are_what_the_code_says_now():
    gen = _generator()
    stale = [path.relative_to(REPO).as_posix() for path, text in gen.generated().items()
             if not path.is_file() or path.read_text(encoding="utf-8") != text]
    assert stale == [], f"{', '.join(stale)} differ from the code; run: {gen.COMMAND}"


def test_every_key_has_a_meaning():
    """A key without a `metadata["doc"]` would be a row without a meaning in the reference."""
    gen = _generator()
    missing = [f"{t.header} {f.name}" for t in gen.tables() for f in config.keys(t.cls) if not f.metadata.get("doc")]
    step_keys = set(config.STEP_ACTIONS) | {o for opts in config.STEP_ACTIONS.values() for o in opts}
    missing += [f"step {k}" for k in sorted(step_keys - set(config.STEP_DOCS))]
    assert missing == [], "give each a metadata={'doc': ...} in theme/core/config.py (STEP_DOCS for a step)"


# ---------------------------------------------------------------- keys the pages name


def _tables() -> dict[str, set[str]]:
    """Each table header of the config (without brackets) and the keys theme reads in it."""
    out = {t.header.strip("[]"): {f.name for f in config.keys(t.cls)} for t in _generator().tables()}
    out["tool.theme"].add("visual")
    return out


def _all_keys() -> set[str]:
    steps = set(config.STEP_ACTIONS) | {o for opts in config.STEP_ACTIONS.values() for o in opts} | {"condition"}
    return set().union(*_tables().values()) | steps


def _table_of(header: str) -> str:
    """A header as written in the docs, a region key's tolerance (`<region-key>` or a name) as its table."""
    name = header.strip("[]")
    parent, _, last = name.rpartition(".")
    if parent == "tool.theme.visual.tolerance" and last not in _tables()[parent]:
        return parent
    return name


def _code_spans(text: str) -> list[str]:
    """The inline code of a Markdown page, fenced blocks left out."""
    prose = re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.S | re.M)
    return re.findall(r"`([^`\n]+)`", prose)


def _toml_blocks(text: str) -> list[str]:
    return re.findall(r"^ *```toml\n(.*?)^ *```", text, flags=re.S | re.M)


@functools.cache
def _theme_source() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "theme").rglob("*.py"))


def named_keys(text: str) -> list[tuple[str, str | None]]:
    """The (table, key) pairs a page's inline code names: `[tool.theme.visual] root`, a table alone
    (`[tool.theme.visual.browser]`: key None), an assignment (`tile_height = 16384`: table "", any),
    and a `snake_case` word that is no name in theme's code (table "", any). The rule is simple
    so it stays true: config keys are snake_case, and a word theme's code has is a name there."""
    source = _theme_source()
    out: list[tuple[str, str | None]] = []
    for span in _code_spans(text):
        header = re.match(r"^(\[\[?tool\.theme[\w.<>-]*\]\]?)\s*(\w+)?$", span)
        if header:
            out.append((_table_of(header[1]), header[2]))
            continue
        try:
            assigned = tomllib.loads(span)
        except tomllib.TOMLDecodeError:
            assigned = {}
        if len(assigned) == 1 and re.fullmatch(r"[a-z][\w-]*", next(iter(assigned))):  # not `CI=true`
            out.append(("", next(iter(assigned))))
        elif re.fullmatch(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", span) and not re.search(rf"\b{span}\b", source):
            out.append(("", span))
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_config_key_a_page_names_in_code_is_one_theme_reads(page: Path):
    tables, everything = _tables(), _all_keys()
    wrong = []
    for table, key in named_keys(page.read_text(encoding="utf-8")):
        if table and table not in tables:
            wrong.append(f"[{table}] is no table of [tool.theme]; known: {', '.join(sorted(tables))}")
        elif key is not None and key not in (tables[table] if table else everything):
            wrong.append(f"`{key}`" + (f" in [{table}]" if table else "") + " is no key theme reads")
    assert wrong == [], f"{page.relative_to(REPO)}: see docs/reference/configuration.md for the keys"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_toml_block_of_tool_theme_is_a_config_theme_accepts(page: Path):
    """A snippet a reader pastes is read by theme's own reader, which refuses an unknown key."""
    for block in _toml_blocks(page.read_text(encoding="utf-8")):
        data: dict[str, Any] = tomllib.loads(block)
        table = data.get("tool", {}).get("theme")
        if table is None:
            continue
        try:
            config.parse(table, source=page, text=block)
        except ConfigError as err:
            raise AssertionError(f"{page.relative_to(REPO)}: a TOML block theme refuses: {err}\n{block}") from None


def test_the_key_rule_sees_a_wrong_key():
    """The rules above are not vacuous: a misspelt key in prose or in a TOML block is found."""
    found = named_keys("set `tile_heigth = 8192`, `settle_timout`, `[tool.theme.visual] rot`, "
                       "`[tool.theme.visual.tolerance.<region-key>]` and `[tool.theme.visuals]`")
    assert found == [("", "tile_heigth"), ("", "settle_timout"), ("tool.theme.visual", "rot"),
                     ("tool.theme.visual.tolerance", None), ("tool.theme.visuals", None)]
    right = named_keys("`settle_timeout`, `make_plan` and `tile_height = 8192`")  # a key, a name in theme/
    assert right == [("", "tile_height")] and "tile_height" in _all_keys()
    with pytest.raises(ConfigError, match="unknown key 'lane'"):
        config.parse(tomllib.loads("[tool.theme.visual.browser]\nlane = 2\n")["tool"]["theme"],
                     source=REPO / "pyproject.toml")


# ---------------------------------------------------------------- the site


def test_the_readme_links_to_pages_and_headings_that_exist():
    """The README is outside the site, so the strict build does not see its links into docs/."""
    anchor = _generator().anchor
    wrong = []
    for target, fragment in re.findall(r"\]\((docs/[^)#]*)(?:#([^)]+))?\)", (REPO / "README.md").read_text()):
        path = REPO / target
        if not path.exists():
            wrong.append(target)
        elif fragment and fragment not in {anchor(h) for h in re.findall(r"^#+ (.+)$", path.read_text(), re.M)}:
            wrong.append(f"{target}#{fragment}")
    assert wrong == [], "README.md links to pages or headings that do not exist"



def test_the_site_builds_strictly(tmp_path: Path):
    """`mkdocs build --strict`: a link to a page or a heading that does not exist, a page left out
    of the navigation, or a bad mkdocs.yml fails."""
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.fail("mkdocs and mkdocs-material are in the test extra: pip install -e '.[test]'")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's notice of its successor, on every build
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(REPO / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")],
                          capture_output=True, text=True, env=env, cwd=REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site/reference/configuration/index.html").is_file()
