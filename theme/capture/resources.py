"""What a render depends on, and whether it got it.

A page whose own scripts, stylesheets or web fonts did not load is not the page its
author published: without the Distill runtime an article is unstyled HTML, without a
web font every line is set in the fallback face. Such a render must never pass or
become a baseline, so the lanes record every request that got nothing usable
(`Missed`) and `broken` picks those a render depends on; `explain` says in one line
which URL, who asked for it (an element at `file:line:col`, an @import or @font-face
rule) and what fixes it. Images, frames and media keep their old treatment: blocked,
listed and masked by `theme init`, because their box keeps its place without them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .model import JsonObject

# Playwright's resource types a render depends on (module imports are "script",
# CSS @import "stylesheet").
ESSENTIAL = frozenset({"script", "stylesheet", "font"})
BLOCKED = "blocked"  # offline: not on 127.0.0.1 and no route serves it
NOT_IN_ROUTE = "not in its route's folder"  # a route prefix matched but has no such file

_NOUN = {"script": "script", "stylesheet": "stylesheet", "font": "web font"}


@dataclass(frozen=True)
class Missed:
    """A request that got nothing usable."""

    url: str
    kind: str  # Playwright's resource type: script, stylesheet, font, image, fetch, …
    why: str  # BLOCKED, NOT_IN_ROUTE, "HTTP 404", or the network error ("net::ERR_…")


def allowed(url: str, allow: tuple[str, ...], origin: str) -> bool:
    """Whether `allow_blocked` names `url`: an entry is a URL prefix, or a path under
    the served root ("assets/old.js", "/assets/") for the page's own files."""
    for entry in allow:
        if url.startswith(entry):
            return True
        if url.startswith(origin + "/") and not re.match(r"^[a-z][a-z0-9+.-]*:", entry):
            if url[len(origin):].startswith("/" + entry.lstrip("/")):
                return True
    return False


def broken(missed: dict[str, Missed], allow: tuple[str, ...], origin: str) -> list[Missed]:
    """The requests a render depended on that did not load and are not allowed to fail, by URL."""
    return sorted((m for m in missed.values() if m.kind in ESSENTIAL and not allowed(m.url, allow, origin)),
                  key=lambda m: m.url)


def explain(first: Missed, asker: JsonObject | None, *, page: str, root: Path, origin: str,
            route_at: str, allow_at: str, more: int) -> str:
    """One line: what did not load and why, who asked for it, what to do."""
    what = _NOUN.get(first.kind, first.kind)
    why = {BLOCKED: "it was blocked (not on 127.0.0.1 and no `route` serves it)",
           NOT_IN_ROUTE: "its `route` has no such file"}.get(first.why, f"it failed ({first.why})")
    others = f" (and {more} more)" if more else ""
    local = first.url.startswith(origin + "/")
    fix = (f"add the file under {root}, or fix the reference" if local and first.why != BLOCKED else
           f"run `theme init` again to vendor it, or fix `route` in {route_at}" if first.why == NOT_IN_ROUTE else
           f"serve it from a local copy with `route` in {route_at} (`theme init` vendors what a package "
           "registry has)")
    return (f"the page's {what} {_short(first.url, origin)} did not load: {why}; asked for by "
            f"{asked_by(asker, page=page, root=root, origin=origin)}{others}. This render is not the page as "
            f"published, so it is not checked and no baseline is written: {fix}, or list it in allow_blocked "
            f"({allow_at}) to block it on purpose")


def _short(url: str, origin: str) -> str:
    return url[len(origin):] if url.startswith(origin + "/") else url


def asked_by(asker: JsonObject | None, *, page: str, root: Path, origin: str) -> str:
    """Who asked for a URL (scripts.WHO_ASKED's answer), with `file:line:col` when the
    page's own HTML or a local stylesheet says it."""
    if not asker:
        return "the page's scripts (a fetch, a module import or an element since removed)"
    if asker["how"] == "element":
        tag = f"<{asker['tag']} {asker['attr']}>"
        if asker.get("inShadow"):
            return f"a {tag} in the shadow root of <{asker['host']}>, made by the page's scripts"
        at = position(root / page, asker["attr"], asker["value"])
        return f"a {tag} at {at}" if at else f"a {tag} the page's scripts inserted"
    sheet = asker.get("sheet", "")
    local = _local_file(sheet, root, origin)
    where = local.relative_to(root).as_posix() if local else sheet
    if local:
        at = position(local, None, asker["value"])
        where = at or where
    if asker["how"] == "import":
        return f"an @import in {where}"
    return f"@font-face \"{asker.get('family', '')}\" in {where}"


def _local_file(url: str, root: Path, origin: str) -> Path | None:
    if not url.startswith(origin + "/"):
        return None
    rel = unquote(urlsplit(url[len(origin):]).path).lstrip("/")
    path = root / rel
    return path if rel and path.is_file() else None


def position(path: Path, attr: str | None, value: str) -> str | None:
    """`path:line:col` of the first `attr="value"` (or of `value` alone when attr is
    None) in the file, or None when the file does not say it."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if attr is None:
        index = text.find(value)
    else:
        m = re.search(rf"\b{re.escape(attr)}\s*=\s*[\"']?{re.escape(value)}", text)
        index = m.start() if m else -1
    if index < 0:
        return None
    line = text.count("\n", 0, index) + 1
    col = index - (text.rfind("\n", 0, index) + 1) + 1
    return f"{path}:{line}:{col}"
