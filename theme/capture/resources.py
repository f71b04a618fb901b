"""What a render depends on, and whether it got it.

A page whose own scripts, stylesheets or web fonts did not load is not the page its
author published: without the Distill runtime an article is unstyled HTML, without a
web font every line is set in the fallback face. Such a render must never pass or
become a baseline, so the lanes record every request that got nothing usable
(`Missed`) and `broken` picks those a render depends on; `refusal` names each of them
on a line of its own: which URL, who asked for it (an element at `file:line:col`, an
@import or @font-face rule), then what fixes them. A run says a page's list once
(`PerPage`), however many of its variants and states are refused. Images, frames and
media keep their old treatment: blocked, listed and masked by `theme init`, because
their box keeps its place without them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import unquote, urlsplit

from .cdn import Library, lookup  # the one table of CDN hosts

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


# A refusal's lines after its first (theme.pytest_plugin.compact_block keeps them): one per
# resource, then what would fix them, one line per remedy they share.
ITEM, FIX, OR = "  - ", "  fix: ", "  or: "


@dataclass(frozen=True)
class Blocked:
    """One resource a refusal names: its line (what, why, who asked) and the remedy it
    shares with others (`fix`: a kind and what the words need, see _fix)."""

    url: str
    line: str
    fix: tuple[str, ...]
    package: str = ""  # "d3@4": what `theme init` would vendor for it


@dataclass(frozen=True)
class Refusal:
    """Why a variant's render was refused: every resource of the page it depends on that
    did not load, each once. Kept on the Failure (plain data: it crosses pytest-xdist's
    workers) so that a run says a page's list once (PerPage)."""

    where: str  # the variant, as messages name it (model.label)
    page: str
    blocked: tuple[Blocked, ...]
    allow_at: str  # file:line of allow_blocked

    def message(self, only: tuple[Blocked, ...] | None = None, besides: tuple[str, int] | None = None) -> str:
        """The refusal: a first line, one line per resource, then what to do. `only` the
        resources not said before, `besides` (the variant they were named at, how many)."""
        shown = self.blocked if only is None else only
        n = len(shown)
        what = f"{n} resource{'s' if n > 1 else ''} the page needs"
        if besides is not None and besides[1]:
            what = f"{n} more resource{'s' if n > 1 else ''} the page needs (besides the {besides[1]} named at " \
                   f"{besides[0]})"
        lines = [f"{self.where}: {what} did not load, so this render is not the page as published: it is not "
                 "checked and no baseline is written"]
        lines += [ITEM + b.line for b in shown]
        groups: dict[tuple[str, ...], list[Blocked]] = {}
        for b in shown:
            groups.setdefault(b.fix, []).append(b)
        lines += [FIX + _fix(key, group) for key, group in groups.items()]
        them = "them" if n > 1 else "it"
        lines.append(f"{OR}list {them} in allow_blocked ({self.allow_at}) if the page is fine without {them}")
        return "\n".join(lines)

    def again(self, first: str, said: set[str]) -> str:
        """The refusal of another variant of a page whose resources `first` named (`said`):
        one line, or the list of those not named yet."""
        new = tuple(b for b in self.blocked if b.url not in said)
        if new:
            return self.message(new, (first, len(self.blocked) - len(new)))
        n = len(self.blocked)
        which = (f"the same {n} resource{'s' if n > 1 else ''}" if n == len(said) else
                 f"{n} of the resource{'s' if len(said) > 1 else ''}")
        return (f"{self.where}: not checked, no baseline written: {which} the page needs did not load, named with "
                f"what to do at {first}")


class PerPage:
    """Says a page's blocked resources once in a run: the first variant refused (in the
    run's order, the same in every pytest-xdist worker) names them all with what to do;
    the page's other variants and states point at it in one line, naming only what it
    did not. Eight variants and states of one page are one list, not eight."""

    def __init__(self) -> None:
        self._said: dict[str, tuple[str, set[str]]] = {}  # page -> (variant that named them, URLs named)

    def message(self, refusal: Refusal) -> str:
        seen = self._said.get(refusal.page)
        if seen is None:
            self._said[refusal.page] = (refusal.where, {b.url for b in refusal.blocked})
            return refusal.message()
        text = refusal.again(seen[0], seen[1])
        seen[1].update(b.url for b in refusal.blocked)
        return text


@dataclass(frozen=True)
class Hints:
    """What is known when choosing what to say to do about a resource: where the config
    keys are, the `route`s, and whether `theme init` has run (vendor/VENDORED.md) and
    which route prefixes it wrote."""

    root: Path
    route: dict[str, Path]
    route_at: str
    allow_at: str
    init_ran: bool = False
    owned: frozenset[str] = frozenset()  # the route prefixes vendor/VENDORED.md names

    @classmethod
    def of(cls, project: Path | None, root: Path, route: dict[str, Path], route_at: str, allow_at: str) -> Hints:
        vendored = project / "vendor/VENDORED.md" if project is not None else None
        text = ""
        if vendored is not None and vendored.is_file():
            text = vendored.read_text(encoding="utf-8", errors="replace")
        owned = frozenset(re.findall(r"`(https?://[^`\s]+)`", text))  # as theme/init/plan.py reads them
        return cls(root, dict(route), route_at, allow_at, init_ran=bool(vendored and vendored.is_file()),
                   owned=owned)


def refusal(bad: list[Missed], askers: Mapping[str, Any], *, where: str, page: str, origin: str,
            hints: Hints) -> Refusal:
    """The refusal of a render missing `bad` (by URL, broken()'s order), `askers` what
    scripts.WHO_ASKED said of them."""
    blocked = []
    for m in bad:
        what = _NOUN.get(m.kind, m.kind)
        why = {BLOCKED: "it was blocked (not on 127.0.0.1 and no `route` serves it)",
               NOT_IN_ROUTE: "its `route` has no such file"}.get(m.why, f"it failed ({m.why})")
        asker = asked_by(askers.get(m.url), page=page, root=hints.root, origin=origin)
        fix, package = _remedy(m, origin, hints)
        blocked.append(Blocked(m.url, f"the page's {what} {_short(m.url, origin)} did not load: {why}; asked for "
                                      f"by {asker}", fix, package))
    return Refusal(where, page, tuple(blocked), hints.allow_at)


def _remedy(m: Missed, origin: str, hints: Hints) -> tuple[tuple[str, ...], str]:
    """What would fix `m`, as a key its like share (see _fix), and the package init would vendor.

    `theme init` is only said where it can help: it has not run and knows a package for the
    address, or it wrote the route that should serve it (it fetches that again). Where init
    ran and left the address blocked, or knows no package for it, saying to run it sends the
    user back to a command that has said it cannot help: then a `route` to a copy, or init
    given the package (`--package NAME=PATH`)."""
    if m.url.startswith(origin + "/"):
        return ("local", str(hints.root)), ""
    if any(m.url.startswith(p) for p in hints.owned):
        return ("again",), ""
    if m.why == NOT_IN_ROUTE:
        prefix = next((p for p in sorted(hints.route, key=len, reverse=True) if m.url.startswith(p)), "")
        return ("folder", prefix, str(hints.route.get(prefix, "")), hints.route_at), ""
    lib = lookup(m.url)
    if m.why == BLOCKED and isinstance(lib, Library):
        package = f"{lib.name}@{lib.version}"
        if not hints.init_ran:
            return ("init",), package
        if not lib.bundled:
            return ("package", lib.name, lib.version, *_route_key(m.url, hints)), package
    return ("route", *_route_key(m.url, hints)), ""


def _route_key(url: str, hints: Hints) -> tuple[str, str, str]:
    """(the prefix to route, where, whether pyproject has a `route` already: then an entry is
    added to it, not a second `route =` key)."""
    return _prefix(url), hints.route_at, "entry" if hints.route else "key"


def _prefix(url: str) -> str:
    """The folder of `url`: the `route` prefix to suggest for it."""
    path = urlsplit(url)
    return f"{path.scheme}://{path.netloc}{path.path.rsplit('/', 1)[0]}/"


def _fix(key: tuple[str, ...], group: list[Blocked]) -> str:
    """What fixes the resources of `group`, which share the remedy `key`; each line names
    the files it is about (a page's list can need several remedies)."""
    them = "them" if len(group) > 1 else "it"
    files = ", ".join(urlsplit(b.url).path.rsplit("/", 1)[-1] for b in group)
    kind = key[0]
    if kind == "local":
        paths = ", ".join(unquote(urlsplit(b.url).path).lstrip("/") for b in group)
        return f"add {paths} under {key[1]}, or fix the reference"
    if kind == "again":
        return (f"run `theme init` again for {files}: it wrote the `route` that served {them} "
                "(vendor/VENDORED.md) and vendors it anew")
    if kind == "folder":
        return f"put {files} in {key[2]}, the folder its `route` {key[1]!r} ({key[3]}) serves, or fix that route"
    if kind == "init":
        packages = ", ".join(dict.fromkeys(b.package for b in group))
        return f"run `theme init` for {files}: it vendors {packages} and routes {them} there"
    prefix, at, how = key[-3:]
    route = (f'add `"{prefix}" = "FOLDER"` to the `route` at {at}' if how == "entry" else
             f'add `route = {{ "{prefix}" = "FOLDER" }}` to {at}') + f", FOLDER holding {them}"
    if kind == "package":
        return (f"serve {files} from a local copy: {route}; or vendor {key[1]}@{key[2]} from a tarball or "
                f"folder of it with init's `--package {key[1]}=PATH`")
    return f"serve {files} from a local copy: {route}"


def _short(url: str, origin: str) -> str:
    return url[len(origin):] if url.startswith(origin + "/") else url


def asked_by(asker: Mapping[str, Any] | None, *, page: str, root: Path, origin: str) -> str:
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
