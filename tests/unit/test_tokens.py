"""theme.stylesheet.tokens: pure functions reading tokens back from CSS text."""

import json

import pytest

from theme.stylesheet import tokens

CSS = """
:root, [data-theme="light"] { --theme-text-color: #111; --theme-gap: 4px; color-scheme: light; }
:root { --theme-font-family-body: "Source Serif 4", serif; --other: 1px; }
@media (prefers-color-scheme: dark) {
  :root:not([data-theme="light"]) { --theme-text-color: #eee; color-scheme: dark; }
}
[data-theme="dark"] { --theme-text-color: #eee; color-scheme: dark; }
.note { color: var(--theme-text-color); }
"""


def test_read_tokens_pairs_light_and_dark_in_stylesheet_order():
    found = tokens.read_tokens(CSS)
    assert [(t.name, t.light, t.dark) for t in found] == [
        ("text-color", "#111", "#eee"),
        ("gap", "4px", "4px"),  # not overridden in dark: the light value applies
        ("font-family-body", '"Source Serif 4", serif', '"Source Serif 4", serif'),
    ]
    assert found[0].property == "--theme-text-color"


def test_properties_without_the_prefix_are_not_tokens():
    assert "other" not in {t.name for t in tokens.read_tokens(CSS)}
    assert [t.name for t in tokens.read_tokens(CSS, prefix="other")] == []


def test_json_is_deterministic_and_complete():
    text = tokens.to_json(tokens.read_tokens(CSS))
    assert text == tokens.to_json(tokens.read_tokens(CSS))
    data = json.loads(text)
    assert data["tokens"][0] == {"name": "text-color", "property": "--theme-text-color",
                                 "light": "#111", "dark": "#eee"}


def test_declarations_reads_top_level_or_one_media_block():
    assert tokens.declarations(CSS, ".note") == {"color": "var(--theme-text-color)"}
    dark = tokens.declarations(CSS, ':root:not([data-theme="light"])',
                               media="(prefers-color-scheme: dark)")
    assert dark == {"--theme-text-color": "#eee", "color-scheme": "dark"}
    assert tokens.declarations(CSS, ':root:not([data-theme="light"])') == {}


def test_dark_media_matches_detects_a_drifted_block():
    assert tokens.dark_media_matches(CSS)
    assert not tokens.dark_media_matches(CSS.replace("--theme-text-color: #eee; color-scheme: dark; }\n}",
                                                     "--theme-text-color: #ddd; color-scheme: dark; }\n}"))


@pytest.mark.parametrize("raw, expected", [
    ("var(--a)", "red"),
    ("4px solid var(--b)", "4px solid red"),  # --b points at --a
    ("var(--missing, blue)", "blue"),
    ("var(--missing, var(--a))", "red"),
    ("plain", "plain"),
])
def test_resolve_follows_var_chains(raw, expected):
    assert tokens.resolve(raw, {"--a": "red", "--b": "var(--a)"}) == expected


def test_resolve_reports_unknown_and_cyclic_properties():
    with pytest.raises(KeyError):
        tokens.resolve("var(--nope)", {})
    with pytest.raises(ValueError, match="cycle"):
        tokens.resolve("var(--a)", {"--a": "var(--b)", "--b": "var(--a)"})


# ------------------------------------------------------------ token page (theme.stylesheet.tokens_page)

PAGE_CSS = CSS + """
:root { --theme-alias: var(--theme-text-color); }
.card { color: var(--theme-alias); font-size: 12px; }
@media (min-width: 1000px) { .wide { border: 1px solid var(--theme-text-color); font-size: 12px; } }
.plain { font-size: 1.04em; }
"""


def test_usages_follow_var_chains_and_media_blocks():
    from theme.stylesheet import tokens_page

    uses = tokens_page.usages(PAGE_CSS)
    text_color = [(u.selector, u.property, u.media) for u in uses["--theme-text-color"]]
    assert text_color == [(".note", "color", ""), (".card", "color", ""),
                          (".wide", "border", "(min-width: 1000px)")]
    assert [(u.selector, u.property) for u in uses["--theme-alias"]] == [(".card", "color")]
    assert "--theme-gap" not in uses  # defined, read by no rule


def test_font_sizes_lists_every_selector_per_size():
    from theme.stylesheet import tokens_page

    assert tokens_page.font_sizes(PAGE_CSS) == {
        "12px": [".card", ".wide @media (min-width: 1000px)"], "1.04em": [".plain"]}


def test_token_page_escapes_values_and_is_deterministic():
    from theme.stylesheet import tokens_page

    css = ':root { --theme-font-family-body: "A<b>" , serif; --theme-x: #fff; }'
    page = tokens_page.render(css)
    assert page == tokens_page.render(css)
    assert "A<b>" not in page and "&quot;A&lt;b&gt;&quot;" in page
    assert "<script" not in page and "http" not in page.replace("http-equiv", "")


SCALE_FILES = {
    "tokens/_scale.scss": "// font sizes\n$font-size-1: 12px !default;\n$font-size-2: 17px !default;\n"
                          "\n// spaces (margin, padding, gap)\n$space-1: 4px !default;\n",
    "tokens/_palette.scss": "// The palette\n$gray-850: #24292f !default;\n$blue-600: #1a5fb4 !default;\n",
    "tokens/_roles.scss": "$font-size-small: $font-size-1 !default;  // small text\n"
                          "$color-link: $blue-600 !default;\n$color-link-dark: $color-link !default;\n",
    "components/_note-box.scss": "$note-box-title-font-size: $font-size-small !default;\n"
                                 "$note-box-padding: $space-1 $space-1 !default;\n.note-box { x: 1 }\n",
    "components/_d-code.scss": "$d-code-font-size: $font-size-small !default;\n",
    "components/_dark-mode.scss": "$a-color-dark: $color-link-dark !default;\n",
}


def test_read_scale_lists_each_primitive_with_the_components_that_read_it():
    found = {p.name: p for p in tokens.read_scale(SCALE_FILES)}
    assert list(found) == ["font-size-1", "font-size-2", "space-1", "gray-850", "blue-600"]  # files' order
    assert found["font-size-1"] == tokens.Primitive("font-size-1", "12px", "font sizes", ("d-code", "note-box"))
    assert found["space-1"].ladder == "spaces" and found["space-1"].readers == ("note-box",)
    assert found["blue-600"].readers == ("dark-mode",)  # through a role and its dark value
    assert found["font-size-2"].readers == found["gray-850"].readers == ()
    assert json.loads(tokens.to_json([], list(found.values())))["scale"][0]["readers"] == ["d-code", "note-box"]


def test_a_project_without_a_scale_has_none(tmp_path):
    assert tokens.scale_sources(tmp_path) == {} and tokens.read_scale({}) == []
