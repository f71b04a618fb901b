"""One function per check. Each takes a parsed Document (and what else it needs) and
returns Problems; none reads files or knows about argv. Codes: see model.CODES.
"""

from __future__ import annotations

import difflib
import re
from typing import Collection, Iterable, Iterator, Mapping
from urllib.parse import urljoin
from xml.etree.ElementTree import Element

from .css import ClassDef
from .model import Problem, display
from .parse import Document, Token

# HTML's "ASCII whitespace" (the separator of class lists); str.split() would also split on NBSP.
_CLASS_SEP = re.compile(r"[ \t\n\f\r]+")
_CLASS_ATTR = re.compile(r"""[\s"'/]class\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""", re.I)

# Languages a Distill <d-code> can highlight out of the box: Prism's default bundle
# (markup and its aliases, css, clike, javascript) plus prism-python, which
# distillpub/template src/components/d-code.js imports; for any other name (or none)
# Distill's renderContent() returns early and the element shows an empty code box.
DISTILL_LANGUAGES = frozenset({
    "markup", "html", "xml", "svg", "mathml", "ssml", "atom", "rss",
    "css", "clike", "javascript", "js", "python", "py",
})
# Further Prism component ids and aliases an article may load (or, as the specimen's
# specimen.js does, just label): a typo such as "pyhton" is in neither set.
PRISM_LANGUAGES = frozenset({
    "bash", "sh", "shell", "c", "cpp", "json", "yaml", "yml", "toml", "markdown", "md",
    "diff", "sql", "rust", "go", "java", "julia", "lua", "r", "latex", "tex",
    "typescript", "ts", "docker", "dockerfile", "ini", "makefile",
    "plain", "plaintext", "text", "txt",
})
KNOWN_LANGUAGES = DISTILL_LANGUAGES | PRISM_LANGUAGES


def classes_of(element: Element) -> list[str]:
    return [c for c in _CLASS_SEP.split(element.get("class", "")) if c]


def _has(element: Element | None, cls: str) -> bool:
    return element is not None and isinstance(element.tag, str) and cls in classes_of(element)


def _at(doc: Document, offset: int, code: str, message: str) -> Problem:
    line, col = doc.line_col(offset)
    return Problem(doc.path, line, col, code, message)


def _on(doc: Document, element: Element | None, code: str, message: str) -> Problem:
    line, col = doc.where(element)
    return Problem(doc.path, line, col, code, message)


def _tag_at(doc: Document, token: Token) -> str:
    line, col = doc.line_col(token["span"][0])
    return f"<{token['name']}> at {line}:{col}"


# ----------------------------------------------------------------- TL001 TL002


def check_paragraph_splits(doc: Document) -> list[Problem]:
    """A <p> the parser closes at a block start tag, and </p> tags with nothing to close."""
    problems = [
        _on(doc, split.p, "TL001",
            f"{_tag_at(doc, split.breaker)} closes this <p> early (a <p> cannot contain "
            f"<{split.breaker['name']}>), so what follows falls outside it; close the <p> "
            "before it, or use a <div> (theme lint --fix does this in note-boxes)")
        for split in doc.splits
    ]
    problems += [
        _at(doc, token["span"][0], "TL002",
            "</p> with no open <p> (an earlier block closed it); the parser inserts an empty "
            "paragraph here; remove it or restructure the paragraph")
        for token in doc.strays
    ]
    return problems


# ----------------------------------------------------------------- TL010 TL011 TL012


def _describe(element: Element) -> str:
    classes = classes_of(element)
    return element.tag + "".join(f".{c}" for c in classes if c.startswith("note-box")) \
        if classes else element.tag


def _note_box_children(box: Element) -> list[str]:
    """The parsed children of a note-box, with non-blank text shown as `text`."""
    seen = ["text"] if (box.text or "").strip() else []
    for child in box:
        if isinstance(child.tag, str):
            seen.append(_describe(child))
        if (child.tail or "").strip():
            seen.append("text")
    return seen


def check_note_boxes(doc: Document) -> list[Problem]:
    problems = []
    for el in doc.elements():
        if _has(el, "note-box"):
            children = _note_box_children(el)
            kids = [c for c in el if isinstance(c.tag, str)]
            ok = (len(children) == 2 and len(kids) == 2 and _has(kids[0], "note-box-title")
                  and _has(kids[1], "note-box-content"))
            if not ok:
                problems.append(_on(doc, el, "TL010",
                    f"note-box holds [{', '.join(children) or 'nothing'}] after parsing; expected "
                    "exactly [.note-box-title, div.note-box-content]"))
        if _has(el, "note-box-content") and el.tag != "div":
            problems.append(_on(doc, el, "TL011",
                f".note-box-content is a <{el.tag}>; make it a <div> holding <p>/<ul> blocks "
                "(theme lint --fix rewrites it)"))
        for part in ("note-box-title", "note-box-content"):
            if _has(el, part) and not _has(doc.parent(el), "note-box"):
                problems.append(_on(doc, el, "TL012",
                    f".{part} is not a direct child of a .note-box; wrap it in <div class=\"note-box\">"))
    return problems


# ----------------------------------------------------------------- TL020


def class_positions(doc: Document, element: Element) -> dict[str, int]:
    """Offset of each class name inside the element's own start tag (first class attribute)."""
    token = doc.origin.get(element)
    if token is None:
        return {}
    start, end = token["span"]
    m = _CLASS_ATTR.search(doc.text, start, end)
    if not m:
        return {}
    group = next(i for i in (1, 2, 3) if m.group(i) is not None)
    value_at, value = m.start(group), m.group(group)
    return {cm.group(): value_at + cm.start() for cm in re.finditer(r"[^ \t\n\f\r]+", value)}


def used_classes(doc: Document) -> Iterator[tuple[str, object]]:
    for el in doc.elements():
        for cls in classes_of(el):
            yield cls, el


def check_unknown_classes(doc: Document, defined: Mapping[str, ClassDef],
                          scripts_unread: bool = False, known: Collection[str] = ()) -> list[Problem]:
    """TL020 for each class no stylesheet defines and the page's scripts do not use (`known`:
    they write or look it up, script_classes.py); `scripts_unread`: the page's scripts were not
    run (--no-render), so the message says they may supply it. Hints come from `defined` only."""
    unread = "; its scripts were not run (--no-render) and may define it" if scripts_unread else ""
    problems = []
    for el in doc.elements():
        where = None
        for cls in classes_of(el):
            if cls in defined or cls in known:
                continue
            where = where if where is not None else class_positions(doc, el)
            hint = difflib.get_close_matches(cls, list(defined), n=1)
            advice = (f"did you mean .{hint[0]}?" if hint else
                      "define it in a stylesheet the page loads, pass that stylesheet with --css, or drop the class")
            message = f"class .{cls} is defined by none of the page's stylesheets; {advice}{unread}"
            if cls in where:
                problems.append(_at(doc, where[cls], "TL020", message))
            else:
                problems.append(_on(doc, el, "TL020", message))
    return problems


def check_unused_classes(defined: Mapping[str, ClassDef], used: set[str],
                         scripts: Iterable[str] = ()) -> list[Problem]:
    """Theme classes no page uses. A class named in a linked local script counts as used
    (specimen.js adds .tok-* classes at run time), matched as a whole word."""
    script_text = "\n".join(scripts)
    problems = []
    for name, where in defined.items():
        if name in used or re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", script_text):
            continue
        problems.append(Problem(where.path, where.line, where.col, "TL021",
                                f"theme class .{name} is used by no linted page or script; "
                                "use it in the specimen or drop the rule"))
    return problems


# ----------------------------------------------------------------- TL030..TL034


def _text(element: Element) -> str:
    return "".join(element.itertext())


def check_math_and_code(doc: Document) -> list[Problem]:
    problems = []
    for el in doc.elements():
        if el.tag not in ("d-math", "d-code"):
            continue
        inner = [c for c in el if isinstance(c.tag, str)]
        if inner:
            problems.append(_on(doc, inner[0], "TL034",
                f"<{inner[0].tag}> inside <{el.tag}> is parsed as an element and only the text "
                "is rendered; write < as &lt; (and & as &amp;)"))
        elif not _text(el).strip():
            code = "TL030" if el.tag == "d-math" else "TL031"
            problems.append(_on(doc, el, code, f"<{el.tag}> is empty and renders nothing; add content or remove it"))
        if el.tag == "d-code":
            problems += _check_language(doc, el)
    return problems


def _check_language(doc: Document, el: Element) -> list[Problem]:
    language = el.get("language")
    if language is None:
        return [_on(doc, el, "TL033",
                    'd-code has no language attribute, so Distill renders it empty; add e.g. language="python"')]
    if language not in KNOWN_LANGUAGES:
        hint = difflib.get_close_matches(language.lower(), sorted(KNOWN_LANGUAGES), n=1)
        advice = f'did you mean "{hint[0]}"?' if hint else "use a Prism language name (see KNOWN_LANGUAGES)"
        return [_on(doc, el, "TL032", f'd-code language "{language}" is not a known highlighter language; {advice}')]
    return []


def check_document(doc: Document, defined: Mapping[str, ClassDef] | None,
                   scripts_unread: bool = False, known: Collection[str] = ()) -> list[Problem]:
    """Every single-document check; class checks only when the page's classes are known (`defined`)."""
    problems = check_paragraph_splits(doc) + check_note_boxes(doc) + check_math_and_code(doc)
    if defined is not None:
        problems += check_unknown_classes(doc, defined, scripts_unread, known)
    return problems


# ----------------------------------------------------------------- TL023


def check_blocked_scripts(doc: Document, page_url: str, blocked: Mapping[str, str]) -> list[Problem]:
    """TL023 at each <script src> of the page whose address the render blocked (`blocked`:
    absolute URL -> why; `page_url`: the page's own, which its relative addresses resolve from)."""
    problems = []
    for el in doc.elements():
        src = (el.get("src") or "").strip() if el.tag == "script" else ""
        url = urljoin(page_url, src) if src else ""
        if url in blocked:
            problems.append(_on(doc, el, "TL023",
                f"script {url} did not load in the render ({blocked[url]}), so the classes it supplies "
                "are unknown and TL020 is skipped on this page; route its address to a local copy "
                "([tool.theme.visual] route)"))
    return problems


# ----------------------------------------------------------------- TL040 TL041


def check_copies(doc_a: Document, doc_b: Document) -> list[Problem]:
    """One problem at the first differing line:col of `doc_a` when the two copies differ."""
    a, b = doc_a.text, doc_b.text
    if a == b:
        return []
    # the texts differ in length when one is the other plus more: zip stops at the shorter
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    line_b, col_b = doc_b.line_col(at) if at <= len(b) else doc_b.line_col(len(b))
    return [_at(doc_a, at, "TL040",
                f"differs from {display(doc_b.path)}:{line_b}:{col_b} (first difference); "
                "keep both copies byte-identical (copy the edited one over the other)")]
