"""The class names a compiled stylesheet defines, with where each is first defined.

tinycss2 tokenizes as browsers do: a class is a `.` delimiter directly followed by an identifier, sought in
every prelude, inside at-rule blocks and functional pseudo-classes (`:not(.x)`); `.5em` is a number, never one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import tinycss2

from ..errors import LintError


@dataclass(frozen=True)
class ClassDef:
    name: str
    path: Path
    line: int
    col: int


def classes_in_css(text: str, path: Path) -> dict[str, ClassDef]:
    """Every class a stylesheet's selectors mention -> its first definition."""
    found: dict[str, ClassDef] = {}
    rules = tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True)
    _walk_rules(rules, path, found)
    return found


def _walk_rules(rules, path: Path, found: dict) -> None:
    for rule in rules:
        if rule.type == "error":
            raise LintError(f"{path}:{rule.source_line}:{rule.source_column}: CSS parse error: "
                            f"{rule.message}; rebuild it with `theme build`")
        if rule.type == "qualified-rule":
            _classes_in_tokens(rule.prelude, path, found)
            # Nested rules (CSS nesting) may sit in the block; declarations are skipped.
            _walk_rules(_nested(rule.content), path, found)
        elif rule.type == "at-rule" and rule.content is not None:
            _walk_rules(_nested(rule.content), path, found)


def _nested(content):
    items = tinycss2.parse_blocks_contents(content, skip_comments=True, skip_whitespace=True)
    return [item for item in items if item.type in ("qualified-rule", "at-rule", "error")
            and not (item.type == "error" and item.kind == "invalid")]


def _classes_in_tokens(tokens, path: Path, found: dict) -> None:
    previous = None
    for token in tokens:
        if token.type == "ident" and previous is not None and previous.type == "literal" \
                and previous.value == ".":
            found.setdefault(token.value, ClassDef(token.value, path, previous.source_line,
                                                   previous.source_column))
        elif token.type in ("function", "() block", "[] block"):
            inner = token.arguments if token.type == "function" else token.content
            _classes_in_tokens(inner, path, found)
        if token.type not in ("whitespace", "comment"):
            previous = token
        else:
            previous = None  # ". x" is not a class selector


def classes_in_files(paths) -> dict[str, ClassDef]:
    """Union over several built stylesheets; the first file wins for positions."""
    found: dict[str, ClassDef] = {}
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise LintError(f"{path}: built theme CSS not found; run `theme build` first") from None
        except (OSError, UnicodeDecodeError) as err:
            raise LintError(f"{path}: cannot read built theme CSS ({err}); rebuild it with `theme build`") from None
        for name, where in classes_in_css(text, Path(path)).items():
            found.setdefault(name, where)
    return found
