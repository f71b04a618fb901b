"""Libraries a page loads from a CDN, served from a copy of their npm package instead.

A URL with a known CDN layout (KNOWN) names a package; it comes from `npm pack` (npm's
cache first) or from a local tarball or package folder (`--package NAME=PATH`). The
integrity recorded is the tarball's sha512, which is what npm's dist.integrity is.
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
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .errors import InitError

# The KaTeX the Distill runtime's CDN address is served from: the version this
# repository's specimen is rendered and tested with (article/dist/assets/VENDORED.md).
KATEX_VERSION = "0.19.1"
NPM_NAME = r"(?P<name>(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*)"


@dataclass(frozen=True)
class Library:
    """One route: URL `prefix` → the `subdir` of npm package `name`@`version`."""

    prefix: str
    name: str
    version: str  # an npm version or range, as the URL gives it
    subdir: str  # "" for the package root


def _distill_katex(m: re.Match) -> Library:
    return Library(m.group(0), "katex", KATEX_VERSION, "dist")


def _npm_cdn(m: re.Match) -> Library:
    # Route only the package's first folder the request used (dist/), not the whole package.
    first, _, rest = m.group("path").partition("/")
    sub = first if rest else ""
    prefix = m.group(0)[: len(m.group(0)) - len(m.group("path"))] + (f"{sub}/" if sub else "")
    return Library(prefix, m.group("name"), m.group("version"), sub)


# URL layout → library. jsdelivr and unpkg name the npm package and its version in the
# URL; Distill's runtime asks distill.pub for KaTeX's dist/ files.
KNOWN = [
    (re.compile(r"^https?://distill\.pub/third-party/katex/"), _distill_katex),
    (re.compile(rf"^https?://cdn\.jsdelivr\.net/npm/{NPM_NAME}@(?P<version>[^/]+)/(?P<path>.+)$"), _npm_cdn),
    (re.compile(rf"^https?://unpkg\.com/{NPM_NAME}@(?P<version>[^/]+)/(?P<path>.+)$"), _npm_cdn),
]


def library_for(url: str) -> Library | None:
    for pattern, make in KNOWN:
        m = pattern.match(url)
        if m:
            return make(m)
    return None


@dataclass(frozen=True)
class Package:
    """A fetched npm tarball: what it is and the files of the routed folder."""

    name: str
    version: str
    integrity: str  # "sha512-<base64>" of the tarball bytes
    licence: str
    source: str  # "npm registry" or the local file it came from (its name only)
    files: dict[str, bytes]  # path inside the routed folder → bytes


def integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


def fetch(lib: Library, local: Path | None) -> Package:
    """The package of `lib`: from `local` (a .tgz, or a package folder npm packs) or from
    the registry with `npm pack NAME@VERSION`."""
    with tempfile.TemporaryDirectory(prefix="theme-init-") as tmp:
        if local is not None and local.is_file():
            tarball, source, reported = local, f"local tarball {local.name}", None
        else:
            spec = str(local.resolve()) if local is not None else f"{lib.name}@{lib.version}"
            tarball, reported = _npm_pack(spec, Path(tmp), lib.name)
            source = f"local folder {local.name} (npm pack)" if local is not None else "npm registry"
        data = tarball.read_bytes()
    got = integrity(data)
    if reported and reported != got:
        raise InitError(f"npm pack {lib.name}@{lib.version}: npm reports integrity {reported} but the "
                        f"tarball hashes to {got}; clear the npm cache (npm cache clean --force) and retry")
    return _unpack(data, lib, got, source, str(local or f"{lib.name}@{lib.version}"))


def _npm_pack(spec: str, dest: Path, name: str) -> tuple[Path, str | None]:
    """`npm pack SPEC` into `dest` (the npm cache first); the tarball and npm's integrity."""
    try:
        done = subprocess.run(["npm", "pack", spec, "--json", "--prefer-offline", "--pack-destination", str(dest)],
                              cwd=dest, capture_output=True, text=True, timeout=300)
    except FileNotFoundError:
        raise InitError(f"npm not found to fetch {spec}; install Node.js (it ships npm), or pass "
                        f"--package {name}=PATH to a tarball of it") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()] or ["no output"]
        raise InitError(f"npm pack {spec} failed ({lines[-1].strip()}); check that the npm registry is "
                        f"reachable, or pass --package {name}=PATH to a tarball of it")
    info = json.loads(done.stdout)[0]
    return dest / info["filename"], info.get("integrity")


def _unpack(data: bytes, lib: Library, digest: str, source: str, where: str) -> Package:
    """The routed folder's files (and the package's LICENSE when the folder has none)."""
    files: dict[str, bytes] = {}
    meta: dict = {}
    licence_file = None
    prefix = PurePosixPath("package", lib.subdir) if lib.subdir else PurePosixPath("package")
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            path = PurePosixPath(member.name)
            if path == PurePosixPath("package/package.json"):
                meta = json.loads(tar.extractfile(member).read())
            if path.parent == PurePosixPath("package") and re.fullmatch(r"(?i)licen[cs]e(\.\w+)?", path.name):
                licence_file = (path.name, tar.extractfile(member).read())
            if path.is_relative_to(prefix) and path != prefix:
                rel = path.relative_to(prefix).as_posix()
                if ".." not in PurePosixPath(rel).parts:
                    files[rel] = tar.extractfile(member).read()
    if meta.get("name") != lib.name:
        raise InitError(f"{where}: the package is {meta.get('name')!r}, not {lib.name!r}; "
                        f"pass --package {lib.name}=PATH to a tarball of {lib.name}")
    if not files:
        raise InitError(f"{where}: {lib.name} {meta.get('version')} has no {lib.subdir or 'files'}/ to route; "
                        "pass another version with --package")
    if lib.subdir and licence_file and licence_file[0] not in files:
        files[licence_file[0]] = licence_file[1]
    return Package(lib.name, str(meta.get("version", "")), digest, str(meta.get("license", "unknown")),
                   source, dict(sorted(files.items())))


def vendored_md(rows: list[tuple[Library, Package, str]]) -> str:
    """vendor/VENDORED.md: one row per package, the same bytes for the same packages."""
    lines = [
        "# Vendored packages",
        "",
        "Written by `theme init`: libraries the article loads from a CDN, served offline from",
        "these unmodified copies of their npm packages by `route` in pyproject.toml.",
        "The integrity is the sha512 of the package tarball, npm's `dist.integrity`.",
        "",
        "| package | version | licence | sha512 integrity | copied | route |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for lib, pkg, folder in rows:
        lines.append(f"| {pkg.name} | {pkg.version} | {pkg.licence} | `{pkg.integrity}` | "
                     f"`{lib.subdir or '.'}/` → `{folder}/` ({len(pkg.files)} files) | `{lib.prefix}` |")
    return "\n".join(lines) + "\n"
