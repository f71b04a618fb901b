"""Libraries a page loads from a CDN, served from a copy of their package instead.

Which package an address names is the table of hosts in theme/capture/cdn.py (`lookup`); here
the package is had and what the page asks for is copied into vendor/.

An npm package comes from `npm pack` (npm's cache first) or from a local tarball or
package folder (`--package NAME=PATH`). Its integrity is the tarball's sha512, which is
what npm's dist.integrity is; a bundled file's is the file's own sha512.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import subprocess
import tarfile
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ..capture.cdn import DISTILL_NAME, DISTILL_VERSION, Library
from .errors import PackageUnavailable

# The Distill v2 runtime theme ships (its provenance: theme/init/distill/VENDORED.md).
DISTILL = Path(__file__).resolve().parent / "distill"
DISTILL_LICENCE = "Apache-2.0"
DISTILL_FILES = ("template.v2.js", "LICENSE")
BUNDLED = "bundled with theme"

# Where each CDN finds a package's default file (a URL without a file path): the first
# of these package.json fields that is a string, then index.js. As jsdelivr and unpkg
# document it; both also accept the name without ".js" and a folder's index.js.
DEFAULT_FIELDS = {"jsdelivr": ("jsdelivr", "browser", "main"), "unpkg": ("unpkg", "browser", "main")}
LICENCE_FILE = re.compile(r"(?i)(licen[cs]e|copying)(\.\w+)?")


def banner_version(data: bytes) -> str | None:
    """The version a built file's opening comment names (`// https://d3js.org v5.16.0 …`,
    `… Version 4.13.0.`, `/*! jQuery v3.7.1 …`), else None."""
    head = data[:400].decode("utf-8", "replace")
    found = re.match(r"\s*(?://|/\*)[^\0]{0,200}?\b(?:v|[Vv]ersion )(\d+\.\d+\.\d+[\w.-]*?)\.?(?=[\s|,;)]|$)", head)
    return found.group(1) if found else None


def _github_repository(repository: object) -> str | None:
    """"owner/repo" (lower case) of a package.json `repository` on GitHub, else None."""
    url = repository.get("url") if isinstance(repository, dict) else repository
    if not isinstance(url, str):
        return None
    found = (re.fullmatch(r"(?:github:)?([\w.-]+)/([\w.-]+)", url.strip())
             or re.search(r"github\.com[/:]([\w.-]+)/([\w.-]+?)(?:\.git)?/?(?:[#?].*)?$", url.strip()))
    return f"{found.group(1)}/{found.group(2)}".lower() if found else None


@dataclass(frozen=True)
class Package:
    """A package's files as published (paths from its root) and what it is."""

    name: str
    version: str
    integrity: str  # "sha512-<base64>" of the tarball (a bundled file: of that file)
    licence: str
    source: str  # "npm registry", the local file it came from (its name only), or BUNDLED
    files: dict[str, bytes]  # path inside the package → bytes
    meta: dict[str, Any]  # its package.json ({} when bundled)

    @property
    def licence_files(self) -> list[str]:
        """The licence texts at the package's root: vendored with whatever else is."""
        return sorted(rel for rel in self.files if "/" not in rel and LICENCE_FILE.fullmatch(rel))

    def default_file(self, cdn: str) -> str | None:
        """The file `cdn` serves for the package's address without a path, or None."""
        candidates = [v for v in (self.meta.get(f) for f in DEFAULT_FIELDS[cdn]) if isinstance(v, str) and v]
        for value in [*candidates, "index.js"]:
            rel = PurePosixPath(value.removeprefix("./")).as_posix()
            for name in (rel, rel + ".js", rel + "/index.js"):
                if name in self.files:
                    return name
        return None


def integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


def fetch(lib: Library, local: Path | None) -> Package:
    """The package of `lib`: bundled with theme, from `local` (a .tgz, or a package folder
    npm packs) or from the registry with `npm pack NAME@VERSION`. PackageUnavailable, with
    the reason in one line, when it cannot be had."""
    if lib.bundled:
        return bundled_runtime()
    with tempfile.TemporaryDirectory(prefix="theme-init-") as tmp:
        if local is not None and local.is_file():
            tarball, source, reported = local, f"local tarball {local.name}", None
        else:
            spec = str(local.resolve()) if local is not None else f"{lib.name}@{lib.version}"
            tarball, reported = _npm_pack(spec, Path(tmp), lib, local)
            source = f"local folder {local.name} (npm pack)" if local is not None else "npm registry"
        data = tarball.read_bytes()
    got = integrity(data)
    where = str(local) if local is not None else f"npm {lib.name}@{lib.version}"
    if reported and reported != got:
        raise PackageUnavailable(f"{where}: the tarball is corrupt (npm reports integrity {reported}, it hashes "
                                 f"to {got}); clear npm's cache (npm cache clean --force) and retry")
    return _unpack(data, lib, got, source, where)


def bundled_runtime() -> Package:
    """The Distill v2 runtime and its licence, as theme ships them."""
    files = {name: (DISTILL / name).read_bytes() for name in DISTILL_FILES}
    return Package(DISTILL_NAME, DISTILL_VERSION, integrity(files["template.v2.js"]), DISTILL_LICENCE,
                   BUNDLED, files, {})


# How long one npm command (a pack, or the list of a package's versions) may take: a
# registry that accepts the connection and never answers costs this once (Staging then
# stops asking it). One quick retry instead of npm's default two with up to a minute of
# backoff each: a refused connection is said in seconds, not in 70.
NPM_TIMEOUT = 60
NPM_RETRIES = ("--fetch-retries=1", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=5000")
# npm's error codes that mean the registry did not answer, not that it lacks the package.
UNREACHABLE = {"ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ESOCKETTIMEDOUT",
               "EHOSTUNREACH", "ENETUNREACH", "ECONNABORTED", "ENOTCACHED", "EPROTO", "ERR_SOCKET_TIMEOUT"}


def _npm(args: list[str], cwd: Path, what: str) -> subprocess.CompletedProcess[str]:
    """`npm ARGS --json`, bounded by NPM_TIMEOUT; PackageUnavailable(registry=True) when npm is
    missing or the command did not finish in time."""
    try:
        return subprocess.run(["npm", *args, "--json", *NPM_RETRIES], cwd=cwd, capture_output=True, text=True,
                              timeout=NPM_TIMEOUT)
    except FileNotFoundError:
        raise PackageUnavailable(f"{what}: npm is not installed (Node.js ships it)", registry=True) from None
    except subprocess.TimeoutExpired:
        raise PackageUnavailable(f"{what}: the npm registry did not answer within {NPM_TIMEOUT} s",
                                 registry=True) from None


def _npm_error(done: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    """(npm's error code, its one-line summary), from its --json answer, else from stderr."""
    try:
        error = json.loads(done.stdout).get("error", {})
    except (json.JSONDecodeError, AttributeError):
        error = {}
    code = str(error.get("code") or "")
    summary = str(error.get("summary") or "").strip().splitlines()
    if not summary:
        summary = [line.removeprefix("npm error").strip() for line in done.stderr.splitlines()
                   if line.strip() and "complete log of this run" not in line]
    if not code:
        found = re.search(r"npm (?:error|ERR!) code (\S+)", done.stderr)
        code = found.group(1) if found else ""
    return code, summary[-1] if summary else "no output"


def _npm_pack(spec: str, dest: Path, lib: Library, local: Path | None) -> tuple[Path, str | None]:
    """`npm pack SPEC` into `dest` (the npm cache first); the tarball and npm's integrity."""
    what = f"npm pack {local}" if local is not None else f"npm {lib.name}@{lib.version}"
    done = _npm(["pack", spec, "--prefer-offline", "--pack-destination", str(dest)], dest, what)
    if done.returncode == 0:
        info = json.loads(done.stdout)[0]
        return dest / info["filename"], info.get("integrity")
    code, summary = _npm_error(done)
    if local is not None:
        raise PackageUnavailable(f"{what} failed ({summary})")
    if code in UNREACHABLE:
        raise PackageUnavailable(f"{what}: the npm registry did not answer ({summary})", registry=True)
    if code == "EINTEGRITY":
        raise PackageUnavailable(f"{what}: the tarball is corrupt ({summary}); clear npm's cache "
                                 "(npm cache clean --force) and retry")
    if code == "E404":
        raise PackageUnavailable(f"{what}: the npm registry has no package {lib.name}")
    if code == "ETARGET":
        raise PackageUnavailable(f"{what}: the npm registry has no version {lib.version} of {lib.name}"
                                 f"{_versions(lib.name, dest)}")
    raise PackageUnavailable(f"{what}: npm pack failed ({code + ': ' if code else ''}{summary})")


def _versions(name: str, cwd: Path) -> str:
    """`; it has …` listing the versions the registry has of `name` (npm view), or ''. The
    page's version is never replaced by a near one: the user picks."""
    try:
        done = _npm(["view", name, "versions"], cwd, f"npm view {name}")
        versions = json.loads(done.stdout) if done.returncode == 0 else None
    except (PackageUnavailable, json.JSONDecodeError):
        return ""
    if isinstance(versions, str):
        versions = [versions]
    if not isinstance(versions, list) or not versions:
        return ""
    shown = versions if len(versions) <= 12 else [*versions[:3], "…", *versions[-8:]]
    return f"; it has {', '.join(map(str, shown))} ({len(versions)} version{'s' if len(versions) != 1 else ''})"


def _unpack(data: bytes, lib: Library, digest: str, source: str, where: str) -> Package:
    """Every file of the tarball, by its path in the package (npm puts them under package/)."""
    files: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for member in tar.getmembers():
                path = PurePosixPath(member.name)
                extracted = tar.extractfile(member) if member.isfile() else None
                if extracted is not None and len(path.parts) > 1 and ".." not in path.parts:
                    files[PurePosixPath(*path.parts[1:]).as_posix()] = extracted.read()
    except (tarfile.TarError, EOFError, OSError, zlib.error) as err:
        raise PackageUnavailable(f"{where}: the tarball is corrupt ({err or type(err).__name__})") from None
    try:
        meta = json.loads(files.get("package.json", b"{}"))
    except json.JSONDecodeError:
        meta = {}
    if meta.get("name") != lib.name:
        raise PackageUnavailable(f"{where}: the package is {meta.get('name')!r}, not {lib.name!r}")
    if lib.repository and _github_repository(meta.get("repository")) != lib.repository.lower():
        declared = meta.get("repository")
        declared = declared.get("url") if isinstance(declared, dict) else declared
        named = f"names {declared} as its repository" if declared else "names no repository"
        raise PackageUnavailable(f"{where}: its package.json {named}, not github.com/{lib.repository}: "
                                 "not known as that repository's package")
    if lib.subdir and not any(rel.startswith(lib.subdir + "/") for rel in files):
        raise PackageUnavailable(f"{where}: {lib.name} {meta.get('version')} has no {lib.subdir}/ to route")
    return Package(lib.name, str(meta.get("version", "")), digest, str(meta.get("license", "not declared")),
                   source, dict(sorted(files.items())), meta)


@dataclass(frozen=True)
class Vendored:
    """One folder of vendor/: the files of one package the pages loaded, and its routes."""

    package: Package
    folder: str  # vendor/<name>, or vendor/<name>@<version> beside another version
    files: dict[str, bytes]  # path inside the package → bytes (loaded files and the licence)
    routes: dict[str, str]  # URL prefix (or address) → its target, relative to the project


def vendored_md(rows: list[Vendored]) -> str:
    """vendor/VENDORED.md: one row per package, then one per file; the same bytes for the same files."""
    lines = [
        "# Vendored packages",
        "",
        "Written by `theme init`: libraries the article loads from a CDN, served offline from",
        "these copies by `route` in pyproject.toml. Only the files the pages loaded are kept,",
        "unmodified, with the package's licence: run `theme init` again when the article",
        "starts to load another one. The integrity is the sha512 of the npm package tarball,",
        "npm's `dist.integrity` (of the file itself for one bundled with theme).",
        "",
        "| package | version | licence | source | sha512 integrity | folder | routes |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for v in rows:
        p = v.package
        routes = "<br>".join(f"`{prefix}` → `{target}`" for prefix, target in sorted(v.routes.items()))
        lines.append(f"| {p.name} | {p.version} | {p.licence} | {p.source} | `{p.integrity}` | "
                     f"`{v.folder}/` ({len(v.files)} of {len(p.files)} files) | {routes} |")
    lines += ["", "| file | bytes | sha256 |", "| --- | --- | --- |"]
    for v in rows:
        for rel, data in sorted(v.files.items()):
            lines.append(f"| {v.folder}/{rel} | {len(data)} | {hashlib.sha256(data).hexdigest()} |")
    return "\n".join(lines) + "\n"
