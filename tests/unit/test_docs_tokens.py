"""The manual's SCSS page documents every token of the library with its real default: the tables
between the token-tables markers are exactly what scripts/token_table.py makes now."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs/scss.md"


def _script():
    spec = importlib.util.spec_from_file_location("token_table", REPO / "scripts/token_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_token_tables_are_current():
    script = _script()
    page = PAGE.read_text()
    start, end = page.index(script.START), page.index(script.END) + len(script.END)
    assert page[start:end] == script.tables(), "run: python scripts/token_table.py --write"


def test_every_token_and_role_has_a_row():
    page = PAGE.read_text()
    lib = REPO / "theme/stylesheet/scss/theme/tokens"
    names = {n for f in lib.glob("*.scss") for n in re.findall(r"^\$([\w-]+)\s*:", f.read_text(), re.M)}
    roles = {k for f in (lib / "_light.scss", lib / "_typography.scss")
             for k in re.findall(r'^\s*"([\w-]+)":', f.read_text(), re.M)}
    assert len(names) > 80 and len(roles) > 50
    missing = [f"${n}" for n in names - {"light-roles", "dark-roles", "typography-roles"}
               if f"| `${n}` (" not in page]
    missing += [r for r in roles if f"| `{r}` |" not in page]
    assert missing == []
