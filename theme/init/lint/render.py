"""What a page's scripts supply, learned by loading it once in a real Chromium (theme.capture):
the stylesheets present after load (document, adopted, inside shadow roots), the class names
on its rendered DOM, the classes its scripts write or look up (script_classes.py: a runtime's
own markup, drawn now or already in a pre-rendered page) and the scripts that were blocked.
Served from 127.0.0.1 with the capture's routing; nothing leaves the machine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping
from urllib.parse import unquote, urlsplit

from ...core.config import VisualConfig
from ...core.errors import LintError, ThemeError
from . import cache
from .css import ClassDef, parse_sheet
from .model import display
from .script_classes import classes_in_script
from .sources import Sources

if TYPE_CHECKING:
    from ...capture.naming import Variant
    from ...capture.server import LocalServer
    from ...capture.session import Session

# Chromium keeps 250 Resource Timing entries unless a page asks for more; a page that fetched
# that many may have fetched more than the list shows, so its render is not cached.
RESOURCE_BUFFER = 250


@dataclass
class Rendered:
    """One page as its scripts left it."""

    defined: dict[str, ClassDef] = field(default_factory=dict)
    sheets: int = 0  # stylesheets the static read did not see
    hosts: list[str] = field(default_factory=list)  # where they were (document, shadow root of <d-math>…)
    dom_classes: set[str] = field(default_factory=set)
    script_classes: set[str] = field(default_factory=set)  # written or looked up by its scripts
    blocked: list[str] = field(default_factory=list)  # scripts the render aborted (no `route` covers them)
    cached: bool = False  # taken from the cache: no file it loaded has changed since

    def to_json(self) -> dict[str, Any]:
        return {"defined": {n: str(d.path) for n, d in sorted(self.defined.items())}, "sheets": self.sheets,
                "hosts": self.hosts, "dom_classes": sorted(self.dom_classes),
                "script_classes": sorted(self.script_classes), "blocked": self.blocked}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Rendered":
        return cls({n: ClassDef(n, Path(label), 0, 0) for n, label in data["defined"].items()}, data["sheets"],
                   data["hosts"], set(data["dom_classes"]), set(data["script_classes"]), data["blocked"], cached=True)


def render(pages: Mapping[Path, tuple[Path, Sources]], route: Mapping[str, Path]) -> dict[Path, Rendered]:
    """{page: Rendered} for pages = {page: (site root, its static Sources)}: one browser a root,
    none for a page whose earlier render is still good (cache.py)."""
    from ...capture import Session, variants

    out: dict[Path, Rendered] = {}
    by_root: dict[Path, list[Path]] = {}
    for page, (root, _) in pages.items():
        known = cache.load(page, root, route)
        if known is not None:
            out[page] = Rendered.from_json(known)
        else:
            by_root.setdefault(root, []).append(page)
    for root, group in by_root.items():
        names = tuple(page.resolve().relative_to(root.resolve()).as_posix() for page in group)
        visual = VisualConfig(root=root, pages=names, viewports={"desktop": (1280, 800)},
                              color_schemes=("light",), route=dict(route))
        try:
            with Session(visual) as session:
                for page, variant in zip(group, variants(visual), strict=True):
                    out[page], inputs = _read(session, variant, pages[page][1], route)
                    if inputs is not None:
                        cache.store(page, root, route, inputs, out[page].to_json())
        except LintError:
            raise
        except ThemeError as err:
            raise LintError(f"{err}; or lint without rendering: theme lint --no-render") from None
    return out


def _read(session: Session, variant: Variant, static: Sources,
          route: Mapping[str, Path]) -> tuple[Rendered, list[Path] | None]:
    """What the page's scripts left, and the files it loaded (None: too many to be sure of)."""
    from ...capture import scripts
    from ...capture.readiness import LINT, settle

    with session.loaded(variant) as job:
        # Done as lint has it (theme/capture/readiness.py, settle in mode LINT): what runtimes
        # fetch after the load event (Distill's bibliography) may still add sheets. A page that
        # never gets there within the mode's timeout is read as it is.
        settle(job.page, job.lane, LINT)
        found: dict[str, Any] = job.page.evaluate(scripts.COLLECT)  # collect.js's answer
        blocked = sorted(url for url in found["scripts"] if url in job.aborted)
    server = session.server
    assert server is not None  # started by session.loaded()
    rendered = Rendered(dom_classes=set(found["classes"]), blocked=blocked)
    rendered.script_classes = _script_classes(server, found["scripts"], found["inline"], route)
    for sheet in found["sheets"]:
        if sheet["again"]:
            continue  # the same rules as a sheet already read
        text, label = _new_sheet(server, sheet, static, route)
        if text is None:
            continue
        try:
            classes = parse_sheet(text, Path(label)).classes
        except LintError:
            continue  # the browser's own serialisation; a rule tinycss2 rejects defines nothing we can use
        rendered.sheets += 1
        if sheet["where"] not in rendered.hosts:
            rendered.hosts.append(sheet["where"])
        for name in classes:
            rendered.defined.setdefault(name, ClassDef(name, Path(label), 0, 0))
    resources = found["resources"]
    inputs = None if len(resources) >= RESOURCE_BUFFER else _files(server, resources, route)
    return rendered, inputs


def _script_classes(server: LocalServer, urls: list[str], inline: list[str], route: Mapping[str, Path]) -> set[str]:
    """The classes the page's scripts write or look up: inline ones, and each served or
    routed file (a blocked one has no text: the page says so through Rendered.blocked)."""
    found: set[str] = set()
    for text in inline:
        found |= classes_in_script(text)
    for path in _files(server, sorted(set(urls)), route):
        try:
            found |= classes_in_script(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue  # a missing script defines nothing
    return found


def _files(server: LocalServer, urls: list[str], route: Mapping[str, Path]) -> list[Path]:
    """The local files behind fetched URLs: served ones (a missing one too: creating it changes
    what the page gets) and routed ones. Aborted remote requests have no file."""
    from ...capture.lanes import routed_file

    files: list[Path] = []
    for url in urls:
        if url.startswith(server.origin + "/"):
            path = unquote(urlsplit(url).path).lstrip("/")
            files.append(server.local_file(url) or Path(os.path.normpath(server.root / path)))
        else:
            matched, local = routed_file(route, url)
            if matched and local is not None:
                files.append(local)
    return files


def _new_sheet(server: LocalServer, sheet: dict[str, Any], static: Sources,
               route: Mapping[str, Path]) -> tuple[str | None, str]:
    """(css text, label) of a sheet the static read missed; (None, "") for one it already read.
    A cross-origin sheet's rules are hidden from the page: a routed one is read from its file."""
    from ...capture.lanes import routed_file

    href = sheet["href"]
    local = (server.local_file(href) or routed_file(route, href)[1]) if href else None
    if local is not None and local.resolve() in static.files:
        return None, ""
    if sheet["style"] is not None and sheet["where"] == "document" and sheet["style"] in static.style_texts:
        return None, ""
    label = f"rendered: {display(local) if local else href or sheet['where']}"
    if sheet["css"] is None and local is not None:
        return local.read_text(encoding="utf-8", errors="replace"), label
    return sheet["css"], label
