"""What a lint check reports: a Problem, and the table of stable codes.

Codes never change meaning once published; a retired check keeps its number
unused. Severity "warning" does not make `theme lint` exit 1 unless --strict
is given (an unused theme class costs bytes, not correctness).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ERROR, WARNING = "error", "warning"

# code -> (severity, one-line meaning). The CLI help repeats this table (and so the manual's
# command-line reference, generated from it).
CODES: dict[str, tuple[str, str]] = {
    "TL001": (ERROR, "block element inside <p>: the parser closes the paragraph early"),
    "TL002": (ERROR, "stray </p>: no open paragraph, the parser inserts an empty one"),
    "TL010": (ERROR, ".note-box is not exactly .note-box-title then .note-box-content"),
    "TL011": (ERROR, ".note-box-content is not a <div>"),
    "TL012": (ERROR, ".note-box-title/.note-box-content outside a .note-box"),
    "TL020": (ERROR, "class used by the page but defined by none of its stylesheets (nor its scripts')"),
    "TL021": (WARNING, "class defined by the theme CSS but used by no linted page or script"),
    "TL022": (ERROR, "a stylesheet the page links or @imports is missing"),
    "TL023": (WARNING, "a script the page loads was blocked in the render: TL020 skipped on that page"),
    "TL030": (ERROR, "empty <d-math>"),
    "TL031": (ERROR, "empty <d-code>"),
    "TL032": (ERROR, "<d-code> language not in the known list"),
    "TL033": (ERROR, "<d-code> without a language attribute (Distill renders it empty)"),
    "TL034": (ERROR, "markup inside <d-math>/<d-code> (its tags are lost; escape < as &lt;)"),
    "TL040": (ERROR, "src/ and dist/ copies of a page differ"),
    "TL041": (ERROR, "a page exists in only one of src/ and dist/"),
}


@dataclass(frozen=True, order=True)
class Problem:
    path: Path
    line: int
    col: int
    code: str
    message: str

    @property
    def severity(self) -> str:
        return CODES[self.code][0]

    def format(self, relative_to: Path | None = None) -> str:
        """`path:line:col: CODE message`, the path relative to `relative_to` when inside it."""
        shown = display(self.path, relative_to) if relative_to is not None else self.path
        tag = f"{self.code} warning:" if self.severity == WARNING else self.code
        return f"{shown}:{self.line}:{self.col}: {tag} {self.message}"


def display(path: Path, base: Path | None = None) -> str:
    """`path` relative to `base` (default: the working directory) when inside it."""
    base = Path.cwd() if base is None else base
    try:
        return str(Path(path).resolve().relative_to(base.resolve()))
    except ValueError:
        return str(path)
