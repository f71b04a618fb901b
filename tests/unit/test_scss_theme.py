"""The real theme (scss/style.scss over the library in theme/stylesheet/scss/theme/) compiled by
libsass: the seed values, dark mode for every component, and the token rules (components read custom
properties only). CSS is parsed with tinycss2, never grepped, so formatting changes cannot fool
these tests."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tinycss2

from theme.core import config
from theme.stylesheet import build, tokens

REPO = Path(__file__).resolve().parents[2]
SCSS = REPO / "scss"  # this repo's entry
LIB = REPO / "theme/stylesheet/scss/theme"  # the SCSS library shipped in the wheel


@pytest.fixture(scope="module")
def css(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("project")
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(f'[tool.theme]\nentry = "{SCSS / "style.scss"}"\noutputs = ["out/style.css"]\n')
    return build.compile_theme(config.load(pyproject)).css.decode("utf-8")


def rules(css_text: str, media: str | None = None):
    """(selector list, declarations) of top-level rules, or of rules inside @media <media>."""
    out = []
    for node in tinycss2.parse_stylesheet(css_text, skip_comments=True, skip_whitespace=True):
        if node.type == "qualified-rule" and media is None:
            out.append(_rule(node))
        elif node.type == "at-rule" and node.lower_at_keyword == "media" and media is not None:
            if " ".join(tinycss2.serialize(node.prelude).split()) == media:
                for inner in tinycss2.parse_rule_list(node.content, True, True):
                    if inner.type == "qualified-rule":
                        out.append(_rule(inner))
    return out


def _rule(node):
    selectors = [" ".join(s.split()) for s in tinycss2.serialize(node.prelude).split(",")]
    decls = {}
    for d in tinycss2.parse_blocks_contents(node.content, True, True):
        if d.type == "declaration":
            decls[d.name] = tinycss2.serialize(d.value).strip()
    return selectors, decls


def value(css_text: str, selector: str, prop: str) -> str:
    """The last value `selector` alone gets for `prop` at top level (cascade order)."""
    found = [d[prop] for sels, d in rules(css_text) if selector in sels and prop in d]
    assert found, f"no top-level rule gives {selector} a {prop}"
    return found[-1]


def test_seed_font_sizes(css):
    assert value(css, "d-article", "font-size") == "1.04em"
    assert value(css, ".note-box-title", "font-size") == "12px"
    assert value(css, ".note-box-content", "font-size") == "12px"
    assert value(css, "d-code", "font-size") == "12px"


NOTE_BOX_PARTS = [
    (".note-box", "background"),
    (".note-box", "border-left"),
    (".note-box-title", "color"),
    (".note-box-content", "color"),
]


@pytest.mark.parametrize("selector, prop", NOTE_BOX_PARTS)
def test_dark_media_block_restyles_the_note_box(css, selector, prop):
    """Resolve the note-box property with the :root values, then with the values the
    prefers-color-scheme: dark block adds: the four seed properties must change."""
    light_table = tokens.declarations(css, ":root")
    dark_rules = rules(css, media="(prefers-color-scheme: dark)")
    assert dark_rules, "no @media (prefers-color-scheme: dark) block"
    dark_table = dict(light_table)
    for sels, decls in dark_rules:
        if any(s.startswith(":root") for s in sels):
            dark_table.update(decls)
    raw = value(css, selector, prop)
    light, dark = tokens.resolve(raw, light_table), tokens.resolve(raw, dark_table)
    assert light != dark, f"{selector} {prop} is {light} in both schemes"
    assert "var(" not in dark


def test_dark_attribute_and_media_block_print_the_same_map(css):
    media = tokens.declarations(css, ':root:not([data-theme="light"])',
                                media="(prefers-color-scheme: dark)")
    attr = tokens.declarations(css, '[data-theme="dark"]')
    assert media == attr
    assert media["color-scheme"] == "dark"
    assert tokens.declarations(css, '[data-theme="light"]')["color-scheme"] == "light"
    assert tokens.declarations(css, ":root")["color-scheme"] == "light"


def test_every_colour_token_has_a_distinct_dark_value(css):
    colour = [t for t in tokens.read_tokens(css) if t.light.startswith("#")]
    assert len(colour) >= 40
    # Identical light/dark values would be a role that ignores dark mode.
    assert [t.name for t in colour if t.light == t.dark] == []


def test_every_var_used_is_defined_on_root(css):
    defined = set(tokens.declarations(css, ":root"))
    used = set(re.findall(r"var\((--[\w-]+)", css))
    assert used, "components read no custom properties"
    assert used <= defined, sorted(used - defined)


# Selectors as the theme writes them. Some name more than the element: the Distill runtime's
# own stylesheet has `d-article table td` and puts a <style> inside d-appendix (after
# style.css), so the theme's cells name `table` and its appendix starts with `body`.
COMPONENTS = ["d-article hr", "d-title h1", "d-article h2", "a", ".note-box", "d-code[block]",
              "d-math", "d-contents", "figcaption", "d-article aside", "d-article table th, d-article table td",
              "body d-appendix", ".theme-toggle", "body", "d-article thead th", "d-article blockquote",
              "d-cite:defined, d-footnote:defined", "d-article"]


@pytest.mark.parametrize("selector", COMPONENTS)
def test_each_component_takes_its_colours_from_custom_properties(css, selector):
    """Dark mode everywhere: every component has a colour or border drawn from var(--theme-…)."""
    wanted = [s.strip() for s in selector.split(",")]
    decls = {}
    for sels, d in rules(css):
        if any(w in sels for w in wanted):
            decls.update(d)
    colourful = {k: v for k, v in decls.items()
                 if k in ("color", "background", "border-left", "border", "border-bottom", "border-top")}
    assert colourful, f"{selector} sets no colour at all"
    for prop, val in colourful.items():
        assert "#" not in val and "rgb" not in val, f"{selector} {prop}: raw colour {val}"
    assert any("var(--theme-" in v for v in colourful.values())


def test_components_never_write_raw_colours_or_scss_colour_tokens():
    hex_colour = re.compile(r"#[0-9a-fA-F]{3,8}\b")
    for file in sorted((LIB / "components").glob("*.scss")):
        for number, line in enumerate(file.read_text().splitlines(), start=1):
            code = line.split("//")[0]
            assert not hex_colour.search(code), f"{file.name}:{number}: raw colour: {line.strip()}"
            assert not re.search(r"\$(gray|blue|red|green|purple)-", code), (
                f"{file.name}:{number}: components read roles via var(), not scale tokens")


def test_scss_is_the_libsass_subset_and_entry_only_sets_tokens_then_imports():
    for file in sorted([*SCSS.rglob("*.scss"), *LIB.rglob("*.scss")]):
        text = file.read_text()
        assert not re.search(r"^\s*@(use|forward)\b", text, re.M), file
    entry_lines = [ln.strip() for ln in (SCSS / "style.scss").read_text().splitlines()]
    code = [ln for ln in entry_lines if ln and not ln.startswith("//")]
    imports = [ln for ln in code if ln.startswith("@import ")]
    # the library's documented use: token values first (each is !default there), then imports
    assert imports and code[len(code) - len(imports):] == imports, code
    assert all(re.fullmatch(r"\$[\w-]+\s*:[^;]+;", ln) for ln in code[:len(code) - len(imports)]), code


def test_tokens_use_default_so_projects_can_override_them():
    for file in sorted((LIB / "tokens").glob("*.scss")):
        for number, line in enumerate(file.read_text().splitlines(), start=1):
            code = line.split("//")[0].strip()
            if re.match(r"\$[\w-]+\s*:", code) and code.endswith(";") and "map-merge" not in code:
                assert "!default" in code, f"{file.name}:{number}: {code}"


def test_light_and_dark_role_maps_have_the_same_keys():
    key = re.compile(r'^\s*"([\w-]+)":', re.M)
    light = key.findall((LIB / "tokens/_light.scss").read_text())
    dark = key.findall((LIB / "tokens/_dark.scss").read_text())
    assert light and light == dark


def test_font_stacks_keep_their_quotes_and_end_generic(css):
    root = tokens.declarations(css, ":root")
    assert root["--theme-font-family-body"].startswith('"Source Serif 4"')
    for name, generic in [("body", "serif"), ("heading", "sans-serif"), ("code", "monospace")]:
        stack = root[f"--theme-font-family-{name}"]
        assert stack.endswith(f'"Noto Color Emoji", {generic}'), stack


def test_asides_move_into_the_margin_on_wide_screens(css):
    wide = rules(css, media="(min-width: 1000px)")
    aside = [d for sels, d in wide if "d-article aside" in sels]
    assert aside and aside[0]["float"] == "right"
    assert value(css, "d-article aside", "border-left").startswith("2px solid var(")
