"""Region names on the published CTC article (tests/fixtures/distill-ctc/, see ctc_site.py) and on
a page with Distill's chrome, in a real Chromium: what precedes the article's first heading is
named after its id, its caption or the title, never after the byline's "DOI" (naming.py).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from theme.capture import Session, scripts, variants
from theme.capture.regions import regions as named_regions
from theme.core.config import VisualConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ctc_site import CDN, TITLE, ctc_copy, edit  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def names(site: Path, route: dict) -> list[tuple[str, str, str]]:
    """(name, heading, selector) of each figure region on the settled page (desktop, light),
    measured by scripts.REGIONS and named by regions.regions(), as a capture does after its
    tiles; without the tiles, which on this page do not always pass the layout check yet."""
    regions = {"figure": "figure"}
    visual = VisualConfig(root=site, pages=("index.html",), viewports={"desktop": (1280, 800)},
                          color_schemes=("light",), route=route, regions=regions)
    with Session(visual) as session, session.open(variants(visual)[0]) as page:
        found = page.evaluate(scripts.REGIONS, {"regions": list(regions.items())})
    return [(r.name, r.heading, r.selector) for r in named_regions(found, regions, 1280, 10**6)]


def test_figures_before_the_first_heading_are_named_after_the_title_never_the_byline(tmp_path):
    site = ctc_copy(tmp_path, routed=True)
    route = {CDN: tmp_path / "cdn"}
    published = names(site, route)
    assert published[0] == ("sequence-modeling-with-ctc", TITLE, "body > d-title > figure")
    assert published[1][:2] == ("introduction", "Introduction")
    # Many articles open their body without a heading: here, with "Introduction" taken out,
    # the first figure of the body follows the byline the runtime drew ("Authors" … "DOI").
    edit(site / "index.html", "<h2>Introduction</h2>\n", "")
    opening = names(site, route)
    assert opening[:2] == [("sequence-modeling-with-ctc", TITLE, "body > d-title > figure"),
                           ("sequence-modeling-with-ctc-2", TITLE,
                            "body > d-article > figure.column-to-row-captioned:nth-of-type(1)")]
    assert opening[2:] == published[2:]  # nothing after the body's first heading is renamed
    byline = {"authors", "affiliations", "published", "doi"}
    assert not any(name.split("-")[0] in byline for name, _, _ in published + opening)


CHROME_PAGE = """<!doctype html><html><head><meta charset="utf-8"><style>
figure, table { margin: 8px; border: 1px solid #888; height: 40px; }
</style></head><body>
<d-title><h1>The Title</h1><figure id="teaser">teaser</figure></d-title>
<d-byline><div><h3>Published</h3><p>today</p></div><div><h3>DOI</h3><p>none</p></div></d-byline>
<d-article>
<nav><h3>Contents</h3><a href="#one">One</a></nav>
<figure><img alt=""><figcaption>How it works</figcaption></figure>
<figure><div><figcaption>a label inside</figcaption></div></figure>
<table><caption>Numbers</caption><tr><td>1</td></tr></table>
<h2>One</h2>
<figure id="ignored-after-a-heading"><figcaption>also ignored</figcaption></figure>
</d-article>
<d-appendix><h3>Notes</h3><figure>in the appendix</figure></d-appendix>
<figure>after the appendix</figure>
</body></html>
"""


def test_id_caption_and_title_name_what_precedes_the_first_heading(tmp_path):
    """The rules of naming.own_base on a page the runtime did not draw: ids, child captions
    (a figcaption deeper down labels a part), a table's caption; headings in the byline and
    a <nav> name nothing outside them, one in the appendix names what is in it."""
    (tmp_path / "index.html").write_text(CHROME_PAGE, encoding="utf-8")
    visual = VisualConfig(root=tmp_path, pages=("index.html",), viewports={"desktop": (800, 600)},
                          color_schemes=("light",), regions={"figure": "figure", "table": "table"})
    with Session(visual) as session:
        capture = session.capture(variants(visual)[0])
    assert [(str(r.path), r.heading) for r in capture.regions] == [
        ("figure/teaser.png", "The Title"),
        ("figure/how-it-works.png", "The Title"),
        ("figure/the-title.png", "The Title"),
        ("figure/one.png", "One"),
        ("figure/notes.png", "Notes"),
        ("figure/one-2.png", "One"),
        ("table/numbers.png", "The Title"),
    ]


STATE_PAGE = """<!doctype html><html><head><meta charset="utf-8"><style>
a { display: inline-block; margin: 4px; outline: 2px solid #000; }
x-cite { display: inline-block; width: 60px; height: 20px; }
</style></head><body>
<d-title><h1>The Title</h1></d-title>
<d-byline><div><h3>Published</h3><p>today</p></div><div><h3>DOI</h3><p><a id="byline-doi" href="https://doi.org/10.1/x">doi</a></p></div></d-byline>
<d-article>
<p>Opening words <a class="opening" href="https://doi.org/10.1/y">doi</a> and a cite <x-cite></x-cite>.</p>
<figure><img alt=""><figcaption>How it works <a class="captioned" href="https://doi.org/10.1/z">doi</a></figcaption></figure>
<h2>One</h2>
<p><a class="later" href="#one">link</a></p>
</d-article>
<script>
customElements.define('x-cite', class extends HTMLElement {
  connectedCallback() {
    this.attachShadow({ mode: 'open' }).innerHTML = '<div class="panel" style="width: 40px; height: 12px">box</div>';
  }
});
</script>
</body></html>
"""


def test_a_states_captured_elements_are_named_as_the_pages_regions_not_after_the_bylines_doi(tmp_path):
    """Issue 50: a state's capture was named after the nearest heading, the byline's "DOI" when no
    article heading preceded it (`hover-box/doi.png`). Now as a region there: a focused DOI link or
    a hover box (in a shadow root, placed where its host is) in the opening paragraph is named after
    the title, one in a figure's caption after the caption, one after "One" after it. Only what is
    inside the byline is named after the byline's own heading, as a region there is."""
    from theme.core.config import StateConfig, Step

    (tmp_path / "index.html").write_text(STATE_PAGE, encoding="utf-8")
    states = tuple(StateConfig(f"focus-{which}", (Step("focus", selector),), {"focused": f"{selector}:focus"})
                   for which, selector in (("opening", "a.opening"), ("captioned", "a.captioned"),
                                           ("later", "a.later"), ("byline", "#byline-doi")))
    hover = StateConfig("cite-hover", (Step("hover", "x-cite"),), {"hover-box": "x-cite .panel"})
    visual = VisualConfig(root=tmp_path, pages=("index.html",), viewports={"desktop": (800, 600)},
                          color_schemes=("light",), states=(*states, hover))
    got = {}
    with Session(visual) as session:
        for state in (*states, hover):
            capture = session.capture(dataclasses.replace(variants(visual)[0], state=state.name))
            got[state.name] = [(str(r.path), r.heading) for r in capture.regions]
    assert got == {
        "focus-opening": [("focused/the-title.png", "The Title")],
        "focus-captioned": [("focused/how-it-works-doi.png", "The Title")],
        "focus-later": [("focused/one.png", "One")],
        "focus-byline": [("focused/doi.png", "DOI")],  # the byline's DOI link itself
        "cite-hover": [("hover-box/the-title.png", "The Title")],
    }
