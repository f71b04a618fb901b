"""The specimen article, checked without a browser.

These guard the contract in article/README.md: the page is an article
on the real Distill v2 runtime (vendored in assets/distill/), the structure the theme
styles is present in the exact form the theme expects, the two copies of the page agree,
and nothing the page loads can come from the network (except the KaTeX the runtime asks
for at its CDN address, which the visual checks route to the vendored copy, and one
third-party embed that is blocked on purpose) or from a font the project does not ship.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
from datetime import datetime
from pathlib import Path

import html5lib
import pytest
from PIL import Image

from theme.core import config

REPO = Path(__file__).resolve().parents[2]
ARTICLE = REPO / "article"
DIST = ARTICLE / "dist"
SRC = ARTICLE / "src"
ASSETS = DIST / "assets"
FONTS_CSS = ASSETS / "fonts" / "fonts.css"
SPECIMEN_JS = ASSETS / "specimen.js"
RUNTIME_JS = ASSETS / "distill" / "template.v2.js"
BIB = DIST / "bibliography.bib"
FRAGMENTS = sorted((ASSETS / "fragments").glob("*.html"))
# The page's own scripts, in the order the head loads them after the runtime.
PAGE_SCRIPTS = [SPECIMEN_JS, ASSETS / "contents.js", ASSETS / "fragments.js"]

# The runtime fetches KaTeX from here; the visual checks serve it from assets/katex/.
KATEX_CDN = "https://distill.pub/third-party/katex/"
# The one request the page makes that leaves 127.0.0.1, blocked offline on purpose, and
# the one local file it asks for that does not exist, also on purpose.
EMBED = "https://www.youtube-nocookie.com/embed/memory-ledger-talk"
MISSING_ON_PURPOSE = "assets/audio/memory-ledger-reading.mp3"

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


def test_src_holds_a_byte_identical_copy_of_every_top_level_file_of_dist():
    # index.html, the theme's style.css and the bibliography the runtime fetches
    dist = {p.name for p in DIST.iterdir() if p.is_file()}
    src = {p.name for p in SRC.iterdir() if p.is_file() and not p.is_symlink()}
    assert dist == src == {"index.html", "style.css", "bibliography.bib"}
    for name in sorted(dist):
        assert (SRC / name).read_bytes() == (DIST / name).read_bytes(), name


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
    sheets = [link.get("href") for link in head.iter("link") if link.get("rel") == "stylesheet"]
    scripts = [(s.get("src"), s.get("defer"), s.get("async")) for s in head.iter("script")]
    # The runtime first and blocking, as real articles load it; KaTeX is not linked: the
    # runtime loads its script and stylesheet itself. The page's own scripts are deferred.
    assert scripts == [("assets/distill/template.v2.js", None, None),
                       ("assets/specimen.js", "", None), ("assets/contents.js", "", None),
                       ("assets/fragments.js", "", None)]
    assert sheets == ["assets/fonts/fonts.css", "style.css"]
    assert doc.get("lang") == "en"


def test_the_runtime_comes_before_the_stylesheets(doc):
    # The runtime inserts its own stylesheet before the first <script> of the head: with
    # the runtime's <script> ahead of the links, the theme's style.css comes after it in
    # the cascade and wins every tie.
    order = [(el.tag, el.get("src") or el.get("href")) for el in doc.find("head")
             if isinstance(el.tag, str) and el.tag in ("script", "link") and el.get("rel") != "icon"]
    assert order[:3] == [("script", "assets/distill/template.v2.js"), ("link", "assets/fonts/fonts.css"),
                         ("link", "style.css")]


def local_references(doc) -> list[str]:
    refs = []
    for el in doc.iter():
        if not isinstance(el.tag, str):
            continue
        for attr in ("src", "href", "data-fragment"):
            ref = el.get(attr)
            if ref and not ref.startswith(("#", "data:", "http:", "https:", "//")):
                refs.append(ref)
    return refs


def test_every_local_reference_exists_but_the_missing_audio(doc):
    refs = local_references(doc)
    assert {"bibliography.bib", "assets/distill/template.v2.js", MISSING_ON_PURPOSE} <= set(refs)
    for ref in refs:
        assert not ref.startswith("/"), f"{ref}: must be relative (no leading slash)"
        if ref == MISSING_ON_PURPOSE:
            assert not (DIST / ref).exists(), f"{ref} is meant to be missing"
        else:
            assert (DIST / ref).is_file(), f"{ref} is referenced but missing"


def test_in_page_links_point_at_ids(doc):
    ids = {el.get("id") for el in doc.iter() if isinstance(el.tag, str) and el.get("id")}
    targets = [a.get("href")[1:] for a in doc.iter("a") if (a.get("href") or "").startswith("#")]
    assert targets, "the table of contents has no links"
    assert [t for t in targets if t not in ids] == []


# --- structure the theme styles ----------------------------------------------------------

def test_body_order_is_front_matter_title_byline_article_appendix(doc):
    body = doc.find("body")
    assert [c.tag for c in element_children(body)] == [
        "d-front-matter", "d-title", "d-byline", "d-article", "d-appendix"]


@pytest.fixture(scope="module")
def front_matter(doc) -> dict:
    scripts = doc.find(".//d-front-matter").findall("script")
    assert [s.get("type") for s in scripts] == ["text/json"]
    return json.loads(scripts[0].text)


def test_front_matter_names_title_description_authors_and_date(doc, front_matter):
    assert front_matter["title"] == text_of(doc.find(".//d-title/h1")).strip()
    assert front_matter["description"] == text_of(by_class(doc.find(".//d-title"), "subtitle")[0]).strip()
    datetime.strptime(front_matter["published"], "%B %d, %Y")  # the runtime parses it with Date
    authors = front_matter["authors"]
    assert len(authors) >= 2
    for author in authors:
        assert author["author"].strip() and author["affiliations"]
        assert all(a["name"].strip() for a in author["affiliations"])
    # no URL anywhere: the runtime would turn it into a link off the page
    assert "://" not in json.dumps(front_matter)


def test_title_has_heading_subtitle_and_toggle(doc):
    title = doc.find(".//d-title")
    assert title.find("h1") is not None and text_of(title.find("h1")).strip()
    assert by_class(title, "subtitle")[0].tag == "p"
    toggle = by_class(title, "theme-toggle")
    assert len(toggle) == 1
    assert toggle[0].tag == "button" and toggle[0].get("type") == "button"
    assert toggle[0].get("aria-label") == "Toggle dark mode"


def test_byline_is_empty_for_the_runtime_to_fill(doc):
    # The runtime writes authors, affiliations and the date from <d-front-matter>
    # (anything written here would be replaced).
    byline = doc.find(".//d-byline")
    assert element_children(byline) == [] and not text_of(byline).strip()


def test_contents_is_a_tag_no_script_defines():
    # plain markup styled by the theme alone: the runtime never names it (its own
    # contents tag is d-toc) and the page's scripts define no element at all
    runtime = RUNTIME_JS.read_text(encoding="utf-8")
    assert "d-contents" not in runtime and "'d-toc'" in runtime
    for path in PAGE_SCRIPTS:
        assert "customElements" not in path.read_text(encoding="utf-8"), path.name


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


def test_code_counts_and_languages_the_runtime_highlights(doc):
    codes = elements(doc, "d-code")
    blocks = [c for c in codes if c.get("block") is not None]
    assert len(blocks) >= 4
    assert len(codes) > len(blocks), "no inline d-code"
    assert {c.get("language") for c in blocks} >= {"python", "bash"}
    # The runtime leaves a d-code empty when its Prism bundle lacks the language.
    runtime = RUNTIME_JS.read_text(encoding="utf-8")
    for language in {c.get("language") for c in codes}:
        assert re.search(rf"languages\.{re.escape(language)}\s*=", runtime), language


def figure_parts(doc) -> dict[str, list]:
    parts: dict[str, list] = {"img": [], "iframe": [], "audio": []}
    for fig in elements(doc, "figure"):
        media, cap = element_children(fig)
        assert cap.tag == "figcaption" and text_of(cap).strip()
        parts[media.tag].append(media)
    return parts


def test_figures_show_local_images_with_captions(doc):
    images = figure_parts(doc)["img"]
    assert len(images) >= 4
    for img in images:
        assert img.get("src").startswith("assets/images/") and img.get("alt")
        assert img.get("src").endswith((".svg", ".gif"))
    assert sum(img.get("src").endswith(".svg") for img in images) >= 3


def test_one_figure_is_an_animated_gif_that_loops():
    gifs = sorted((ASSETS / "images").glob("*.gif"))
    assert len(gifs) == 1
    with Image.open(gifs[0]) as gif:
        assert gif.is_animated and gif.n_frames >= 4 and gif.info.get("loop") == 0


def test_one_third_party_embed_and_one_audio_whose_file_is_missing(doc):
    parts = figure_parts(doc)
    [frame], [audio] = parts["iframe"], parts["audio"]
    assert frame.get("src") == EMBED and frame.get("title")
    assert audio.get("controls") is not None and audio.get("src") == MISSING_ON_PURPOSE


def test_the_fragment_slots_sit_in_the_article_one_in_a_d_figure(doc):
    slots = [el for el in doc.find(".//d-article").iter() if isinstance(el.tag, str) and el.get("data-fragment")]
    assert [s.get("data-fragment") for s in slots] == [
        "assets/fragments/sharding-chart.html", "assets/fragments/sharding-notes.html"]
    assert slots[0] in list(doc.find(".//d-article").iter("d-figure"))[0]
    assert all(text_of(s).strip() for s in slots), "a slot says what will arrive"
    assert sorted(DIST / s.get("data-fragment") for s in slots) == FRAGMENTS


def test_asides_table_blockquote_appendix(doc):
    article = doc.find(".//d-article")
    assert len(list(article.iter("aside"))) >= 2
    tables = list(article.iter("table"))
    assert tables and all(t.find("thead") is not None and t.find("tbody") is not None for t in tables)
    assert list(article.iter("blockquote"))
    appendix = doc.find(".//d-appendix")
    assert len(appendix.findall("h3")) >= 2
    assert [b.get("src") for b in appendix.findall("d-bibliography")] == ["bibliography.bib"]


# --- citations and footnotes -----------------------------------------------------------------

def bib_entries() -> dict[str, dict[str, str]]:
    """key -> fields of every entry of bibliography.bib (a small parser for our own file)."""
    text = BIB.read_text(encoding="utf-8")
    entries = {}
    for kind, key, body in re.findall(r"@(\w+)\{([^,\s]+),(.*?)\n\}", text, re.S):
        fields = dict(re.findall(r"^\s*(\w+)\s*=\s*\{(.*)\},?\s*$", body, re.M))
        assert key not in entries, f"{key} twice"
        entries[key] = {"type": kind, **fields}
    assert text.count("@") == len(entries), "an entry the parser did not read"
    return entries


def cited_keys(doc) -> list[str]:
    return [k.strip() for c in elements(doc, "d-cite") for k in c.get("key").split(",")]


def test_the_bibliography_has_well_formed_specimen_entries():
    entries = bib_entries()
    assert len(entries) >= 5
    for key, fields in entries.items():
        assert {"title", "author", "year"} <= set(fields), key
        assert re.fullmatch(r"(19|20)\d\d", fields["year"]), key
        assert "://" not in " ".join(fields.values()), f"{key}: no links in the specimen bibliography"


def test_every_citation_key_is_in_the_bibliography_and_every_entry_is_cited(doc):
    cites = elements(doc, "d-cite")
    assert len(cites) >= 6 and any("," in c.get("key") for c in cites), "no multi-key citation"
    assert all(not text_of(c).strip() for c in cites)
    keys = cited_keys(doc)
    entries = bib_entries()
    assert [k for k in keys if k not in entries] == []
    assert set(entries) - set(keys) == set(), "an entry nobody cites"


def test_footnotes_hold_text_and_one_holds_maths(doc):
    notes = elements(doc, "d-footnote")
    assert len(notes) >= 3
    assert all(len(text_of(n).split()) >= 8 for n in notes)
    assert any(n.find(".//d-math") is not None for n in notes)


def test_body_text_is_long(doc):
    words = len(text_of(doc.find(".//d-article")).split())
    assert words >= 5000


# --- hermetic: nothing from the network, nothing outside the shipped fonts ----------------

ABSOLUTE_URL = re.compile(r"""(?:src|href)\s*=\s*["']?\s*((?:https?:)?//[^"'\s>]*)"""
                          r"""|url\(\s*["']?\s*((?:https?:)?//[^"')\s]*)""", re.I)


def absolute_urls(path: Path) -> list[str]:
    return [a or b for a, b in ABSOLUTE_URL.findall(path.read_text(encoding="utf-8"))]


def test_the_page_loads_one_absolute_url_the_blocked_embed():
    assert absolute_urls(DIST / "index.html") == [EMBED]


@pytest.mark.parametrize("path", [FONTS_CSS, *PAGE_SCRIPTS, *FRAGMENTS, BIB, ASSETS / "katex" / "katex.min.css"],
                         ids=lambda p: p.name)
def test_no_absolute_url_is_loaded(path):
    assert absolute_urls(path) == []


def test_the_runtime_loads_only_katex_and_polyfills_from_its_cdn():
    runtime = RUNTIME_JS.read_text(encoding="utf-8")
    loaded = set(re.findall(r"https://distill\.pub/third-party/[\w./-]+", runtime))
    assert loaded == {KATEX_CDN + "katex.min.js", KATEX_CDN + "katex.min.css",
                      "https://distill.pub/third-party/polyfills/webcomponents-lite.js",
                      "https://distill.pub/third-party/polyfills/intersection-observer.js"}
    # the polyfills only in a browser without custom elements or IntersectionObserver (a
    # browser test shows Chromium never asks); KaTeX always, so the visual checks route it
    assert config.load(REPO / "pyproject.toml").visual.route == {KATEX_CDN: ASSETS / "katex"}
    for url in sorted(u for u in loaded if u.startswith(KATEX_CDN)):
        assert (ASSETS / "katex" / url.removeprefix(KATEX_CDN)).is_file(), url


def test_svg_figures_load_nothing_but_data_urls():
    for svg in sorted((ASSETS / "images").glob("*.svg")):
        text = svg.read_text(encoding="utf-8")
        refs = re.findall(r"""(?:href|src)\s*=\s*["']([^"']+)|url\(([^)]*)\)""", text)
        assert all((a or b).startswith("data:") for a, b in refs), svg.name


@pytest.mark.parametrize("path", PAGE_SCRIPTS, ids=lambda p: p.name)
def test_page_scripts_are_deterministic(path):
    code = path.read_text(encoding="utf-8")
    for banned in ("Date", "Math.random", "XMLHttpRequest", "localStorage", "sessionStorage",
                   "performance.now", "setTimeout", "setInterval", "requestAnimationFrame"):
        assert banned not in code, banned
    # only the fragment loader fetches, and only what the page's data-fragment slots name
    assert ("fetch(" in code) == (path.name == "fragments.js")


def test_specimen_js_only_wires_the_theme_toggle():
    # the runtime typesets maths and highlights code now; specimen.js must not do either
    code = SPECIMEN_JS.read_text(encoding="utf-8")
    assert re.findall(r"querySelector(?:All)?\(\s*[\"']([^\"']+)", code) == [".theme-toggle"]
    assert "innerHTML" not in code and "katex." not in code


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


def fragment_docs() -> list:
    parsed = []
    for path in FRAGMENTS:
        parser = html5lib.HTMLParser(strict=False, namespaceHTMLElements=False)
        fragment = parser.parseFragment(path.read_text(encoding="utf-8"))
        assert parser.errors == [], path.name
        root = html5lib.parse("<body></body>", namespaceHTMLElements=False)
        body = root.find("body")
        body.extend(list(fragment))
        parsed.append(root)
    return parsed


def all_visible_text(doc) -> str:
    return visible_text(doc) + "".join(visible_text(f) for f in fragment_docs())


@pytest.mark.slow
def test_every_character_is_drawn_by_a_shipped_font(doc):
    # The vendored text faces are latin subsets; a character outside them would be drawn
    # by whatever fallback font the machine has, and the screenshot would vary by machine.
    # The fragments the page fetches count too.
    missing = sorted({ch for ch in all_visible_text(doc)
                      if not ch.isspace() and not covered(ch, "Source Serif 4")
                      and not covered(ch, "Noto Color Emoji")})
    assert missing == [], " ".join(f"U+{ord(c):04X}" for c in missing)


def test_every_emoji_falls_in_a_vendored_emoji_subset(doc):
    emoji = sorted(set(EMOJI.findall(all_visible_text(doc))))
    assert emoji, "the page uses no emoji"
    assert [e for e in emoji if not covered(e, "Noto Color Emoji")] == []


def test_fragments_parse_cleanly_and_keep_the_note_box_contract():
    boxes = [b for f in fragment_docs() for b in by_class(f, "note-box")]
    assert boxes, "no note-box arrives in a fragment"
    for box in boxes:
        title, content = element_children(box)
        assert classes(title) == ["note-box-title"] and (content.tag, classes(content)) == ("div", ["note-box-content"])
    charts = [el for f in fragment_docs() for el in f.iter("figure") if el.get("data-chart")]
    assert len(charts) == 1
    chart = charts[0]
    assert {"data-params", "data-limit", "data-max", "data-degree"} <= set(chart.keys())
    degrees = [b.get("data-degree") for b in chart.iter("button")]
    assert chart.get("data-degree") in degrees and len(degrees) >= 2
    assert text_of(chart.find("figcaption")).strip()


# --- vendored and generated files are what their scripts produce ---------------------------

def test_the_runtime_matches_the_hashes_recorded_in_its_vendored_md():
    folder = ASSETS / "distill"
    table = re.findall(r"^\| (\S+) \| (\d+) \| ([0-9a-f]{64}) \|$",
                       (folder / "VENDORED.md").read_text(encoding="utf-8"), re.M)
    assert {rel for rel, _, _ in table} == {"LICENSE", "template.v2.js"}
    for rel, size, digest in table:
        data = (folder / rel).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (int(size), digest), rel


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


def test_the_gif_is_up_to_date_with_its_generator():
    spec = importlib.util.spec_from_file_location("make_gif", ARTICLE / "figures" / "make_gif.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rendered = module.render_all()
    assert sorted(rendered) == [p.name for p in sorted((ASSETS / "images").glob("*.gif"))]
    for name, content in rendered.items():
        assert (ASSETS / "images" / name).read_bytes() == content, name
    assert module.render_all() == rendered, "two renders differ"
