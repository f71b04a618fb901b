"""The manual's architecture page names every module of theme/, one line each, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs/architecture.md"


def layout_listing() -> list[str]:
    """The module paths the page's "Every module" listing names (the first word of each line)."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## Every module\n"):]
    section = section[:section.find("\n## ", 5)] if "\n## " in section[5:] else section
    blocks = re.findall(r"```(?:text)?\n(.*?)```", section, re.S)
    listing = next(b for b in blocks if "__main__.py" in b)
    return [line.split()[0] for line in listing.splitlines() if line.strip()]


def test_every_module_is_named_once_and_every_name_is_a_module():
    named = layout_listing()
    modules = sorted(p.relative_to(REPO / "theme").as_posix() for p in (REPO / "theme").rglob("*.py")
                     if "__pycache__" not in p.parts)
    assert len(named) == len(set(named)), [n for n in named if named.count(n) > 1]
    assert sorted(named) == modules, f"{PAGE.relative_to(REPO)}, \"Every module\": list each module of theme/ once"
