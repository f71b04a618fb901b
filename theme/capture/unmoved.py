"""Freezing never moves the layout: what the UNMOVED guard (scripts.py) found while a
page was frozen, turned into a refusal.

Each freezing step (FREEZE_VIEW, FREEZE, PIN_WIDTH) compares every element's box
before and after its change, in one synchronous task, so a difference is the
step's own doing. The known causes are fixed in the steps themselves; a move
that is left is refused, not fixed up: undoing the step would unfreeze the page
(an animated GIF would animate, a fixed footer land at the page's bottom), and
keeping the move would record a page no reader sees, shifted from there down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.errors import CaptureError
from . import scripts
from .bounded import evaluate
from .model import JsonObject

if TYPE_CHECKING:
    from playwright.sync_api import Page

SHOWN = 3  # elements named in the message


def check_unmoved(page: Page, where: str) -> dict[str, float]:
    """Raise CaptureError when a freezing step moved or resized an element or the page;
    else return what the guard's looks cost ({"looks", "elements", "ms"}, for --explain)."""
    found = evaluate(page, scripts.UNMOVED_FOUND) or {}
    if found.get("moved"):
        raise CaptureError(moved_message(where, found["moved"]))
    return {k: round(found.get(k, 0), 1) for k in ("looks", "elements", "ms")}


def moved_message(where: str, moved: JsonObject) -> str:
    """One line: the step, the first elements it moved and by how much, the page size."""
    first = [f"{name} {_by(d)}" for name, *d in moved["first"][:SHOWN]]
    more = moved["count"] - len(first)
    parts = [", ".join(first) + (f" and {more} more" if more > 0 else "")] if first else []
    (w0, h0), (w1, h1) = moved["before"], moved["after"]
    if (w0, h0) != (w1, h1):
        past = moved.get("past") or []
        parts.append(f"the page from {w0}×{h0} to {w1}×{h1} px"
                     + (f" ({', '.join(past)} now reaching past its old size)" if past else ""))
    return (f"{where}: freezing the page for its capture moved its layout while {moved['step']}: "
            f"{'; '.join(parts)}; the image would not be the page a reader sees, so none is taken. "
            "This is a bug in theme's capture engine: please report it with the page")


def _by(d: list[float]) -> str:
    """'moved (dx, dy) px' and/or 'resized (dw, dh) px', whichever changed."""
    dx, dy, dw, dh = d
    out = []
    if dx or dy:
        out.append(f"moved ({dx:+g}, {dy:+g}) px")
    if dw or dh:
        out.append(f"resized ({dw:+g}, {dh:+g}) px")
    return " and ".join(out)
