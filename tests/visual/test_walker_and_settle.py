"""The one stylesheet walker and the one settle routine, in a real Chromium (issue 31, item 3).

The capture (pin_width.js, who_asked.js), `theme init` (survey.js) and `theme lint`
(collect.js) read stylesheets through walk_sheets.js: each of them reaches a sheet an
@import brings, a closed shadow root's, an open root's adopted one and a declarative
shadow root's. settle() decides when a page is done for all three, each mode as its
caller needs it: maths whose library was blocked is waited for by the capture only, a
page that keeps changing is left, and a page that never gets there is named.
"""

from __future__ import annotations

import textwrap

import pytest

from theme.capture import Session, Variant, readiness, scripts
from theme.core.config import VisualConfig

pytestmark = pytest.mark.browser

SHEETS = textwrap.dedent("""\
    <!doctype html><html><head><meta charset="utf-8">
    <style>@import url("imported.css"); body { margin: 0; }</style>
    </head><body>
    <x-closed></x-closed>
    <x-open></x-open>
    <div id="declared"><template shadowrootmode="open">
      <style>@media (max-width: 700px) { p { color: navy; } }</style><p class="in-declared">declared</p>
    </template></div>
    <script>
    customElements.define('x-closed', class extends HTMLElement {
      constructor() {
        super();
        const root = this.attachShadow({ mode: 'closed' });
        root.innerHTML = '<style>.in-closed { color: red; } @font-face { font-family: Gone; src: url("gone.woff2"); }'
          + '</style><span class="in-closed">closed</span>';
      }
    });
    customElements.define('x-open', class extends HTMLElement {
      constructor() {
        super();
        const root = this.attachShadow({ mode: 'open' });
        const sheet = new CSSStyleSheet();
        sheet.replaceSync('.in-open { color: blue; }'
          + ' @media (prefers-color-scheme: dark) { .in-open { color: aqua; } }');
        root.adoptedStyleSheets = [sheet];
        root.innerHTML = '<span class="in-open">open</span>';
      }
    });
    </script>
    </body></html>""")
IMPORTED = ".imported { color: green; }\n@media (prefers-color-scheme: dark) { .imported { color: lime; } }\n"

# Maths the page defines but whose library (at a CDN address, offline) is blocked.
BLOCKED_MATHS = textwrap.dedent("""\
    <!doctype html><html><head><meta charset="utf-8"></head><body><d-math>x^2</d-math>
    <script>
    customElements.define('d-math', class extends HTMLElement {});
    const katex = document.createElement('script');
    katex.src = 'https://cdn.invalid/katex.min.js';
    document.head.append(katex);
    </script></body></html>""")
# The specimen's contract, never kept: nothing blocked, and <html data-typeset> never "done".
NEVER_TYPESET = '<!doctype html><html data-typeset="pending"><head><meta charset="utf-8"></head><body><p>x</p>'
# A clock: the DOM changes every 100 ms, forever.
RESTLESS = textwrap.dedent("""\
    <!doctype html><html><head><meta charset="utf-8"></head><body><p id="clock">0</p>
    <script>let n = 0; setInterval(() => { document.getElementById('clock').textContent = String(++n); }, 100);</script>
    </body></html>""")

PAGES = {"sheets.html": SHEETS, "blocked-maths.html": BLOCKED_MATHS, "never-typeset.html": NEVER_TYPESET,
         "restless.html": RESTLESS}

# Every sheet the walker visits: [the root's host (or "document"), the sheet's file, or how it came].
WALK = ("() => { const seen = []; (" + scripts.link("walk_sheets") + ")({ sheet: (s, r) => seen.push(["
        "r === document ? 'document' : r.host.localName, s.href ? s.href.split('/').pop() : "
        "(s.ownerNode ? 'inline' : 'adopted')]) }); return seen; }")


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    for name, text in PAGES.items():
        (site / name).write_text(text, encoding="utf-8")
    (site / "imported.css").write_text(IMPORTED, encoding="utf-8")
    # restless.html keeps changing in real time: under page time it would hold still
    visual = VisualConfig(root=site, pages=tuple(PAGES), viewports={"desktop": (1280, 800)},
                          color_schemes=("light",), regions={}, real_time=("restless.html",))
    with Session(visual) as s:
        yield s


def at(name: str) -> Variant:
    return Variant(name, "desktop", 1280, 800, "light")


def test_the_walker_reaches_imported_closed_adopted_and_declared_sheets(session):
    with session.loaded(at("sheets.html")) as job:
        readiness.settle(job.page, job.lane, readiness.SURVEY, timeout_s=20)
        assert job.page.evaluate(WALK) == [["document", "inline"], ["document", "imported.css"],
                                           ["x-closed", "inline"], ["x-open", "adopted"], ["div", "inline"]]


def test_capture_init_and_lint_read_every_sheet_through_it(session):
    with session.loaded(at("sheets.html")) as job:
        page = job.page
        readiness.settle(page, job.lane, readiness.SURVEY, timeout_s=20)
        gone = page.url.rsplit("/", 1)[0] + "/gone.woff2"
        # init: prefers-color-scheme in the imported sheet and in the open root's adopted one
        assert page.evaluate(scripts.SURVEY, {"urls": []})["scheme"]["rules"] == 2
        # the capture: the font a closed root's sheet asked for, and the declared root's width rule
        asker = page.evaluate(scripts.WHO_ASKED, [gone])[gone]
        assert asker == {"how": "font-face", "sheet": "a <style> in the shadow root of <x-closed>",
                         "value": "gone.woff2", "family": "Gone"}
        # lint: a sheet from each root, and the classes inside them
        found = page.evaluate(scripts.COLLECT)
        assert [s["where"] for s in found["sheets"]] == [
            "document", "document", "shadow root of <x-closed>", "shadow root of <x-open>", "shadow root of <div>"]
        assert {"in-closed", "in-open", "in-declared"} <= set(found["classes"])
        assert page.evaluate(scripts.PIN_WIDTH) == 1


def test_maths_whose_library_was_blocked_holds_the_capture_only(session):
    for mode in (readiness.SURVEY, readiness.LINT):
        with session.loaded(at("blocked-maths.html")) as job:
            done = readiness.settle(job.page, job.lane, mode, timeout_s=20)
            assert (done.pending, done.status["mathsPending"]) == ([], 1), mode.name
            assert job.aborted == {"https://cdn.invalid/katex.min.js"}
    with session.loaded(at("blocked-maths.html")) as job:
        done = readiness.settle(job.page, job.lane, readiness.CAPTURE, timeout_s=1)
        assert done.pending == ["1 of 1 d-math elements to be typeset"]


def test_a_typeset_mark_never_done_is_named_where_nothing_was_blocked(session):
    for mode in (readiness.CAPTURE, readiness.SURVEY):
        with session.loaded(at("never-typeset.html")) as job:
            done = readiness.settle(job.page, job.lane, mode, timeout_s=1)
            assert done.pending == ["<html data-typeset> to be 'done' (it is 'pending')"], mode.name


def test_a_page_that_keeps_changing_is_left_without_its_quiet(session):
    for mode in (readiness.CAPTURE, readiness.SURVEY, readiness.LINT):
        with session.loaded(at("restless.html")) as job:
            done = readiness.settle(job.page, job.lane, mode, timeout_s=20)
            assert (done.pending, done.quiet) == ([], False), mode.name
            assert done.seconds >= mode.restless_s
