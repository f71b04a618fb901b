"""The JavaScript, HTML and CSS theme ships are real files, checked as such (issue 31, item 3).

- `node --check` on every .js file under theme/, each checked as what it is: a page script
  of theme/capture/js/ is ONE function expression (checked as `(0, <function>)`, which a
  second statement or a stray `;` breaks); serve.js and the review app's app.js are
  programs; comment.js is the body of actions/github-script's async function. The linked
  scripts theme/capture/scripts.py builds from the files are checked too.
- Each page script's `// uses:` line says what it uses, no more and no less.
- No module of theme/ holds JS, HTML or CSS in a Python string longer than one line.

node: Playwright's own (it ships one), else the one on PATH; the node tests skip, saying
so, when there is neither.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from theme.capture import scripts

REPO = Path(__file__).resolve().parents[2]
THEME = REPO / "theme"
PAGE_SCRIPTS = sorted((THEME / "capture" / "js").glob("*.js"))
NAMES = [p.stem for p in PAGE_SCRIPTS]
# Files that are not page scripts, each with how its runner reads it ({} is the file's text).
OTHER_JS = {
    "capture/serve.js": "{}",  # run by `node -e` (theme/capture/remote.py)
    "review/app/app.js": "{}",  # a classic <script> of the review page
    "init/comment.js": "(async function (github, context, core, require) {{\n{}\n}});\n",  # github-script
}
INIT_SCRIPTS = ("KEEP_REAL_TIME", "EAGER", "SCHEME_PROBE", "WATCH")


def node() -> str:
    try:
        import playwright
    except ImportError:
        playwright = None
    if playwright is not None:
        bundled = Path(playwright.__file__).parent / "driver" / "node"
        if bundled.is_file():
            return str(bundled)
    found = shutil.which("node")
    if found is None:
        pytest.skip("no node: neither Playwright's bundled one nor one on PATH, so `node --check` cannot run")
    return found


def node_check(tmp_path: Path, text: str, name: str = "checked.js") -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([node(), "--check", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_every_js_file_under_theme_is_checked_here():
    """A new .js file gets a rule above, or this fails."""
    every = {p.relative_to(THEME).as_posix() for p in THEME.rglob("*.js")} - {"init/distill/template.v2.js"}
    assert every == {f"capture/js/{p.name}" for p in PAGE_SCRIPTS} | set(OTHER_JS)


@pytest.mark.parametrize("name", NAMES)
def test_a_page_script_is_one_function_expression(tmp_path, name):
    header, _, function = scripts.parts(name)
    assert re.match(r"(async\s*)?\(", function), f"{name}.js: not a function expression after its header"
    assert not function.splitlines()[-1].lstrip().startswith("//"), f"{name}.js ends in a comment"
    node_check(tmp_path, f"(0,\n{function}\n);\n", f"{name}.js")


LINKED = sorted(n for n, v in vars(scripts).items() if re.fullmatch(r"[A-Z][A-Z_]+", n) and isinstance(v, str)
                and n not in ("STABLE_CSS", "FONT_PROBE", "TITLE", "LIVE_CANVAS"))


@pytest.mark.parametrize("name", LINKED)
def test_a_linked_script_is_what_node_reads_as_one_expression(tmp_path, name):
    text = getattr(scripts, name)
    node_check(tmp_path, text if name in INIT_SCRIPTS else f"(0,\n{text}\n);\n")


def test_an_init_script_with_an_argument_checks_too(tmp_path):
    node_check(tmp_path, scripts.data_theme('dark"</script>'))
    node_check(tmp_path, scripts.seeded(2**53 - 1))


@pytest.mark.parametrize("rel", sorted(OTHER_JS))
def test_the_other_js_files_check_as_their_runner_reads_them(tmp_path, rel):
    node_check(tmp_path, OTHER_JS[rel].format((THEME / rel).read_text(encoding="utf-8")))


def test_a_syntax_error_fails_the_check(tmp_path):
    """The check above can fail: a second statement after a function expression is refused."""
    with pytest.raises(AssertionError, match="SyntaxError"):
        node_check(tmp_path, "(0,\n() => 1;\nconst x = 2\n);\n")


@pytest.mark.parametrize("name", NAMES)
def test_uses_names_what_a_script_uses_and_nothing_else(name):
    """Every name on a `// uses:` line is used in the function (a file, or a value link() is
    given), and a script calls no other script it does not declare."""
    _, uses, function = scripts.parts(name)
    code = re.sub(r"//[^\n]*", "", function)
    for used in uses:
        assert re.search(rf"\b{used}\b", code), f"{name}.js declares {used} and never uses it"
        if not used.isupper():
            assert (THEME / "capture" / "js" / f"{scripts.file_of(used)}.js").is_file(), used
    camel = {re.sub(r"_(\w)", lambda m: m.group(1).upper(), n): n for n in NAMES if n != name}
    called = {c for c in camel if re.search(rf"(?<![\w.$]){c}\s*\(", code)}
    assert called <= set(uses), f"{name}.js calls {sorted(called - set(uses))} without `// uses:`"


def test_a_value_a_script_uses_must_be_given():
    with pytest.raises(KeyError, match="naming_of.js uses CHROME: give it to link"):  # through regions.js
        scripts.link("regions")


def test_the_stylesheet_walker_is_the_one_every_reader_uses():
    """The capture (pin_width, who_asked), init (survey) and lint (collect) read stylesheets
    through walk_sheets.js only: none walks cssRules itself."""
    for name in ("pin_width", "who_asked", "survey", "collect"):
        assert "walkSheets" in scripts.parts(name)[1], name
    for name in NAMES:
        if name != "walk_sheets":
            assert "cssRules" not in scripts.parts(name)[2] or name == "collect", name


def test_the_review_page_inlines_its_css_and_script_once():
    from theme.review import report

    app = THEME / "review" / "app"
    page = report._page()
    assert "{{STYLE}}" not in page and "{{SCRIPT}}" not in page
    assert page.count("/*DATA*/null") == 1  # to_html writes the report there, and only there
    assert "</script" not in (app / "app.js").read_text(encoding="utf-8").lower()
    assert "</style" not in (app / "style.css").read_text(encoding="utf-8").lower()


# ------------------------------------------------------------------ none in Python strings

# What marks a text as JS, HTML or CSS: an arrow or a function, a doctype or an element
# (an opening tag, later its closing tag), or a CSS declaration block. Prose that names
# a tag ("<html data-typeset>", "</p> with no open <p>") is not an element.
CODE = re.compile(r"=>|\bfunction\s*[\w$]*\s*\(|<!doctype|<([a-z][\w-]*)\b[^<>]*>.*?</\1\s*>"
                  r"|\{[^{}]*:[^{}]*;[^{}]*\}", re.I | re.S)


def literal_text(node: ast.AST) -> str | None:
    """The text of a string literal: a constant, an f-string's literal parts, or a `+` chain
    of them (None: not a string literal)."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = literal_text(node.left), literal_text(node.right)
        return None if left is None and right is None else (left or "") + (right or "")
    return None


def code_in_strings(root: Path) -> list[str]:
    """`file:line` of each Python string literal under `root` whose text runs over more than
    one line and looks like JS, HTML or CSS. Docstrings are prose, not checked. A long
    one-line text wrapped over several source lines is one line: what the rule is after is
    code kept as a block of text, which no tool reads."""
    found = set()
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            text = None if id(node) in docs else literal_text(node)
            if text and "\n" in text.strip("\n") and CODE.search(text):
                found.add(f"{path.relative_to(root.parent)}:{node.lineno}")
    return sorted(found)


def test_no_module_holds_js_html_or_css_in_a_python_string_longer_than_one_line():
    assert code_in_strings(THEME) == []


def test_the_rule_finds_such_a_string(tmp_path):
    """The rule above is not vacuous: each way of keeping a page or a script in Python is
    found, and prose about tags, one-liners and docstrings are not."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text('"""A docstring may show `(x) => x`\nand <p>a</p>."""\n'
                              'PAGE = """<!doctype html>\n<p>x</p>"""\n'
                              'JS = ("(el) => {\\n"\n      " return el; }")\n'
                              'CSS = f"body {{ margin: 0; }}\\np {{ color: {1}; }}"\n'
                              'FN = "(a) => {\\n" + X + "}"\n'
                              'ONE = "() => navigator.platform"\n'
                              'LONG = ("(a) => "\n        "a")\n'
                              'SAID = "</p> with no open <p>\\nremove it"\n', encoding="utf-8")
    assert code_in_strings(pkg) == ["pkg/a.py:3", "pkg/a.py:5", "pkg/a.py:7", "pkg/a.py:8"]
