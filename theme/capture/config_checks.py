"""Mistakes in [tool.theme.visual] that the capture finds, as ConfigErrors that point
at the key's `file:line:col`: before a browser starts (check_config), and selectors
the browser could not parse (check_selectors)."""

from __future__ import annotations

from pathlib import Path

from ..core.config import VisualConfig, key_position
from ..core.errors import ConfigError
from .model import JsonObject
from .server import resolve


def config_position(source: Path | None, key: str) -> str:
    """`file:line:col` of `key` in the config file when known, else the table name."""
    if source is None:
        return "[tool.theme.visual]"
    # A key the file does not set yet is pointed at the table to add it to.
    return key_position(Path(source), key, table="tool.theme.visual")


def check_config(visual: VisualConfig, source: Path | None = None) -> None:
    """Fail before starting a browser on what the config alone shows is wrong."""
    def at(key: str) -> str:
        return config_position(source, key)

    if not visual.root.is_dir():
        raise ConfigError(f"{at('root')}: root {visual.root} is not a folder; build the article or fix root")
    for page in visual.pages:
        if resolve(visual.root, "/" + page.lstrip("/")) is None:
            raise ConfigError(f"{at('pages')}: page {page!r} is not a file under {visual.root}; fix pages")
    if visual.style is not None and not visual.style.is_file():
        raise ConfigError(f"{at('style')}: style {visual.style} does not exist; create it or remove style")
    for prefix, target in visual.route.items():
        if not Path(target).exists():
            raise ConfigError(f"{at('route')}: route {prefix!r} maps to {target}, which is neither a folder "
                              "nor a file; create it or fix the route")


def check_selectors(source: Path | None, bad: JsonObject | None) -> None:
    """ConfigError naming the config key of a selector the browser could not parse
    (`bad`: what scripts.FREEZE returned, or None when every selector parsed)."""
    if bad:
        what = "mask" if bad["where"] == "mask" else f"region {bad['where']!r}"
        raise ConfigError(
            f"{config_position(source, bad['where'])}: {what}: {bad['selector']!r} "
            "is not a valid CSS selector; fix the selector"
        )
