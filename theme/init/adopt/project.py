"""The project's pyproject.toml: its visual config, if any, and `entry`/`outputs` set with
tomlkit so that every other byte of the file stays as it was."""

from __future__ import annotations

from pathlib import Path

import tomlkit

from ...core.config import PYPROJECT, VisualConfig, load
from ...core.fsutil import atomic_write_text


def visual_config(root: Path) -> VisualConfig | None:
    """`[tool.theme.visual]` of root/pyproject.toml when it has one (its route, mask, settling)."""
    path = root / PYPROJECT
    if not path.is_file() or "[tool.theme" not in path.read_text(encoding="utf-8"):
        return None
    return load(path).visual


def set_build(path: Path, entry: str, outputs: list[str]) -> None:
    """Set [tool.theme] entry and outputs; create the file or the tables when absent."""
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    doc = tomlkit.parse(text)
    tool = doc.get("tool")
    if tool is None:
        tool = tomlkit.table(is_super_table=True)
        doc["tool"] = tool
    theme = tool.get("theme")
    if theme is None:
        theme = tomlkit.table()
        tool["theme"] = theme
    theme["entry"] = entry
    array = tomlkit.array()
    array.extend(outputs)
    theme["outputs"] = array
    atomic_write_text(path, tomlkit.dumps(doc))
