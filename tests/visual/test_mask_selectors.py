"""The selectors theme offers for `mask` (issue 48, item 2): what a person would write, from
the page's own words, never a generated class or an :nth-of-type chain when something better
exists. Asked of a real page in Chromium through Session.elements_at, as `theme capture
--explain` and an update's refusal of a page that does not hold still ask it."""

from __future__ import annotations

import textwrap

import pytest

from theme.capture import Session, Variant
from theme.core.config import VisualConfig

pytestmark = pytest.mark.browser

PAGE = textwrap.dedent("""\
    <!doctype html><html><head><meta charset="utf-8"><style>
    body { margin: 0; font: 16px/1.5 sans-serif; } * { margin: 0; padding: 0; } div, figure, section { display: block; }
    </style></head><body><d-article>
    <figure id="tsne-fig"><svg width="200" height="100"><g></g></svg><figcaption>Points</figcaption></figure>
    <div class="plot"><canvas width="100" height="50"></canvas></div>
    <section id="results"><div class="svelte-suja6o"><span>a number</span></div></section>
    <div class="row"><b class="drawn">one</b></div><div class="row"><b class="drawn">two</b></div>
    <p>No names here, <i>none</i> at all.</p>
    </d-article>
    <script>
    // Drawn by a script, with a class of its own the HTML never gives.
    const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
    path.setAttribute('d', 'M10 10L190 90'); path.setAttribute('stroke', 'black');
    path.setAttribute('stroke-width', '20');
    path.classList.add('sdPlus');
    document.querySelector('g').appendChild(path);
    </script></body></html>""")


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    root = tmp_path_factory.mktemp("masks")
    (root / "index.html").write_text(PAGE, encoding="utf-8")
    visual = VisualConfig(root=root, pages=("index.html",), viewports={"desktop": (800, 600)},
                          color_schemes=("light",), regions={})
    with Session(visual) as s:
        yield s


def at(session, selector: str) -> tuple[int, int, int, int]:
    """A 2×2 px box at the middle of the first element matching `selector`, in page px."""
    with session.open(Variant("index.html", "desktop", 800, 600, "light")) as page:
        box = page.eval_on_selector(selector, "e => { const r = e.getBoundingClientRect(); "
                                              "return [r.left + r.width / 2, r.top + r.height / 2]; }")
    return int(box[0]) - 1, int(box[1]) - 1, 2, 2


@pytest.mark.slow
def test_each_part_is_named_by_the_page_own_words(session):
    variant = Variant("index.html", "desktop", 800, 600, "light")
    boxes = [at(session, s) for s in ("path", "canvas", "span", ".row:nth-of-type(3) b", "i")]
    assert session.elements_at(variant, boxes) == [
        "#tsne-fig svg",  # the drawing, within the figure's id; never the script's `path.sdPlus`
        "div.plot canvas",  # within an authored class that names one element
        "#results span",  # the framework's scoping class passed over for the section's id
        "body > d-article > div.row:nth-of-type(3) > b.drawn",  # the page's class names two: the path
        "body > d-article > p > i",  # no name anywhere: the path
    ]
