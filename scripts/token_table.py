"""The manual's token tables (docs/scss.md), from the SCSS library and the CSS it compiles to.

    python scripts/token_table.py            # print the tables
    python scripts/token_table.py --write    # replace them in docs/scss.md

tests/unit/test_docs_tokens.py fails when docs/scss.md and this output differ, so every token
is documented with its real default.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from theme.core import config  # noqa: E402
from theme.stylesheet import build, tokens, tokens_page  # noqa: E402

LIB = REPO / "theme/stylesheet/scss/theme"
START, END = "<!-- token-tables:start -->", "<!-- token-tables:end -->"
ASSIGN = re.compile(r"^\$(?P<name>[\w-]+)\s*:\s*(?P<value>.*?)\s*!default;\s*(?://\s*(?P<note>.*))?$")
ROLE_MAPS = ("light-roles", "dark-roles", "typography-roles")


def sass_tokens() -> list[tuple[str, str, str, str]]:
    """(file stem, name, default, trailing comment) of every `$name: value !default;` line."""
    out = []
    order = re.findall(r'@import "(tokens/[\w-]+)"', (LIB / "_tokens.scss").read_text())  # import order
    for file in (LIB / f"{Path(o).parent}/_{Path(o).name}.scss" for o in order):
        for line in file.read_text().splitlines():
            m = ASSIGN.match(line.strip())
            if m and m["name"] not in ROLE_MAPS:
                out.append((file.stem.lstrip("_"), m["name"], m["value"], (m["note"] or "").strip()))
    return out


def used_by(name: str) -> str:
    """Where `$name` is read: components, roles it is the value of, tokens it is the default of."""
    pattern = re.compile(rf"\${re.escape(name)}(?![\w-])")
    places = []
    components = sorted(f.stem.lstrip("_") for f in LIB.glob("components/*.scss") if pattern.search(_code(f)))
    if components:
        places.append("components: " + ", ".join(components))
    mixins = sorted(f.stem.lstrip("_") for f in LIB.glob("mixins/*.scss") if pattern.search(_code(f)))
    if mixins:
        places.append("mixins: " + ", ".join(mixins))
    if pattern.search(_code(LIB / "_root.scss")):
        places.append("the :root custom properties")
    for file in sorted(LIB.glob("tokens/*.scss")):
        for line in _code(file).splitlines():
            if not pattern.search(line):
                continue
            role = re.match(r'\s*"([\w-]+)"\s*:', line)
            token = re.match(r"\s*\$([\w-]+)\s*:", line)
            scheme = {"light": " (light)", "dark": " (dark)"}.get(file.stem.lstrip("_"), "")
            if role:
                places.append(f"`--theme-{role[1]}`{scheme}")
            elif token and token[1] != name:
                places.append(f"default of `${token[1]}`")
    return "; ".join(places)


def _code(file: Path) -> str:
    return "\n".join(line.split("//")[0] for line in file.read_text().splitlines())


def role_rows(css: str) -> list[tuple[str, str, str, str]]:
    """(role, light, dark, rules that read it) from the compiled CSS."""
    uses = tokens_page.usages(css)
    rows = []
    for t in tokens.read_tokens(css):
        read = [f"`{u.selector}` {u.property}" for u in uses.get(t.property, [])]
        shown = read[:3] + ([f"{len(read) - 3} more"] if len(read) > 3 else [])
        rows.append((t.name, t.light, t.dark, ", ".join(shown) or "no theme rule (for the page's own markup)"))
    return rows


def library_css() -> str:
    """The library with every default (`@import "theme/all"` alone), built as `theme build` does.
    Not this repository's entry: the specimen sets tokens of its own (its emoji font)."""
    cfg = config.load(REPO / "pyproject.toml")
    with tempfile.TemporaryDirectory() as tmp:
        entry = Path(tmp) / "defaults.scss"
        entry.write_text('@import "theme/all";\n')
        cfg = dataclasses.replace(cfg, build=dataclasses.replace(cfg.build, entry=entry))
        return build.compile_theme(cfg).css.decode()


def tables() -> str:
    css = library_css()
    lines = [START, "", "Sass tokens (`theme/tokens`), file by file:", "",
             "| token | default | what it styles |", "|---|---|---|"]
    for stem, name, value, note in sass_tokens():
        what = "; ".join(p for p in (note, used_by(name)) if p)
        lines.append(f"| `${name}` ({stem}) | `{_cell(value)}` | {_cell(what)} |")
    lines += ["", "Role tokens: keys of `$light-roles`, `$dark-roles` (colours) and `$typography-roles`, "
              "printed as `--theme-<key>` on `:root` (dark: the same keys in the dark block):", "",
              "| role | light | dark | read by |", "|---|---|---|---|"]
    for name, light, dark, read in role_rows(css):
        dark_cell = "same" if dark == light else f"`{_cell(dark)}`"
        lines.append(f"| `{name}` | `{_cell(light)}` | {dark_cell} | {_cell(read)} |")
    return "\n".join([*lines, "", END])


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def main() -> None:
    text = tables()
    if "--write" not in sys.argv:
        print(text)
        return
    page = REPO / "docs/scss.md"
    current = page.read_text()
    start, end = current.index(START), current.index(END) + len(END)
    page.write_text(current[:start] + text + current[end:])


if __name__ == "__main__":
    main()
