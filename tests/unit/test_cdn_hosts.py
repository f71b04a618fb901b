"""Well-known CDN addresses as npm packages, without a network: which package, version (or
range) and file each names (theme/capture/cdn.py KNOWN), the folder of the package a hosted
file is found in, the repository check of jsdelivr's GitHub addresses, and the one line an
address gets when no package version serves it. The registry itself: test_init_files.py."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from theme.capture import cdn
from theme.init import PackageUnavailable, vendor
from theme.init.staging import Staging

D3 = ("dist", "build", "")
HOSTED = ("", "dist", "build")
NEWEST = "the newest {}.x, as d3js.org serves it"


def row(lib: cdn.Library | None) -> tuple[object, ...] | None:
    return lib and (lib.prefix, lib.name, lib.version, lib.file, lib.find, lib.look_in, lib.note, lib.repository)


@pytest.mark.parametrize("url, expected", [
    # d3js.org: the newest N.x of d3 (or of d3-NAME), its built file wherever the package keeps it
    ("https://d3js.org/d3.v4.min.js", ("https://d3js.org/d3.v4.min.js", "d3", "4", "d3.min.js", "", D3,
                                       NEWEST.format(4), "")),
    ("http://d3js.org/d3.v4.min.js", ("http://d3js.org/d3.v4.min.js", "d3", "4", "d3.min.js", "", D3,
                                      NEWEST.format(4), "")),
    ("https://d3js.org/d3.v7.js?x=1", ("https://d3js.org/d3.v7.js", "d3", "7", "d3.js", "", D3, NEWEST.format(7), "")),
    ("https://d3js.org/d3-selection-multi.v1.min.js",
     ("https://d3js.org/d3-selection-multi.v1.min.js", "d3-selection-multi", "1", "d3-selection-multi.min.js", "",
      D3, NEWEST.format(1), "")),
    ("https://d3js.org/d3-scale-chromatic.v3.js",
     ("https://d3js.org/d3-scale-chromatic.v3.js", "d3-scale-chromatic", "3", "d3-scale-chromatic.js", "", D3,
      NEWEST.format(3), "")),
    # cdnjs and Google: the version's folder is a prefix route to where the package has the file
    ("https://cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.21/lodash.min.js",
     ("https://cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.21/", "lodash", "4.17.21", "", "lodash.min.js", HOSTED,
      "", "")),
    ("http://cdnjs.cloudflare.com/ajax/libs/jquery/3.7.1/jquery.min.js",
     ("http://cdnjs.cloudflare.com/ajax/libs/jquery/3.7.1/", "jquery", "3.7.1", "", "jquery.min.js", HOSTED, "", "")),
    ("https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/MathJax.js?config=TeX-AMS_HTML",
     ("https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/", "mathjax", "2.7.7", "", "MathJax.js", HOSTED, "", "")),
    ("https://cdnjs.cloudflare.com/ajax/libs/KaTeX/0.16.9/katex.min.css",
     ("https://cdnjs.cloudflare.com/ajax/libs/KaTeX/0.16.9/", "katex", "0.16.9", "", "katex.min.css", HOSTED, "", "")),
    ("https://cdnjs.cloudflare.com/ajax/libs/d3/7.8.5/d3.min.js",
     ("https://cdnjs.cloudflare.com/ajax/libs/d3/7.8.5/", "d3", "7.8.5", "", "d3.min.js", HOSTED, "", "")),
    ("https://ajax.googleapis.com/ajax/libs/jquery/3.7.1/jquery.min.js",
     ("https://ajax.googleapis.com/ajax/libs/jquery/3.7.1/", "jquery", "3.7.1", "", "jquery.min.js", HOSTED, "", "")),
    ("http://ajax.googleapis.com/ajax/libs/d3js/7.9.0/d3.min.js",
     ("http://ajax.googleapis.com/ajax/libs/d3js/7.9.0/", "d3", "7.9.0", "", "d3.min.js", HOSTED, "", "")),
    # code.jquery.com: jquery@VERSION's dist/ file of that flavour
    ("https://code.jquery.com/jquery-3.7.1.min.js",
     ("https://code.jquery.com/jquery-3.7.1.min.js", "jquery", "3.7.1", "jquery.min.js", "", ("dist",), "", "")),
    ("http://code.jquery.com/jquery-1.12.4.js",
     ("http://code.jquery.com/jquery-1.12.4.js", "jquery", "1.12.4", "jquery.js", "", ("dist",), "", "")),
    ("https://code.jquery.com/jquery-3.6.0.slim.js",
     ("https://code.jquery.com/jquery-3.6.0.slim.js", "jquery", "3.6.0", "jquery.slim.js", "", ("dist",), "", "")),
    ("https://code.jquery.com/jquery-3.6.0.slim.min.js",
     ("https://code.jquery.com/jquery-3.6.0.slim.min.js", "jquery", "3.6.0", "jquery.slim.min.js", "", ("dist",),
      "", "")),
    # cdn.plot.ly: npm's plotly.js-dist-min (plotly.js-dist unminified)
    ("https://cdn.plot.ly/plotly-2.35.2.min.js",
     ("https://cdn.plot.ly/plotly-2.35.2.min.js", "plotly.js-dist-min", "2.35.2", "plotly.min.js", "", (), "", "")),
    ("http://cdn.plot.ly/plotly-2.35.2.js",
     ("http://cdn.plot.ly/plotly-2.35.2.js", "plotly.js-dist", "2.35.2", "plotly.js", "", (), "", "")),
    # jsdelivr's GitHub addresses: npm's REPO at that version, if it is of OWNER/REPO
    ("https://cdn.jsdelivr.net/gh/jquery/jquery@3.7.1/dist/jquery.min.js",
     ("https://cdn.jsdelivr.net/gh/jquery/jquery@3.7.1/", "jquery", "3.7.1", "", "dist/jquery.min.js", ("",), "",
      "jquery/jquery")),
    ("http://cdn.jsdelivr.net/gh/d3/d3@v7.9.0/dist/d3.js",
     ("http://cdn.jsdelivr.net/gh/d3/d3@v7.9.0/", "d3", "7.9.0", "", "dist/d3.js", ("",), "", "d3/d3")),
    # not these hosts' layouts
    ("https://d3js.org/d3.min.js", None),
    ("https://d3js.org/", None),
    ("https://code.jquery.com/ui/1.13.2/jquery-ui.min.js", None),
    ("https://cdn.plot.ly/plotly-geo-assets.js", None),
    ("https://cdnjs.cloudflare.com/ajax/libs/jquery/", None),
    ("https://example.org/ajax/libs/jquery/3.7.1/jquery.min.js", None),
])
def test_a_known_hosts_address_names_a_package_version_and_file(url, expected):
    assert row(cdn.library_for(url)) == expected


@pytest.mark.parametrize("url, said", [
    ("https://cdn.plot.ly/plotly-latest.min.js", "plotly-latest.min.js is not a version (its name does not say "
     "which plotly.js it holds)"),
    ("http://cdn.plot.ly/plotly-latest.js", "plotly-latest.js is not a version (its name does not say which "
     "plotly.js it holds)"),
    ("https://code.jquery.com/jquery-latest.min.js", "jquery-latest.min.js is not a version (its name does not say "
     "which jQuery it holds)"),
    ("https://code.jquery.com/jquery-3.x-git.js", "jquery-3.x-git.js is not a version (its name does not say "
     "which jQuery it holds)"),
    ("https://cdn.jsdelivr.net/gh/someone/charts/dist/charts.js", "the address names no version (the default "
     "branch as it is now) of github.com/someone/charts, not a release an npm package could be: not known"),
    ("https://cdn.jsdelivr.net/gh/someone/charts@main/dist/charts.js", "the address names main (a branch, commit "
     "or range) of github.com/someone/charts, not a release an npm package could be: not known"),
    ("https://cdn.jsdelivr.net/gh/someone/charts@2/dist/charts.js", "the address names 2 (a branch, commit "
     "or range) of github.com/someone/charts, not a release an npm package could be: not known"),
])
def test_a_known_hosts_address_without_a_version_is_one_line_saying_so(url, said):
    assert cdn.library_for(url) is None
    assert cdn.lookup(url) == f"{said}; " + (
        "load a versioned address, or " if "is not a version" in said else "") + \
        "copy the file into the project and route its address there"


def test_the_table_of_hosts_is_one_tuple_and_the_unknown_stays_unknown():
    assert isinstance(cdn.KNOWN, tuple) and all(len(r) == 2 for r in cdn.KNOWN)
    assert cdn.lookup("https://cdn.example.org/lib/hello.js") is None


@pytest.mark.parametrize("data, version", [
    (b"// https://d3js.org Version 4.13.0. Copyright 2018 Mike Bostock.\n(function", "4.13.0"),
    (b"// https://d3js.org v5.16.0 Copyright 2020 Mike Bostock\n!function", "5.16.0"),
    (b"// https://github.com/d3/d3-selection-multi Version 1.0.1. Copyright 2017 Mike Bostock.\n", "1.0.1"),
    (b"/*! jQuery v3.7.1 | (c) OpenJS Foundation and other contributors */\n", "3.7.1"),
    (b"/**\n* plotly.js v2.35.2\n* Copyright 2012-2024, Plotly, Inc.\n", "2.35.2"),
    (b"!function(t){var v1=2}", None),
    (b"", None),
])
def test_a_built_files_banner_names_its_version(data, version):
    assert vendor.banner_version(data) == version


@pytest.mark.parametrize("repository, expected", [
    ({"type": "git", "url": "git+https://github.com/jquery/jquery.git"}, "jquery/jquery"),
    ("https://github.com/D3/d3", "d3/d3"),
    ("git://github.com/jashkenas/underscore.git", "jashkenas/underscore"),
    ("github:d3/d3", "d3/d3"),
    ("d3/d3", "d3/d3"),
    ("gitlab:someone/charts", None),
    ({"type": "git", "url": "https://gitlab.com/someone/charts.git"}, None),
    (None, None),
])
def test_a_packages_github_repository(repository, expected):
    assert vendor._github_repository(repository) == expected


def tarball(folder: Path, meta: dict, files: dict[str, str]) -> Path:
    """A package tarball as npm lays it out (every file under package/)."""
    for rel, text in {**files, "package.json": json.dumps(meta)}.items():
        (folder / "package" / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / "package" / rel).write_text(text)
    out = folder / f"{meta['name']}-{meta['version']}.tgz"
    with tarfile.open(out, "w:gz") as tar:
        tar.add(folder / "package", arcname="package")
    return out


def staged(tmp_path: Path, local: dict[str, Path], urls: list[str]) -> Staging:
    (tmp_path / "staging").mkdir()
    staging = Staging(tmp_path / "staging", local, {})
    staging.add(urls)
    return staging


def test_hosted_files_are_found_where_the_package_keeps_them(tmp_path):
    """d3 4's build/ (d3 5 on: dist/), lodash's root, jQuery's dist/; a version folder of
    cdnjs is routed whole to the folder of the package that has the file the page asked for."""
    d3 = tarball(tmp_path / "d3", {"name": "d3", "version": "4.13.0", "license": "BSD-3-Clause"},
                 {"build/d3.min.js": "// https://d3js.org Version 4.13.0.\n", "LICENSE": "BSD\n"})
    lodash = tarball(tmp_path / "lodash", {"name": "lodash", "version": "4.17.21"},
                     {"lodash.min.js": "/** lodash */", "dist/lodash.min.js": "/** not this one */"})
    jquery = tarball(tmp_path / "jquery", {"name": "jquery", "version": "3.7.1"},
                     {"dist/jquery.min.js": "/*! jQuery v3.7.1 */", "src/jquery.js": ""})
    urls = ["https://d3js.org/d3.v4.min.js", "https://cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.21/lodash.min.js",
            "https://code.jquery.com/jquery-3.7.1.min.js",
            "https://ajax.googleapis.com/ajax/libs/jquery/3.7.1/jquery.min.js"]
    staging = staged(tmp_path, {"d3": d3, "lodash": lodash, "jquery": jquery}, urls)
    assert staging.unserved == {}
    found = {p: t.relative_to(staging.roots[staging.libraries[p].spec]).as_posix() for p, t in staging.targets.items()}
    assert found == {"https://d3js.org/d3.v4.min.js": "build/d3.min.js",
                     "https://cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.21/": ".",
                     "https://code.jquery.com/jquery-3.7.1.min.js": "dist/jquery.min.js",
                     "https://ajax.googleapis.com/ajax/libs/jquery/3.7.1/": "dist"}
    vendored = {row.folder: row.routes for row in staging.vendored(urls)}
    assert vendored == {
        "vendor/d3": {"https://d3js.org/d3.v4.min.js": "vendor/d3/build/d3.min.js"},
        "vendor/jquery": {"https://code.jquery.com/jquery-3.7.1.min.js": "vendor/jquery/dist/jquery.min.js",
                          "https://ajax.googleapis.com/ajax/libs/jquery/3.7.1/": "vendor/jquery/dist"},
        "vendor/lodash": {"https://cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.21/": "vendor/lodash"},
    }


def test_a_file_the_package_lacks_and_an_address_without_a_version_are_one_line_each(tmp_path):
    d3 = tarball(tmp_path / "d3", {"name": "d3", "version": "4.13.0"}, {"build/d3.js": ""})
    staging = staged(tmp_path, {"d3": d3}, ["https://d3js.org/d3.v4.min.js", "https://cdn.plot.ly/plotly-latest.min.js",
                                            "https://cdnjs.cloudflare.com/ajax/libs/d3/4.13.0/d3.v4.min.js"])
    assert staging.unserved == {
        "https://d3js.org/d3.v4.min.js": "d3 4.13.0 has no d3.min.js in dist/, build/ or its root; copy the file "
                                         "into the project and route its address there",
        "https://cdn.plot.ly/plotly-latest.min.js": cdn.lookup("https://cdn.plot.ly/plotly-latest.min.js"),
        "https://cdnjs.cloudflare.com/ajax/libs/d3/4.13.0/d3.v4.min.js":
            "d3 4.13.0 has no d3.v4.min.js in its root, dist/ or build/; copy the file into the project and route "
            "its address there",
    }
    assert staging.targets == {}


def test_a_github_address_is_served_only_by_that_repositorys_package(tmp_path):
    """npm's `charts` is someone else's: jsdelivr's gh/someone/charts is not known, said in one line."""
    theirs = tarball(tmp_path / "theirs", {"name": "charts", "version": "2.0.0",
                                           "repository": "https://github.com/other/charts"}, {"dist/charts.js": ""})
    lib = cdn.library_for("https://cdn.jsdelivr.net/gh/someone/charts@v2.0.0/dist/charts.js")
    with pytest.raises(PackageUnavailable, match=r"charts-2\.0\.0\.tgz: its package.json names https://github.com/"
                                                 r"other/charts as its repository, not github\.com/someone/charts: "
                                                 r"not known as that repository's package$"):
        vendor.fetch(lib, theirs)
    ours = tarball(tmp_path / "ours", {"name": "charts", "version": "2.0.0",
                                       "repository": {"type": "git", "url": "git+https://github.com/someone/charts.git"}},
                   {"dist/charts.js": "", "LICENSE": ""})
    staging = staged(tmp_path, {"charts": ours},
                     ["https://cdn.jsdelivr.net/gh/someone/charts@v2.0.0/dist/charts.js"])
    assert staging.unserved == {}
    assert staging.targets == {"https://cdn.jsdelivr.net/gh/someone/charts@v2.0.0/": staging.folder / "0"}


def test_a_github_address_whose_package_cannot_be_had_says_what_would_serve_it(tmp_path):
    corrupt = tmp_path / "charts.tgz"
    corrupt.write_bytes(b"not a tarball")
    url = "https://cdn.jsdelivr.net/gh/someone/charts@2.0.0/dist/charts.js"
    staging = staged(tmp_path, {"charts": corrupt}, [url])
    assert staging.unserved == {url: (
        f"{corrupt}: the tarball is corrupt (not a gzip file) (a GitHub address is served from npm only by "
        "someone/charts's own package, charts at that version); pass --package charts=PATH (a tarball or package "
        "folder of it), route the address to your own copy, or list it in allow_blocked")}
