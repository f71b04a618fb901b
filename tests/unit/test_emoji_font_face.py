"""The library's emoji font alias, compiled for real by libsass through `theme build`'s load
path: "Theme Emoji" covers emoji only (Unicode's properties, read with `regex`), every stack
names it, and an article that ships its own emoji font gets its family and no alias.
tests/visual/test_library_on_distill_example.py shows what this changes in Chromium."""

from __future__ import annotations

from pathlib import Path

import regex
import tinycss2

from theme.core import config
from theme.stylesheet import build, tokens

STACKS = {"body": "serif", "heading": "sans-serif", "code": "monospace"}
# Emoji by default, or a joiner that is no emoji itself (ZWJ, VS16, keycap mark, tags).
EMOJI_ONLY = regex.compile(r"[\p{Emoji_Presentation}[\p{Emoji_Component}--\p{Emoji}]]", regex.V1)
TEXT = " #*0123456789\u00a9\u00ae\u2122\u2764\u263a"  # emoji too, but text unless followed by VS16


def compile_entry(tmp_path: Path, entry: str) -> str:
    (tmp_path / "scss").mkdir(exist_ok=True)
    (tmp_path / "scss/article.scss").write_text(entry)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.theme]\nentry = "scss/article.scss"\noutputs = ["site/style.css"]\n')
    return build.compile_theme(config.load(tmp_path / "pyproject.toml")).css.decode()


def font_faces(css: str) -> list[dict[str, list]]:
    """Each @font-face as {descriptor: its value's tokens}."""
    faces = []
    for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
        if rule.type == "at-rule" and rule.lower_at_keyword == "font-face":
            decls = tinycss2.parse_blocks_contents(rule.content, skip_comments=True, skip_whitespace=True)
            faces.append({d.lower_name: d.value for d in decls if d.type == "declaration"})
    return faces


def code_points(value: list) -> set[int]:
    ranges = [t for t in value if t.type == "unicode-range"]
    assert ranges, tinycss2.serialize(value)
    return {c for t in ranges for c in range(t.start, t.end + 1)}


def family(value: list) -> str:
    return tinycss2.serialize(value).strip().strip('"')


def test_the_alias_covers_emoji_and_their_joiners_never_digits_spaces_or_text_symbols(tmp_path):
    (face,) = font_faces(compile_entry(tmp_path, '@import "theme/base";\n'))
    assert family(face["font-family"]) == "Theme Emoji"
    covered = code_points(face["unicode-range"])
    assert sorted(hex(c) for c in covered if not EMOJI_ONLY.match(chr(c))) == []
    assert [ch for ch in TEXT if ord(ch) in covered] == []
    wanted = "\U0001F4DD\U0001F600\U0001F44D\U0001F3FD\U0001F1EB\u231A\u2705\u200d\ufe0f\u20e3\U000E0067"
    assert [f"U+{ord(ch):X}" for ch in wanted if ord(ch) not in covered] == []
    assert len(covered) > 1300  # every emoji-by-default character (1205 in Unicode 15) and the tags


def test_the_alias_draws_from_the_installed_emoji_fonts_in_order(tmp_path):
    (face,) = font_faces(compile_entry(tmp_path, '@import "theme/base";\n'))
    assert " ".join(tinycss2.serialize(face["src"]).split()) == (
        'local("Noto Color Emoji"), local("NotoColorEmoji"), local("Apple Color Emoji"), local("Segoe UI Emoji")')
    entry = '$emoji-font-local-names: "Twemoji Mozilla";\n@import "theme/base";\n'
    (face,) = font_faces(compile_entry(tmp_path, entry))
    assert tinycss2.serialize(face["src"]).strip() == 'local("Twemoji Mozilla")'


def test_every_stack_names_the_alias_just_before_its_generic_family(tmp_path):
    root = tokens.declarations(compile_entry(tmp_path, '@import "theme/base";\n'), ":root")
    for name, generic in STACKS.items():
        stack = root[f"--theme-font-family-{name}"]
        assert stack.endswith(f'"Theme Emoji", {generic}'), stack
        assert "Noto Color Emoji" not in stack  # its digits and spaces would draw text


def test_an_article_that_ships_its_emoji_font_names_it_and_gets_no_alias(tmp_path):
    css = compile_entry(tmp_path, '$font-family-emoji: "Noto Color Emoji";\n@import "theme/base";\n')
    assert font_faces(css) == []
    root = tokens.declarations(css, ":root")
    for name, generic in STACKS.items():
        assert root[f"--theme-font-family-{name}"].endswith(f'"Noto Color Emoji", {generic}')
