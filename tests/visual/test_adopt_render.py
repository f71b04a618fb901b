"""theme.adopt on a small Distill-style article with src/ and dist/ copies of a hand-written
style.css, in a real Chromium: what it writes builds with `theme build --check` and renders
like the original in every variant, checked here by a capture of our own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from theme.adopt import adopt_stylesheet
from theme.adopt.render import SCHEMES, VIEWPORTS, compare_renders
from theme.capture import Session, variants
from theme.config import Tolerance, VisualConfig
from theme.diff import compare

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "adopt"
BROWSER = os.environ.get("THEME_BROWSER", "/usr/bin/chromium")


def make_article(root: Path) -> Path:
    for folder in ("src", "dist"):
        (root / folder).mkdir(parents=True)
        for name in ("index.html", "style.css"):
            shutil.copyfile(FIXTURE / name, root / folder / name)
    return root


def capture_all(folder: Path) -> dict:
    # The article is 448 px wide at 390 px, as its real stylesheet lays it out.
    visual = VisualConfig(root=folder, viewports=VIEWPORTS, color_schemes=SCHEMES, allow_overflow=("index.html",))
    with Session(visual, browser=BROWSER) as session:
        return {c.variant.id: c.image for c in session.capture_all(variants(visual))}


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def adopted(tmp_path_factory):
    if not Path(BROWSER).exists():
        pytest.skip(f"no browser at {BROWSER}; set THEME_BROWSER")
    root = make_article(tmp_path_factory.mktemp("article"))
    original = tmp_path_factory.mktemp("original")
    shutil.copytree(root / "dist", original, dirs_exist_ok=True)
    adoption = adopt_stylesheet(root, None, dry_run=False, force=False, browser=BROWSER)
    return root, original, adoption


def test_adopt_writes_tokens_components_and_config(adopted):
    root, _original, adoption = adopted
    assert adoption.ok and adoption.exit_code == 0, "\n".join(adoption.lines)
    assert (root / "scss/style.scss").is_file() and list((root / "scss/components").glob("_*.scss"))
    typography = (root / "scss/tokens/_typography.scss").read_text(encoding="utf-8")
    assert "$note-box-title-font-size: 12px !default;" in typography
    assert "$note-box-content-font-size: 12px !default;" in typography
    dark = (root / "scss/tokens/_colors-dark.scss").read_text(encoding="utf-8")
    assert "$note-box-content-color-dark: #d4d4d4 !default;" in dark
    import tomllib
    theme = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["theme"]
    assert theme["entry"] == "scss/style.scss" and theme["outputs"] == ["dist/style.css", "src/style.css"]
    # rgb() with a slash: libsass cannot read it, so the rule stays as written, quoted, and is named
    assert adoption.left_as_written == ["dist/style.css:78:1: .steps li::marker: "
                                        "libsass changes it as written; its values are quoted"]
    assert any(line.startswith("left as written: dist/style.css:78:1: .steps li::marker") for line in adoption.lines)
    assert [line for line in adoption.lines if line.startswith("render ")] == [
        f"render index.html ({v}): 0 differing pixels"
        for v in ("mobile-light", "mobile-dark", "desktop-light", "desktop-dark")]


def test_theme_build_check_passes_right_after(adopted):
    root, _original, _adoption = adopted
    done = subprocess.run([sys.executable, "-m", "theme", "build", "-C", str(root), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "src/style.css").read_bytes() == (root / "dist/style.css").read_bytes()


def test_the_article_renders_the_same_in_every_variant(adopted):
    root, original, _adoption = adopted
    assert (root / "dist/style.css").read_bytes() != (original / "style.css").read_bytes()
    before, after = capture_all(original), capture_all(root / "dist")
    assert sorted(before) == ["desktop-dark", "desktop-light", "mobile-dark", "mobile-light"]
    exact = Tolerance(threshold=0.0, include_aa=True)
    for variant, image in before.items():
        result = compare(image, after[variant], exact, diff_image=False)
        assert result.diff_pixels == 0 and not result.size_mismatch, (variant, result.summary())
    # the dark variant really is dark: the check compares something that changes with the scheme
    assert compare(before["desktop-light"], before["desktop-dark"], exact, diff_image=False).diff_pixels > 0


def test_the_render_check_sees_a_one_pixel_font_change(tmp_path):
    if not Path(BROWSER).exists():
        pytest.skip(f"no browser at {BROWSER}; set THEME_BROWSER")
    root = make_article(tmp_path)
    css = (root / "dist/style.css").read_bytes()
    changed = css.replace(b"  font-size: 12px;\n}\n\n.note-box-content", b"  font-size: 13px;\n}\n\n.note-box-content")
    assert changed != css
    visual = VisualConfig(root=root / "dist", viewports={"mobile": (390, 844)}, color_schemes=SCHEMES)
    outcomes = compare_renders(visual, root / "dist/style.css", css, changed, BROWSER)
    assert all(o.diff_pixels > 0 for o in outcomes), outcomes


def test_dry_run_writes_nothing(tmp_path):
    if not Path(BROWSER).exists():
        pytest.skip(f"no browser at {BROWSER}; set THEME_BROWSER")
    root = make_article(tmp_path)
    src = root / "src/style.css"  # edited by hand in one copy only, as the seeds' authors did
    src.write_text(src.read_text(encoding="utf-8").replace("font-size: 12px", "font-size: 11px"), encoding="utf-8")
    before = tree(root)
    adoption = adopt_stylesheet(root, None, dry_run=True, force=False, browser=BROWSER)
    assert adoption.ok and any(line.startswith("would write scss/style.scss") for line in adoption.lines)
    assert ("copies differ: src/style.css is not dist/style.css; using dist/style.css, the one "
            "dist/index.html links; every copy gets the compiled CSS") in adoption.lines
    assert tree(root) == before


def test_the_specimen_stylesheet_round_trips_to_zero_pixels(tmp_path):
    """The specimen's compiled style.css taken as if hand-written (issue 22's round trip): its
    page on the vendored Distill runtime with KaTeX routed, 4 variants, 0 differing pixels."""
    if not Path(BROWSER).exists():
        pytest.skip(f"no browser at {BROWSER}; set THEME_BROWSER")
    repo = Path(__file__).resolve().parents[2]
    # Links inside article/ stay links; the runtime, a link to the copy theme ships, is copied.
    shutil.copytree(repo / "article", tmp_path / "article", symlinks=True, ignore=shutil.ignore_patterns("distill"))
    shutil.copytree(repo / "article/dist/assets/distill", tmp_path / "article/dist/assets/distill")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.theme.visual]\nroot = "article/dist"\npages = ["index.html"]\n'
        'route = { "https://distill.pub/third-party/katex/" = "article/dist/assets/katex" }\n', encoding="utf-8")
    original = (tmp_path / "article/dist/style.css").read_bytes()
    adoption = adopt_stylesheet(tmp_path, None, dry_run=False, force=False, browser=BROWSER)
    assert adoption.ok, "\n".join(adoption.lines)
    assert len(adoption.diff_pixels) == 4 and set(adoption.diff_pixels.values()) == {0}
    assert adoption.left_as_written == []
    assert (tmp_path / "article/dist/style.css").read_bytes() != original  # rewritten by libsass
    colours = (tmp_path / "scss/tokens/_colors-dark.scss").read_text(encoding="utf-8")
    assert "$theme-page-background-dark: #121519 !default;" in colours
    done = subprocess.run([sys.executable, "-m", "theme", "build", "-C", str(tmp_path), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_force_overwrites_an_existing_scss(tmp_path):
    if not Path(BROWSER).exists():
        pytest.skip(f"no browser at {BROWSER}; set THEME_BROWSER")
    root = make_article(tmp_path)
    (root / "scss").mkdir()
    (root / "scss/style.scss").write_text("// an earlier attempt\n", encoding="utf-8")
    adoption = adopt_stylesheet(root, None, dry_run=False, force=True, browser=BROWSER)
    assert adoption.ok, "\n".join(adoption.lines)
    assert (root / "scss/style.scss").read_text(encoding="utf-8").startswith("// The stylesheet, from dist/style.css")


def test_a_wrong_regrouping_is_caught_by_pixels_and_undone(tmp_path, monkeypatch):
    """The cascade analysis is the one judgement adopt makes without libsass or the browser.
    Made wrong on purpose (every rule may join its component), the render check must see the
    changed colour and fall back to the original order, which renders the same."""
    if not Path(BROWSER).exists():
        pytest.skip(f"no browser at {BROWSER}; set THEME_BROWSER")
    from theme.adopt import convert

    (tmp_path / "dist").mkdir()
    (tmp_path / "dist/index.html").write_text(
        '<!DOCTYPE html><html><head><link rel="stylesheet" href="style.css"></head>'
        '<body><p class="note lead">A paragraph that is a note.</p></body></html>', encoding="utf-8")
    (tmp_path / "dist/style.css").write_text(
        ".note { color: #aa0000; font-size: 40px; }\n.lead { color: #0000aa; }\n.note { color: #00aa00; }\n",
        encoding="utf-8")
    monkeypatch.setattr(convert, "_meet", lambda a, b: False)
    adoption = adopt_stylesheet(tmp_path, None, dry_run=False, force=False, browser=BROWSER)
    renders = [line for line in adoption.lines if line.startswith("render ")]
    assert len(renders) == 8 and all(" 0 differing pixels" not in line for line in renders[:4])
    assert all(" 0 differing pixels" in line for line in renders[4:])
    assert adoption.ok and any("every rule kept in its original place" in line for line in adoption.lines)
    compiled = (tmp_path / "dist/style.css").read_text(encoding="utf-8")
    assert compiled.index("#0000aa") < compiled.index("#00aa00")


def test_theme_init_scss_from_the_command_line(tmp_path):
    """`theme init --yes --scss` as a user types it: config, tokens, 0 px in 4 variants, a green
    `theme build --check`; run again, it refuses to overwrite scss/ (exit 2, one line)."""
    if not Path(BROWSER).exists():
        pytest.skip(f"no browser at {BROWSER}; set THEME_BROWSER")
    root = make_article(tmp_path / "article")
    env = {**os.environ, "THEME_BROWSER": BROWSER}
    theme = [sys.executable, "-m", "theme"]
    # The workflow must say how CI installs theme; an editable install cannot travel, so name one.
    spec = "theme @ git+https://github.com/example/theme@0123456789abcdef0123456789abcdef01234567"
    done = subprocess.run([*theme, "init", str(root), "--yes", "--scss", "--theme-requirement", spec],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(": 0 differing pixels\n") == 4
    assert "$note-box-title-font-size: 12px !default;" in (root / "scss/tokens/_typography.scss").read_text("utf-8")
    check = subprocess.run([*theme, "build", "-C", str(root), "--check"], capture_output=True, text=True, env=env)
    assert check.returncode == 0, check.stdout + check.stderr
    again = subprocess.run([*theme, "init", str(root), "--yes", "--scss"], capture_output=True, text=True, env=env)
    assert again.returncode == 2
    assert again.stderr.strip().splitlines()[-1] == (
        "theme: scss: already exists; pass --force to overwrite its files, or move it away first")
