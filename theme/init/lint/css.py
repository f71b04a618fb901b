"""The class names a stylesheet defines, with where each is first defined, and the sheets it @imports.

tinycss2 tokenizes as browsers do: a class is a `.` delimiter directly followed by an identifier, sought in
every prelude, inside at-rule blocks and functional pseudo-classes (`:not(.x)`); `.5em` is a number, never one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import tinycss2

from ...core.errors import LintError

if TYPE_CHECKING:
    from tinycss2.ast import Node

# (line, col) in the parsed text -> (line, col) in its file; a <style> block is not at 1:1 of its page.
Shift = Callable[[int, int], tuple[int, int]]


@dataclass(frozen=True)
class ClassDef:
    name: str
    path: Path
    line: int
    col: int


@dataclass
class Sheet:
    """What one stylesheet text holds: its classes and the @import targets, as written."""

    classes: dict[str, ClassDef] = field(default_factory=dict)
    imports: list[tuple[str, int, int]] = field(default_factory=list)  # (url, line, col)


def parse_sheet(text: str, path: Path, shift: Shift | None = None) -> Sheet:
    """Classes and @imports of a stylesheet; positions through `shift` when given."""
    shift = shift or (lambda line, col: (line, col))
    sheet = Sheet()
    rules = tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True)
    for rule in rules:
        if rule.type == "at-rule" and rule.lower_at_keyword == "import":
            url = _import_url(rule.prelude)
            if url:
                sheet.imports.append((url, *shift(rule.source_line, rule.source_column)))
    _walk_rules(rules, path, sheet.classes, shift)
    return sheet


def classes_in_css(text: str, path: Path) -> dict[str, ClassDef]:
    """Every class a stylesheet's selectors mention -> its first definition."""
    return parse_sheet(text, path).classes


def _import_url(prelude: Iterable[Node]) -> str | None:
    """The address of `@import url(x)`, `@import "x"` or `@import url("x")`."""
    first = next((t for t in prelude if t.type not in ("whitespace", "comment")), None)
    if first is None:
        return None
    if first.type in ("url", "string"):
        return str(first.value)
    if first.type == "function" and first.lower_name == "url":
        arg = next((t for t in first.arguments if t.type == "string"), None)
        return str(arg.value) if arg is not None else None
    return None


def _walk_rules(rules: Iterable[Node], path: Path, found: dict[str, ClassDef], shift: Shift) -> None:
    for rule in rules:
        if rule.type == "error":
            line, col = shift(rule.source_line, rule.source_column)
            raise LintError(f"{path}:{line}:{col}: CSS parse error: {rule.message}; "
                            "fix the stylesheet (browsers drop that rule)")
        if rule.type == "qualified-rule":
            _classes_in_tokens(rule.prelude, path, found, shift)
            # Nested rules (CSS nesting) may sit in the block; declarations are skipped.
            _walk_rules(_nested(rule.content), path, found, shift)
        elif rule.type == "at-rule" and rule.content is not None:
            _walk_rules(_nested(rule.content), path, found, shift)


def _nested(content: list[Node]) -> list[Node]:
    items = tinycss2.parse_blocks_contents(content, skip_comments=True, skip_whitespace=True)
    return [item for item in items if item.type in ("qualified-rule", "at-rule", "error")
            and not (item.type == "error" and item.kind == "invalid")]


def _classes_in_tokens(tokens: Iterable[Node], path: Path, found: dict[str, ClassDef], shift: Shift) -> None:
    previous = None
    for token in tokens:
        if token.type == "ident" and previous is not None and previous.type == "literal" \
                and previous.value == ".":
            if token.value not in found:
                found[token.value] = ClassDef(token.value, path, *shift(previous.source_line,
                                                                         previous.source_column))
        elif token.type in ("function", "() block", "[] block"):
            inner = token.arguments if token.type == "function" else token.content
            _classes_in_tokens(inner, path, found, shift)
        if token.type not in ("whitespace", "comment"):
            previous = token
        else:
            previous = None  # ". x" is not a class selector


def read_css(path: Path) -> str:
    """A stylesheet's text, or a LintError that says what to do."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LintError(f"{path}: stylesheet not found; check the path") from None
    except (OSError, UnicodeDecodeError) as err:
        raise LintError(f"{path}: cannot read stylesheet ({err}); save it as UTF-8 text") from None


def classes_in_files(paths: Iterable[Path]) -> dict[str, ClassDef]:
    """Union over several stylesheets (no @import followed); the first file wins for positions."""
    found: dict[str, ClassDef] = {}
    for path in paths:
        for name, where in classes_in_css(read_css(path), Path(path)).items():
            found.setdefault(name, where)
    return found
