"""Libraries a page loads from a CDN, served from a copy of their package instead.

A URL with a known layout (KNOWN) names a package and what in it the URL asks for:

- jsdelivr and unpkg name an npm package and version: `…/npm/katex@0.16.9/dist/katex.js`
  is a file of it; `…/npm/vega@5` (no path) is its default file, which each CDN picks
  from package.json (DEFAULT_FIELDS);
- Distill's runtime asks distill.pub for KaTeX's dist/ files;
- `https://distill.pub/template.v2.js` is the Distill v2 runtime itself, which no npm
  package has: it is bundled with theme (theme/init/distill/);
- `https://distill.pub/template.v1.js`, the v1 runtime, is npm's `distill-template`;
- other well-known hosts serve an npm package's files under their own layout: d3js.org
  (`d3.v4.min.js`: the newest 4.x of d3), cdnjs and Google's hosted libraries
  (`…/libs/NAME/VERSION/FILE`, FILE looked for at the package's root, then in dist/ and
  build/), code.jquery.com, cdn.plot.ly, and jsdelivr's GitHub addresses when npm has that
  repository's package at that version. An address of a known host that names no version
  (`plotly-latest.min.js`) stays blocked, with one line saying so and what to do.

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
from typing import Any, Callable, Collection

from .errors import PackageUnavailable

# The KaTeX the Distill runtime's CDN address is served from: the version this
# repository's specimen is rendered and tested with (article/dist/assets/VENDORED.md).
KATEX_VERSION = "0.19.1"
NPM_NAME = r"(?P<name>(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*)"

# The Distill v2 runtime theme ships (its provenance: theme/init/distill/VENDORED.md).
DISTILL = Path(__file__).resolve().parent / "distill"
DISTILL_NAME, DISTILL_VERSION, DISTILL_LICENCE = "distill", "2.8.0", "Apache-2.0"
DISTILL_FILES = ("template.v2.js", "LICENSE")
BUNDLED = "bundled with theme"
# The Distill v1 runtime: npm's distill-template (1.1.0 is its only version) ships the
# bundle as its `main`, dist/template.js, which is what distill.pub serves as
# template.v1.js: one self-contained file (KaTeX, Prism and the dt-* styles built in)
# that loads nothing else from distill.pub. The package declares no licence.
DISTILL_V1_NAME, DISTILL_V1_VERSION, DISTILL_V1_FILE = "distill-template", "1.1.0", "dist/template.js"

# Where each CDN finds a package's default file (a URL without a file path): the first
# of these package.json fields that is a string, then index.js. As jsdelivr and unpkg
# document it; both also accept the name without ".js" and a folder's index.js.
DEFAULT_FIELDS = {"jsdelivr": ("jsdelivr", "browser", "main"), "unpkg": ("unpkg", "browser", "main")}
LICENCE_FILE = re.compile(r"(?i)(licen[cs]e|copying)(\.\w+)?")


# Script services: a script that fetches what it shows (a file from GitHub, a thread of comments),
# so no package will ever hold it. Address prefix -> what it is. A new row is welcome.
SCRIPT_SERVICES: dict[str, str] = {
    "https://emgithub.com/": "a code embed service (its script fetches the code it shows from GitHub)",
    "https://gist.github.com/": "a GitHub gist embed (its script writes the gist it names)",
    "https://utteranc.es/": "a comments widget (utterances: it loads the issue's comments)",
    "https://giscus.app/": "a comments widget (giscus: it loads the discussion's comments)",
    "https://platform.twitter.com/": "a post embed (its script draws the posts it names)",
}


def script_service(url: str) -> tuple[str, str] | None:
    """(its prefix, what it is) when `url` is a script service's (SCRIPT_SERVICES), else None."""
    return next(((prefix, what) for prefix, what in SCRIPT_SERVICES.items() if url.startswith(prefix)), None)


@dataclass(frozen=True)
class Library:
    """One route: URL `prefix` → the `subdir` of package `name`@`version`; with `file`,
    the one address `prefix` → that file of it; with `default` (the CDN whose rule picks
    it), → the package's default file."""

    prefix: str
    name: str
    version: str  # an npm version or range, as the URL gives it
    subdir: str = ""  # "" for the package root
    default: str | None = None  # "jsdelivr" or "unpkg": a route to the one file that CDN serves
    bundled: bool = False  # shipped with theme, not fetched from npm
    file: str = ""  # a route of one address to this file of the package ("" for a prefix route)
    # Folders of the package ("" its root) where `file`, or for a prefix route `find`, is
    # looked for, in order: the first that has it is the file, or the folder routed.
    look_in: tuple[str, ...] = ()
    find: str = ""  # a prefix route with look_in: the file the address names, under the prefix
    note: str = ""  # why this version: said in the plan ("the newest 4.x, as d3js.org serves it")
    repository: str = ""  # "OWNER/REPO": the package must name this GitHub repository as its own

    @property
    def one_file(self) -> bool:
        """Whether the route serves one address (a file), not every URL under a prefix."""
        return bool(self.file or self.default)

    @property
    def spec(self) -> tuple[str, str]:
        """What is fetched: one package per (name, version as asked for), and the repository
        it must be of, when it must."""
        return self.name, self.version + (f" of github.com/{self.repository}" if self.repository else "")

    def located(self, files: Collection[str]) -> str | None:
        """With look_in: the first of its folders that has `file` (or `find`), else None."""
        wanted = self.file or self.find
        return next((d for d in self.look_in if f"{d}/{wanted}".lstrip("/") in files), None)

    def looked(self) -> str:
        """Where `located` looked, in words: "dist/, build/ or its root"."""
        where = [f"{d}/" if d else "its root" for d in self.look_in]
        return ", ".join(where[:-1]) + " or " + where[-1] if len(where) > 1 else "".join(where)


def _distill_katex(m: re.Match[str]) -> Library:
    return Library(m.group(0), "katex", KATEX_VERSION, "dist")


def _distill_runtime(m: re.Match[str]) -> Library:
    if m.group("v") == "1":
        return Library(m.group("address"), DISTILL_V1_NAME, DISTILL_V1_VERSION, file=DISTILL_V1_FILE)
    return Library(m.group("address"), DISTILL_NAME, DISTILL_VERSION, bundled=True, file="template.v2.js")


def _npm_cdn(cdn: str) -> Callable[[re.Match[str]], Library]:
    def make(m: re.Match[str]) -> Library:
        root = m.group("root")
        if m.group("path") is None:  # no file path: the CDN serves the package's default file
            return Library(root, m.group("name"), m.group("version"), default=cdn)
        return Library(root + "/", m.group("name"), m.group("version"))
    return make


# Hosts that are not npm CDNs. cdnjs and Google name most libraries as npm does (lower
# case); these are the exceptions. Hosted files are usually the package's dist/ (or build/)
# files without that folder: the first of HOSTED_FOLDERS that has the file is routed.
CDNJS_NAMES = {"lodash.js": "lodash", "three.js": "three", "underscore.js": "underscore",
               "backbone.js": "backbone", "highlight.js": "@highlightjs/cdn-assets"}
GOOGLE_NAMES = {"d3js": "d3", "jqueryui": "jquery-ui", "threejs": "three"}
HOSTED_FOLDERS = ("", "dist", "build")
# A released version (a GitHub tag may start with v): a branch, commit or range is not one.
RELEASE = re.compile(r"v?(?P<version>\d+\.\d+\.\d+(?:-[\w.]+)?)")
SAY_WHAT_TO_DO = "copy the file into the project and route its address there"
Maker = Callable[[re.Match[str]], Library | str]


def _d3js(m: re.Match[str]) -> Library:
    """d3js.org/d3.v4.min.js is the newest 4.x of d3, its built file (build/ up to 4, dist/ since 5)."""
    name, major = m.group("name"), m.group("major")
    return Library(m.group("address"), name, major, file=f"{name}{m.group('min') or ''}.js",
                   look_in=("dist", "build", ""), note=f"the newest {major}.x, as d3js.org serves it")


def _hosted(names: dict[str, str]) -> Maker:
    """cdnjs, Google: `…/libs/NAME/VERSION/` → npm NAME@VERSION, in the folder that has FILE."""
    def make(m: re.Match[str]) -> Library:
        name = m.group("name")
        return Library(m.group("root") + "/", names.get(name, name.lower()), m.group("version"),
                       find=m.group("file"), look_in=HOSTED_FOLDERS)
    return make


def _jquery(m: re.Match[str]) -> Library:
    return Library(m.group("address"), "jquery", m.group("version"), file=f"jquery{m.group('flavour')}.js",
                   look_in=("dist",))


def _plotly(m: re.Match[str]) -> Library:
    """cdn.plot.ly's bundle is npm's plotly.js-dist (plotly.js), minified plotly.js-dist-min (plotly.min.js)."""
    if m.group("min"):
        return Library(m.group("address"), "plotly.js-dist-min", m.group("version"), file="plotly.min.js")
    return Library(m.group("address"), "plotly.js-dist", m.group("version"), file="plotly.js")


def _github(m: re.Match[str]) -> Library | str:
    """jsdelivr's gh/OWNER/REPO@VERSION/ → npm REPO@VERSION, only if npm's package says it is of that repository."""
    owner, repo, ref = m.group("owner"), m.group("repo"), m.group("ref")
    release = RELEASE.fullmatch(ref or "")
    if release is None:
        what = f"{ref} (a branch, commit or range)" if ref else "no version (the default branch as it is now)"
        return (f"the address names {what} of github.com/{owner}/{repo}, not a release an npm package could "
                f"be: not known; {SAY_WHAT_TO_DO}")
    return Library(m.group("root") + "/", repo.lower(), release.group("version"), find=m.group("path"), look_in=("",),
                   repository=f"{owner}/{repo}")


def _no_version(why: str) -> Maker:
    """For an address that names no version (`plotly-latest.min.js`): one line saying so."""
    def say(m: re.Match[str]) -> str:
        return f"{m.group('latest')} is not a version ({why}); load a versioned address, or {SAY_WHAT_TO_DO}"
    return say


# URL layout → library (or, for an address of a known host that names no package version,
# why not). A query (`?v=2`) does not change which file is served; http and https are one
# file. To add a host, copy a row: a pattern whose groups the maker reads (`root`, `name`,
# `version`, `file` for a host laid out as cdnjs is), e.g.
#     (re.compile(r"^(?P<root>https?://cdn\.example\.org/libs/(?P<name>[^/?#]+)/(?P<version>[^/?#]+))"
#                 r"/(?P<file>[^?#]+)"), _hosted({})),
# For one library anywhere else, pass --package NAME=PATH or route its address to your copy.
KNOWN: tuple[tuple[re.Pattern[str], Maker], ...] = (
    (re.compile(r"^https?://distill\.pub/third-party/katex/"), _distill_katex),
    (re.compile(r"^(?P<address>https?://distill\.pub/template\.v(?P<v>[12])\.js)(?:[?#].*)?$"), _distill_runtime),
    (re.compile(rf"^(?P<root>https?://cdn\.jsdelivr\.net/npm/{NPM_NAME}@(?P<version>[^/?#]+))"
                r"(?:/(?P<path>[^?#]+))?(?:[?#].*)?$"), _npm_cdn("jsdelivr")),
    (re.compile(rf"^(?P<root>https?://unpkg\.com/{NPM_NAME}@(?P<version>[^/?#]+))"
                r"(?:/(?P<path>[^?#]+))?(?:[?#].*)?$"), _npm_cdn("unpkg")),
    (re.compile(r"^(?P<address>https?://d3js\.org/(?P<name>d3(?:-[a-z0-9]+)*)\.v(?P<major>\d+)(?P<min>\.min)?\.js)"
                r"(?:[?#].*)?$"), _d3js),
    (re.compile(r"^(?P<root>https?://cdnjs\.cloudflare\.com/ajax/libs/(?P<name>[^/?#]+)/(?P<version>[^/?#]+))"
                r"/(?P<file>[^?#]+)"), _hosted(CDNJS_NAMES)),
    (re.compile(r"^(?P<root>https?://ajax\.googleapis\.com/ajax/libs/(?P<name>[^/?#]+)/(?P<version>[^/?#]+))"
                r"/(?P<file>[^?#]+)"), _hosted(GOOGLE_NAMES)),
    (re.compile(r"^(?P<address>https?://code\.jquery\.com/jquery-(?P<version>\d+\.\d+\.\d+)"
                r"(?P<flavour>(?:\.slim)?(?:\.min)?)\.js)(?:[?#].*)?$"), _jquery),
    (re.compile(r"^https?://code\.jquery\.com/(?P<latest>jquery-(?:latest|git|\d+\.x-git)(?:\.slim)?(?:\.min)?\.js)"
                r"(?:[?#].*)?$"),
     _no_version("its name does not say which jQuery it holds")),
    (re.compile(r"^(?P<address>https?://cdn\.plot\.ly/plotly-(?P<version>\d+\.\d+\.\d+)(?P<min>\.min)?\.js)"
                r"(?:[?#].*)?$"), _plotly),
    (re.compile(r"^https?://cdn\.plot\.ly/(?P<latest>plotly-latest(?:\.min)?\.js)(?:[?#].*)?$"),
     _no_version("its name does not say which plotly.js it holds")),
    (re.compile(r"^(?P<root>https?://cdn\.jsdelivr\.net/gh/(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+?)(?:@(?P<ref>[^/?#]+))?)"
                r"/(?P<path>[^?#]+)"), _github),
)


def lookup(url: str) -> Library | str | None:
    """The library serving `url`; for an address of a known host that names no package
    version, why not (one line, with what to do); None for an unknown address."""
    for pattern, make in KNOWN:
        m = pattern.match(url)
        if m:
            return make(m)
    return None


def library_for(url: str) -> Library | None:
    found = lookup(url)
    return found if isinstance(found, Library) else None


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
