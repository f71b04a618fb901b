"""`theme lint`: find the markup that silently defeats the theme (pure: no browser).

Class checks (TL020/TL021) need the built CSS of `build.outputs`; TL021 (a warning) and TL040/TL041 judge
the article as a whole, so TL021 runs only on the configured pages. Codes and severities: model.CODES.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ..config import Config
from ..errors import LintError
from . import checks
from .css import classes_in_files
from .fix import fix_file, fix_text
from .model import CODES, ERROR, WARNING, Problem, display
from .parse import Document, parse_file

__all__ = ["CODES", "LintResult", "Problem", "fix_file", "fix_text", "lint", "targets"]


@dataclass
class LintResult:
    problems: list[Problem]
    files: list[Path] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == WARNING]


def _src_root(config: Config) -> Path | None:
    """article/src beside article/dist (the configured root), when that folder exists."""
    if config.visual is None:
        return None
    src = config.visual.root.parent / "src"
    return src if src.is_dir() and src.resolve() != config.visual.root.resolve() else None


def targets(paths: Sequence[Path] | None, config: Config | None) -> list[Path]:
    """The HTML files to lint, in a stable order: the given paths (folders: every *.html below),
    else the configured pages under `visual.root` plus their copies under its sibling `src`
    when that exists (a Distill repo keeps both)."""
    if paths:
        found: list[Path] = []
        for path in map(Path, paths):
            found += sorted(path.rglob("*.html")) if path.is_dir() else [path]
        return found
    if config is None or config.visual is None:
        raise LintError(f"{config.source if config else 'pyproject.toml'}: no [tool.theme.visual] pages "
                        "to lint; pass PATHS or add [tool.theme.visual] pages")
    src = _src_root(config)
    files = [config.visual.root / page for page in config.visual.pages]
    if src is not None:
        files += [src / page for page in config.visual.pages if (src / page).exists()]
    return files


def _counterpart(path: Path, config: Config | None) -> tuple[Path, Path] | None:
    """(this copy's folder, the other copy's path) for a page under root or src."""
    src = _src_root(config) if config is not None else None
    if src is None:
        return None
    root = config.visual.root
    resolved = path.resolve()
    for here, there in ((root, src), (src, root)):
        try:
            rel = resolved.relative_to(here.resolve())
        except ValueError:
            continue
        return here, there / rel
    return None


def _copy_problems(docs: dict[Path, Document], config: Config | None) -> list[Problem]:
    problems, seen = [], set()
    for path, doc in docs.items():
        pair = _counterpart(path, config)
        if pair is None:
            continue
        other = pair[1]
        key = frozenset({path.resolve(), other.resolve()})
        if key in seen:
            continue
        seen.add(key)
        if not other.exists():
            problems.append(Problem(doc.path, 1, 1, "TL041",
                                    f"no copy at {display(other)}; copy this page there (src/ and dist/ keep the same pages)"))
            continue
        other_doc = docs.get(other) or parse_file(other)
        problems += checks.check_copies(doc, other_doc)
    return problems


def _local_scripts(doc: Document) -> list[str]:
    """Text of the page's local <script src> files (they may add theme classes at run time)."""
    texts = []
    for el in doc.elements():
        src = el.get("src") if el.tag == "script" else None
        if not src or "://" in src or src.startswith(("//", "data:")):
            continue
        path = doc.path.parent / src.split("?")[0].split("#")[0]
        try:
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue  # a missing script is not a lint matter here
    return texts


def lint(paths: Sequence[Path] | None, config: Config | None) -> LintResult:
    """Run every check; LintError (exit 2) when a page or the built CSS cannot be read."""
    files = targets(paths, config)
    defined = classes_in_files(config.build.outputs) if config is not None else None
    docs = {path: parse_file(path) for path in files}
    problems: list[Problem] = []
    for doc in docs.values():
        problems += checks.check_document(doc, defined)
    problems += _copy_problems(docs, config)
    if not paths and defined is not None:
        used = {cls for doc in docs.values() for cls, _ in checks.used_classes(doc)}
        scripts = [text for doc in docs.values() for text in _local_scripts(doc)]
        problems += checks.check_unused_classes(defined, used, scripts)
    return LintResult(sorted(set(problems), key=lambda p: (str(p.path), p.line, p.col, p.code)), files)
