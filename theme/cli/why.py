"""`theme why ID`: one failed image of the last report, explained: its style diff, its box
diff, the group of failures it belongs to (theme/check/causes.py) and its artefacts."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..core.errors import ConfigError
from . import LoadConfig, main, project_options

if TYPE_CHECKING:
    from ..check.causes import Group
    from ..check.entry import Entry

# A visual item's pytest id: `index[desktop-dark]::note-box/memory-usage`, `index[mobile-light]::page`
PYTEST_ID = re.compile(r"(?P<page>[^\[\]]+)\[(?P<variant>[^\[\]]+)\]::(?P<name>.+)")


@main.command("why")
@click.argument("item", required=False)
@click.option("--report", "folder", type=click.Path(file_okay=False, path_type=Path),
              help="The report folder to read (default: [tool.theme.visual] report).")
@click.option("--list", "listing", is_flag=True, help="List the ids of the report's failed images.")
@project_options
def why(load_config: LoadConfig, item: str | None, folder: Path | None, listing: bool) -> None:
    """Explain one failed image of the last run: its style and box diff, its group, its files."""
    from ..check.entry import cause_groups

    folder = folder or _default_folder(load_config)
    entries = _failed(folder)
    if listing or item is None:
        for e in entries:
            click.echo(pytest_id(e.key))
        return
    key = key_of(item)
    entry = next((e for e in entries if e.key == key), None)
    if entry is None:
        raise ConfigError(f"{folder / 'report.json'}: no failed image {item!r} in the last report; "
                          f"list them with `theme why --list`")
    for line in explain(entry, cause_groups(entries), folder):
        click.echo(line)


def _default_folder(load_config: LoadConfig) -> Path:
    cfg = load_config()
    return cfg.visual.report if cfg.visual is not None else cfg.project_dir / "visual-report"


def _failed(folder: Path) -> list[Entry]:
    from ..core.status import Status
    from ..review import report

    path = folder / "report.json"
    try:
        rep = report.from_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no report there; run the visual checks (pytest) first, "
                          "or pass --report DIR") from None
    except (ValueError, KeyError, TypeError) as err:
        raise ConfigError(f"{path}: not a theme report ({err}); run the visual checks again") from None
    return sorted((e for e in rep.entries if e.status is Status.FAILED), key=lambda e: e.key)


def key_of(item: str) -> str:
    """A baseline key from a pytest id (`index[desktop-dark]::note-box/memory-usage`) or a key."""
    m = PYTEST_ID.fullmatch(item)
    return item if m is None else f"{m['page']}/{m['variant']}/{m['name']}.png"


def pytest_id(key: str) -> str:
    """How pytest names the item of `key`: `index[desktop-dark]::note-box/memory-usage`."""
    parts = key[:-len(".png")].split("/")
    return f"{parts[0]}[{parts[1]}]::{'/'.join(parts[2:])}" if len(parts) >= 3 else key


def explain(entry: Entry, groups: list[Group], folder: Path) -> list[str]:
    """What `theme why` prints for one failed image."""
    from ..baselines.style_record import no_style, phrase, style_changes
    from ..check.causes import explain as sentence
    from ..check.entry import ARTEFACT_KINDS

    lines = [f"{pytest_id(entry.key)}  ({entry.key})"]
    mine = next((g for g in groups if entry.key in g.ids), None)
    item = next((i for i in mine.items if i.id == entry.key), None) if mine else None
    if item is not None and mine is not None:
        lines.append(f"why:    {sentence(item, groups)}")
    changes = style_changes(entry.changes())
    if changes:
        lines += [f"style:  {phrase([c], 1)}" for c in changes]
    elif entry.region_key:
        lines.append("style:  " + (no_style(entry.texts) if entry.why
                                   else "no style record for its baseline (--update-snapshots=all records it)"))
    lines.append(f"box:    {_box(entry)}")
    if mine is not None:
        lines.append(f"group:  {mine.number} of {len(groups)}: {mine.summary}")
    lines += [f"{kind + ':':<8} {_path(folder, entry.images[kind])}" for kind in ARTEFACT_KINDS
              if kind in entry.images]
    lines += [f"band:   {_path(folder, b['images']['diff'])}" for b in entry.bands if "diff" in b.get("images", {})]
    return lines


def _box(entry: Entry) -> str:
    from ..baselines.style_record import number

    before, after = entry.expected_box, entry.box
    if before is None or after is None:
        return "whole page" if not entry.region_key else "not recorded"
    sides = zip(("x", "y", "width", "height"), before, after, strict=True)
    parts = [f"{name} {number(b)} → {number(a)} px" for name, b, a in sides if round(b, 2) != round(a, 2)]
    return ", ".join(parts) or "the same"


def _path(folder: Path, path: str) -> str:
    return str(Path(path) if Path(path).is_absolute() else folder / path)
