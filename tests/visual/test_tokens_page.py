"""`theme tokens --html` opened in a real Chromium: every token has a row, colour
swatches paint the token's light and dark values, font stacks and sizes have a
specimen, and "used by" names the rules that read the property.

The page is opened from disk (file://): it must be self-contained, so any
request that is not that one file is recorded and fails the test.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from theme.stylesheet import tokens

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def page_file(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tokens-page")
    shutil.copytree(REPO / "scss", root / "scss")
    shutil.copytree(REPO / "theme/stylesheet/scss/theme", root / "scss/theme")  # a vendored copy: it wins
    (root / "pyproject.toml").write_text('[tool.theme]\nentry = "scss/style.scss"\noutputs = ["out/style.css"]\n')
    run = subprocess.run([sys.executable, "-m", "theme", "tokens", "--html", "docs/tokens.html"], cwd=root,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    build = subprocess.run([sys.executable, "-m", "theme", "build"], cwd=root, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    return root / "docs/tokens.html"


@pytest.fixture(scope="module")
def loaded(page_file, plain_chromium):
    page = plain_chromium.new_page(viewport={"width": 1280, "height": 900})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(page_file.as_uri())
    yield page, requests
    page.context.close()


@pytest.fixture(scope="module")
def css(page_file) -> str:
    return (page_file.parents[1] / "out/style.css").read_text()


def test_the_page_is_self_contained(loaded, page_file):
    _page, requests = loaded
    assert requests == [page_file.as_uri()]


def test_every_token_has_a_row_with_light_and_dark_values(loaded, css):
    page, _ = loaded
    expected = tokens.read_tokens(css)
    rows = page.eval_on_selector_all(
        "#tokens tr.token",
        "rows => rows.map(r => [r.dataset.token, r.querySelector('.value.light code').textContent,"
        " r.querySelector('.value.dark code').textContent])")
    assert [r[0] for r in rows] == [t.property for t in expected]
    for (prop, light, dark), token in zip(rows, expected, strict=True):
        assert light.startswith(token.light) and dark.startswith(token.dark), prop


def test_colour_swatches_paint_the_token_values(loaded, css):
    page, _ = loaded
    painted = page.eval_on_selector_all(
        "#tokens tr.token.colour",
        "rows => rows.map(r => [r.dataset.token,"
        " getComputedStyle(r.querySelector('.value.light .swatch')).backgroundColor,"
        " getComputedStyle(r.querySelector('.value.dark .swatch')).backgroundColor,"
        " r.querySelector('.value.light .swatch').getBoundingClientRect().width])")
    colours = {t.property: t for t in tokens.read_tokens(css) if t.light.startswith("#")}
    assert {p[0] for p in painted} == set(colours) and len(painted) >= 40
    for prop, light, dark, width in painted:
        assert width > 20, prop  # a visible chip, not an empty span
        assert light == _rgb(colours[prop].light), (prop, light)
        assert dark == _rgb(colours[prop].dark), (prop, dark)


def test_font_stacks_and_type_sizes_have_specimens(loaded, css):
    page, _ = loaded
    fonts = page.eval_on_selector_all(
        "#tokens tr.token.font", "rows => rows.map(r => [r.dataset.token,"
        " getComputedStyle(r.querySelector('.value.light .specimen')).fontFamily])")
    assert {f[0] for f in fonts} == {"--theme-font-family-body", "--theme-font-family-heading",
                                     "--theme-font-family-code"}
    assert all(family.startswith(('"Source', '"JetBrains')) for _, family in fonts), fonts
    sizes = page.eval_on_selector_all(
        "#type-sizes tr.size", "rows => rows.map(r => [r.dataset.size, r.textContent,"
        " getComputedStyle(r.querySelector('.specimen')).fontSize])")
    by_size = {s: (text, px) for s, text, px in sizes}
    assert "12px" in by_size and by_size["12px"][1] == "12px"
    for selector in (".note-box-title", ".note-box-content", "d-code"):
        assert selector in by_size["12px"][0]
    assert "d-article" in by_size["1.04em"][0]


def test_used_by_names_the_components_that_read_each_token(loaded):
    page, _ = loaded
    uses = dict(page.eval_on_selector_all(
        "#tokens tr.token", "rows => rows.map(r => [r.dataset.token, r.cells[3].textContent])"))
    assert ".note-box background" in uses["--theme-note-box-background"]
    assert ".note-box-title color" in uses["--theme-note-box-title-color"]
    assert "d-article img filter" in uses["--theme-image-filter"]
    assert "d-code[block] background" in uses["--theme-code-background"]
    assert "d-code[block]:defined background" in uses["--theme-code-block-background"]
    assert "d-math:defined filter" in uses["--theme-runtime-filter"]
    assert "d-code:defined filter" in uses["--theme-runtime-code-filter"]


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"
