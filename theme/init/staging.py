"""The packages of the libraries a page loads, staged whole in a temporary folder and routed
there while `theme init` surveys the page; then only the files the page loaded are vendored.

The survey serves every file of a package, so whatever the page loads, and whatever that
loads in turn (KaTeX's fonts, MathJax's components), is found; the lane records each URL a
route served, and those files alone, with the package's licence, go to vendor/.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..capture.cdn import Library, lookup
from ..capture.lanes import routed_file
from .errors import PackageUnavailable
from .vendor import Package, Vendored, fetch

# What to do about an address whose package could not be had, after the reason.
WHAT_TO_DO = ("pass --package {name}=PATH (a tarball or package folder of it), route the address to your own "
              "copy, or list it in allow_blocked")


@dataclass
class Staging:
    """Libraries routed to staged packages, beside the user's own routes (used as they are)."""

    folder: Path  # a temporary folder: one numbered subfolder per package
    local: dict[str, Path]  # --package NAME=PATH
    user_routes: dict[str, Path]
    libraries: dict[str, Library] = field(default_factory=dict)  # prefix → library routed
    packages: dict[tuple[str, str], Package] = field(default_factory=dict)  # Library.spec → package
    roots: dict[tuple[str, str], Path] = field(default_factory=dict)  # Library.spec → staged package root
    targets: dict[str, Path] = field(default_factory=dict)  # prefix → staged folder or file
    unserved: dict[str, str] = field(default_factory=dict)  # URL → why no package copy serves it, what to do
    failed: dict[tuple[str, str], str] = field(default_factory=dict)  # Library.spec → why it could not be had
    # Why the npm registry did not answer, once it did not: later packages are not asked
    # for (each would wait as long again), only taken from --package.
    registry_down: str | None = None

    def route(self) -> dict[str, Path]:
        """The survey's routes: the user's (those whose target exists: the others' URLs stay
        blocked, and are named), and each library's to its staged package."""
        return {**self.targets, **{p: t for p, t in self.user_routes.items() if t.exists()}}

    def add(self, urls: list[str]) -> bool:
        """Route the libraries that can serve some of the blocked `urls`; whether any was new."""
        added = False
        for url in urls:
            if url in self.unserved or routed_file(self.user_routes, url)[0]:
                continue  # a route of the user's answers for it, even with a 404
            lib = lookup(url)
            if isinstance(lib, str):  # a known host, but the address names no package version
                self.unserved[url] = lib
                continue
            if lib is None or lib.prefix in self.libraries or routed_file(self.targets, url)[0]:
                continue  # no package has it, or it is routed already (and the package has no such file)
            try:
                target = self._target(lib)
            except PackageUnavailable as err:
                self.failed[lib.spec] = str(err)
                if err.registry:  # said once, at the top of the plan
                    self.registry_down = self.registry_down or str(err)
                    self.failed[lib.spec] = f"npm {lib.name}@{lib.version}: the npm registry did not answer (above)"
                target = None
            if lib.spec in self.failed:
                gh = (f" (a GitHub address is served from npm only by {lib.repository}'s own package, {lib.name} at "
                      "that version)" if lib.repository and "not known" not in self.failed[lib.spec] else "")
                self.unserved[url] = f"{self.failed[lib.spec]}{gh}; {WHAT_TO_DO.format(name=lib.name)}"
                continue
            if target is None:
                version = self.packages[lib.spec].version
                self.unserved[url] = (f"{lib.name} {version} has no {lib.file or lib.find} in {lib.looked()}"
                                      if lib.look_in else f"{lib.name} {version} has no {lib.file}" if lib.file
                                      else f"{lib.name} {version} names no {lib.default} default file") + \
                    "; copy the file into the project and route its address there"
                continue
            self.libraries[lib.prefix], self.targets[lib.prefix] = lib, target
            added = True
        return added

    def _target(self, lib: Library) -> Path | None:
        """Where `lib`'s prefix is served from in the staged package (fetched once per spec)."""
        if lib.spec in self.failed:
            return None
        if lib.spec not in self.packages:
            local = self.local.get(lib.name)
            if self.registry_down and local is None and not lib.bundled:
                raise PackageUnavailable("not asked for", registry=True)
            package = fetch(lib, local)
            root = self.folder / str(len(self.packages))
            for rel, data in package.files.items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_bytes(data)
            self.packages[lib.spec], self.roots[lib.spec] = package, root
        package, root = self.packages[lib.spec], self.roots[lib.spec]
        if lib.look_in:  # the first folder that has the file: that file, or (a prefix route) that folder
            folder = lib.located(package.files)
            return None if folder is None else root / folder / lib.file
        if lib.file:
            return root / lib.file if lib.file in package.files else None
        if lib.default:
            default = package.default_file(lib.default)
            return root / default if default else None
        return root / lib.subdir if lib.subdir else root

    def vendored(self, routed: list[str]) -> list[Vendored]:
        """For each package some `routed` URL was served from: the files loaded, its licence,
        its folder under vendor/ and the routes to it (only those that served a file)."""
        loaded: dict[tuple[str, str], set[str]] = {}
        used: set[str] = set()
        route = self.route()
        for url in routed:
            _, local = routed_file(route, url)
            for spec, root in self.roots.items():
                if local is not None and local.is_relative_to(root):
                    loaded.setdefault(spec, set()).add(local.relative_to(root).as_posix())
                    used.update(p for p, lib in self.libraries.items()
                                if lib.spec == spec and routed_file({p: self.targets[p]}, url)[1] == local)
        out = []
        for spec in sorted(loaded):
            package = self.packages[spec]
            folder = self._folder(package)
            files = {rel: package.files[rel] for rel in sorted(loaded[spec] | set(package.licence_files))}
            routes = {p: self._vendored_target(lib, folder) for p, lib in sorted(self.libraries.items())
                      if lib.spec == spec and p in used}
            out.append(Vendored(package, folder, files, routes))
        return _merged(out)

    def _folder(self, package: Package) -> str:
        """vendor/<name>, or vendor/<name>@<version> when two versions of one package are routed."""
        versions = {p.version for p in self.packages.values() if p.name == package.name}
        return f"vendor/{package.name}" + (f"@{package.version}" if len(versions) > 1 else "")

    def _vendored_target(self, lib: Library, folder: str) -> str:
        staged = self.targets[lib.prefix]
        return f"{folder}/{staged.relative_to(self.roots[lib.spec]).as_posix()}".removesuffix("/.")


def _merged(rows: list[Vendored]) -> list[Vendored]:
    """One row per folder: two specs of one package that resolved to one version
    (katex@0.19 and katex@0.19.1) share their folder, files and routes."""
    by_folder: dict[str, Vendored] = {}
    for row in rows:
        old = by_folder.get(row.folder)
        by_folder[row.folder] = row if old is None else Vendored(
            old.package, row.folder, dict(sorted({**old.files, **row.files}.items())), {**old.routes, **row.routes})
    return [by_folder[f] for f in sorted(by_folder)]
