"""The specimen article, checked without a browser.

These guard the contract in notes/MARKUP.md: the structure the theme styles is present
in the exact form the theme expects, the two copies of the page agree, and nothing the
page loads can come from the network or from a font the project does not ship.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
from pathlib import Path

import html5lib
import pytest

REPO = Path(__file__).resolve().parents[2]
ARTICLE = REPO / "article"
DIST = ARTICLE / "dist"
SRC = ARTICLE / "src"
ASSETS = DIST / "assets"
FONTS_CSS = ASSETS / "fonts" / "fonts.css"
SPECIMEN_JS = ASSETS / "specimen.js"

# The parse errors html5lib reports when content would be moved or dropped by a browser
# (a <div> closing an open <p>, stray end tags, misnested formatting, ...). Anything the
# parser reports at all is a sign the page is not what the author wrote, so we allow none.


@pytest.fixture(scope="module")
def page_bytes() -> bytes:
    return (DIST / "index.html").read_bytes()


@pytest.fixture(scope="module")
def parsed(page_bytes):
    parser = html5lib.HTMLParser(strict=False, namespaceHTMLElements=False)
    tree = parser.parse(page_bytes)
    return tree, parser.errors


@pytest.fixture(scope="module")
def doc(parsed):
    return parsed[0]


def elements(doc, tag: str) -> list:
    return list(doc.iter(tag))


def classes(el) -> list[str]:
    return (el.get("class") or "").split()


def by_class(doc, name: str) -> list:
    return [el for el in doc.iter() if isinstance(el.tag, str) and name in classes(el)]


def element_children(el) -> list:
    return [c for c in el if isinstance(c.tag, str)]


def text_of(el) -> str:
    return "".join(el.itertext())


# --- the two copies ----------------------------------------------------------------------

def test_src_and_dist_pages_are_byte_identical(page_bytes):
    assert (SRC / "index.html").read_bytes() == page_bytes


def test_src_assets_is_a_relative_symlink_to_dist_assets():
    link = SRC / "assets"
    assert link.is_symlink()
    assert str(link.readlink()) == "../dist/assets"
    assert link.resolve() == ASSETS.resolve()
    assert (link / "specimen.js").read_bytes() == SPECIMEN_JS.read_bytes()


# --- parsing and head -----------------------------------------------------------------------

def test_page_parses_without_errors(parsed):
    assert parsed[1] == []


def test_head_links_exactly_what_the_contract_names(doc):
    head = doc.find("head")
    sheets = [l.get("href") for l in head.iter("link") if l.get("rel") == "stylesheet"]
    scripts = [(s.get("src"), s.get("defer")) for s in head.iter("script")]
    assert sheets == ["assets/fonts/fonts.css", "assets/katex/katex.min.css", "style.css"]
    assert scripts == [("assets/katex/katex.min.js", ""), ("assets/specimen.js", "")]
    assert doc.get("lang") == "en"


def test_every_local_reference_exists(doc):
    for el in doc.iter():
        for attr in ("src", "href"):
            ref = el.get(attr) if isinstance(el.tag, str) else None
            if not ref or ref.startswith(("#", "data:")) or ref == "style.css":
                continue
            assert not ref.startswith("/"), f"{ref}: must be relative (no leading slash)"
            assert (DIST / ref).is_file(), f"{ref} is referenced but missing"


def test_in_page_links_point_at_ids(doc):
    ids = {el.get("id") for el in doc.iter() if isinstance(el.tag, str) and el.get("id")}
    targets = [a.get("href")[1:] for a in doc.iter("a") if (a.get("href") or "").startswith("#")]
    assert targets, "the table of contents has no links"
    assert [t for t in targets if t not in ids] == []


# --- structure the theme styles ----------------------------------------------------------

def test_body_order_is_title_byline_article_appendix(doc):
    body = doc.find("body")
    assert [c.tag for c in element_children(body)] == ["d-title", "d-byline", "d-article", "d-appendix"]


def test_title_has_heading_subtitle_and_toggle(doc):
    title = doc.find(".//d-title")
    assert title.find("h1") is not None and text_of(title.find("h1")).strip()
    assert by_class(title, "subtitle")[0].tag == "p"
    toggle = by_class(title, "theme-toggle")
    assert len(toggle) == 1
    assert toggle[0].tag == "button" and toggle[0].get("type") == "button"
    assert toggle[0].get("aria-label") == "Toggle dark mode"


def test_byline_uses_the_grid_markup(doc):
    grid = by_class(doc.find(".//d-byline"), "byline-grid")
    assert len(grid) == 1
    cells = element_children(grid[0])
    assert len(cells) >= 2
    assert all([c.tag for c in element_children(cell)] == ["h3", "p"] for cell in cells)


def test_contents_lists_every_section_and_subsection(doc):
    nav = doc.find(".//d-article/d-contents/nav")
    assert nav is not None and text_of(nav.find("h3")) == "Contents"
    top = [a.get("href") for div in nav.findall("div") for a in div.findall("a")]
    sub = [a.get("href") for ul in nav.findall("ul") for a in ul.iter("a")]
    sections = [s.get("id") for s in doc.find(".//d-article").findall("section")]
    h3s = [h.get("id") for s in doc.find(".//d-article").findall("section") for h in s.findall("h3")]
    assert top == ["#" + i for i in sections]
    assert sub == ["#" + i for i in h3s]


def test_at_least_eight_sections_each_opening_with_h2_and_holding_h3s(doc):
    sections = doc.find(".//d-article").findall("section")
    assert len(sections) >= 8
    for section in sections:
        assert section.get("id")
        assert element_children(section)[0].tag == "h2"
        assert len(section.findall("h3")) >= 2
        assert all(h.get("id") for h in section.findall("h3"))


def test_note_boxes_have_exactly_the_contract_form(doc):
    boxes = by_class(doc, "note-box")
    assert len(boxes) >= 8
    for box in boxes:
        assert box.tag == "div"
        title, content = element_children(box)
        assert (title.tag, classes(title)) == ("p", ["note-box-title"])
        assert (content.tag, classes(content)) == ("div", ["note-box-content"])
        kinds = [c.tag for c in element_children(content)]
        assert kinds and kinds[0] == "p" and set(kinds) <= {"p", "ul"}
        assert (box.text or "").strip() == "" and (content.text or "").strip() == ""


def test_note_box_variety(doc):
    shapes = [tuple(c.tag for c in element_children(by_class(b, "note-box-content")[0]))
              for b in by_class(doc, "note-box")]
    assert any("ul" in s for s in shapes), "no note-box with a list"
    assert any(s.count("p") >= 2 for s in shapes), "no note-box with two paragraphs"
    assert any(s == ("p",) for s in shapes), "no note-box with a single paragraph"


EMOJI = re.compile("[\u2600-\u27bf\U0001f000-\U0001faff]")


def test_every_note_box_title_starts_with_an_emoji(doc):
    for title in by_class(doc, "note-box-title"):
        assert EMOJI.match(text_of(title)), text_of(title)


def test_maths_counts(doc):
    maths = elements(doc, "d-math")
    blocks = [m for m in maths if m.get("block") is not None]
    assert len(maths) - len(blocks) >= 20
    assert len(blocks) >= 8
    assert all(text_of(m).strip() for m in maths)


def test_code_counts_and_languages(doc):
    codes = elements(doc, "d-code")
    blocks = [c for c in codes if c.get("block") is not None]
    assert len(codes) > len(blocks), "no inline d-code"
    assert {c.get("language") for c in blocks} >= {"python", "bash"}
    assert all(c.get("language") for c in codes)


def test_figures_use_local_svg_with_captions(doc):
    figures = elements(doc, "figure")
    assert len(figures) >= 3
    for fig in figures:
        img, cap = element_children(fig)
        assert img.tag == "img" and img.get("src").startswith("assets/images/") and img.get("alt")
        assert cap.tag == "figcaption" and text_of(cap).strip()


def test_asides_table_blockquote_appendix(doc):
    article = doc.find(".//d-article")
    assert len(list(article.iter("aside"))) >= 2
    tables = list(article.iter("table"))
    assert tables and all(t.find("thead") is not None and t.find("tbody") is not None for t in tables)
    assert list(article.iter("blockquote"))
    appendix = doc.find(".//d-appendix")
    assert len(appendix.findall("h3")) >= 2


def test_body_text_is_long(doc):
    words = len(text_of(doc.find(".//d-article")).split())
    assert words >= 5000


# --- hermetic: nothing from the network, nothing outside the shipped fonts ----------------

ABSOLUTE_URL = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?\s*(?:https?:)?//""", re.I)


@pytest.mark.parametrize("path", [DIST / "index.html", FONTS_CSS, SPECIMEN_JS,
                                  ASSETS / "katex" / "katex.min.css"], ids=lambda p: p.name)
def test_no_absolute_url_is_loaded(path):
    assert ABSOLUTE_URL.findall(path.read_text(encoding="utf-8")) == []


def test_svg_figures_load_nothing_but_data_urls():
    for svg in sorted((ASSETS / "images").glob("*.svg")):
        text = svg.read_text(encoding="utf-8")
        refs = re.findall(r"""(?:href|src)\s*=\s*["']([^"']+)|url\(([^)]*)\)""", text)
        assert all((a or b).startswith("data:") for a, b in refs), svg.name


def test_specimen_js_is_deterministic():
    code = SPECIMEN_JS.read_text(encoding="utf-8")
    for banned in ("Date", "Math.random", "fetch(", "XMLHttpRequest", "localStorage", "performance.now"):
        assert banned not in code, banned


def parse_ranges(css_range: str) -> list[tuple[int, int]]:
    out = []
    for part in css_range.split(","):
        lo, _, hi = part.strip().removeprefix("U+").removeprefix("u+").partition("-")
        out.append((int(lo, 16), int(hi or lo, 16)))
    return out


def font_faces() -> list[dict[str, str]]:
    faces = []
    for block in re.findall(r"@font-face\s*{([^}]*)}", FONTS_CSS.read_text(encoding="utf-8")):
        faces.append({k.strip(): v.strip() for k, v in
                      (d.split(":", 1) for d in block.split(";") if ":" in d)})
    return faces


def covered(ch: str, family: str) -> bool:
    code = ord(ch)
    return any(lo <= code <= hi
               for face in font_faces() if face["font-family"].strip("'\"") == family
               for lo, hi in parse_ranges(face["unicode-range"]))


def test_fonts_css_declares_the_contract_faces_blocking():
    have = {(f["font-family"].strip("'\""), f["font-weight"], f["font-style"]) for f in font_faces()}
    want = {("Source Serif 4", "400", "normal"), ("Source Serif 4", "400", "italic"),
            ("Source Serif 4", "600", "normal"), ("Source Serif 4", "700", "normal"),
            ("Source Sans 3", "400", "normal"), ("Source Sans 3", "600", "normal"),
            ("Source Sans 3", "700", "normal"), ("JetBrains Mono", "400", "normal"),
            ("JetBrains Mono", "700", "normal"), ("Noto Color Emoji", "400", "normal")}
    assert want <= have
    for face in font_faces():
        assert face["font-display"] == "block"
        url = re.search(r"url\(\./([^)]+)\)", face["src"]).group(1)
        assert (FONTS_CSS.parent / url).is_file(), url


def visible_text(doc) -> str:
    """Text the page shows in its own fonts: everything except maths (KaTeX has its own)."""
    parts = []

    def walk(el):
        if el.tag in ("d-math", "script", "style", "title", "svg", "head"):
            parts.append(el.tail or "")
            return
        parts.append(el.text or "")
        for child in el:
            if isinstance(child.tag, str):
                walk(child)
            else:
                parts.append(child.tail or "")
        parts.append(el.tail or "")

    walk(doc.find("body"))
    return "".join(parts)


def test_every_character_is_drawn_by_a_shipped_font(doc):
    # The vendored text faces are latin subsets; a character outside them would be drawn
    # by whatever fallback font the machine has, and the screenshot would vary by machine.
    missing = sorted({ch for ch in visible_text(doc)
                      if not ch.isspace() and not covered(ch, "Source Serif 4")
                      and not covered(ch, "Noto Color Emoji")})
    assert missing == [], " ".join(f"U+{ord(c):04X}" for c in missing)


def test_every_emoji_falls_in_a_vendored_emoji_subset(doc):
    emoji = sorted(set(EMOJI.findall(visible_text(doc))))
    assert emoji, "the page uses no emoji"
    assert [e for e in emoji if not covered(e, "Noto Color Emoji")] == []


# --- vendored and generated files are what their scripts produce ---------------------------

def test_vendored_files_match_the_hashes_recorded_in_vendored_md():
    table = re.findall(r"^\| (\S+) \| (\d+) \| ([0-9a-f]{64}) \|$",
                       (ASSETS / "VENDORED.md").read_text(encoding="utf-8"), re.M)
    recorded = {rel: (int(size), digest) for rel, size, digest in table}
    on_disk = {p.relative_to(ASSETS).as_posix() for sub in ("katex", "fonts")
               for p in (ASSETS / sub).rglob("*") if p.is_file()}
    assert set(recorded) == on_disk
    for rel, (size, digest) in recorded.items():
        data = (ASSETS / rel).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (size, digest), rel


def test_katex_ships_woff2_for_every_font_face_it_declares():
    css = (ASSETS / "katex" / "katex.min.css").read_text(encoding="utf-8")
    for src in re.findall(r"@font-face{[^}]*src:([^}]*)}", css):
        first = re.search(r"url\(([^)]+)\)", src).group(1)
        assert first.endswith(".woff2"), "Chromium takes the first format; it must be woff2"
        assert (ASSETS / "katex" / first).is_file(), first


def test_figures_are_up_to_date_with_their_generator():
    spec = importlib.util.spec_from_file_location("make_figures", ARTICLE / "figures" / "make_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, content in module.render_all().items():
        assert (ASSETS / "images" / name).read_text(encoding="utf-8") == content, name
