"""CDN addresses to the packages that hold them: the one table of hosts (KNOWN).

A URL with a known layout names a package and what in it the URL asks for:

- jsdelivr and unpkg name an npm package and version: `…/npm/katex@0.16.9/dist/katex.js`
  is a file of it; `…/npm/vega@5` (no path) is its default file, which each CDN picks
  from package.json (theme/init/vendor.py, DEFAULT_FIELDS);
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

`theme init` vendors what the table names (theme/init/vendor.py); a capture whose page
missed such an address says what would serve it (resources.py). Pure: no file, no network.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Collection

# The KaTeX the Distill runtime's CDN address is served from: the version this
# repository's specimen is rendered and tested with (article/dist/assets/VENDORED.md).
KATEX_VERSION = "0.19.1"
NPM_NAME = r"(?P<name>(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*)"

# The Distill v2 runtime theme ships (its provenance: theme/init/distill/VENDORED.md).
DISTILL_NAME, DISTILL_VERSION = "distill", "2.8.0"
# The Distill v1 runtime: npm's distill-template (1.1.0 is its only version) ships the
# bundle as its `main`, dist/template.js, which is what distill.pub serves as
# template.v1.js: one self-contained file (KaTeX, Prism and the dt-* styles built in)
# that loads nothing else from distill.pub. The package declares no licence.
DISTILL_V1_NAME, DISTILL_V1_VERSION, DISTILL_V1_FILE = "distill-template", "1.1.0", "dist/template.js"

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
