"""The capture engine on small generated pages in a real Chromium (one Session per module)."""

from __future__ import annotations

import dataclasses
import hashlib
import http.client
import json
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

from theme.baselines import style_record as styles
from theme.capture import Session, Variant, bounded, screenshot, scripts
from theme.capture.model import Failure
from theme.capture.readiness import MASK_COLOR
from theme.core.config import VisualConfig
from theme.core.errors import CaptureError, ConfigError, UnstableRender

pytestmark = pytest.mark.browser

EXTERNAL = "https://cdn.example.org/lib/paint.js"
ROUTED = "https://cdn.example.com/lib/paint.js"
PAINT_JS = "document.documentElement.style.background = 'rgb(0, 128, 0)'; document.body.dataset.painted = '1';"


def page(body: str, head: str = "") -> str:
    return textwrap.dedent(f"""\
        <!doctype html><html><head><meta charset="utf-8"><style>
        body {{ margin: 0; font: 16px/1.4 sans-serif; background: #fff; color: #111; }}
        .note-box {{ background: #eef; border-left: 4px solid #33c; margin: 10px; padding: 8px; }}
        html[data-theme="dark"] .note-box {{ background: #223; }}
        </style>{head}</head><body>{body}</body></html>""")


def sections(extra_in_a: bool) -> str:
    a_boxes = '<div class="note-box"><p>A one</p></div>'
    if extra_in_a:
        a_boxes += '<div class="note-box"><p>A new</p></div>'
    return page(f"""
        <div class="note-box"><p>before any heading</p></div>
        <h2>Section A</h2><p>text</p>{a_boxes}<div class="note-box"><p>A two</p></div>
        <h2>Section B</h2><div class="note-box"><p>B one</p></div><p>x</p><div class="note-box"><p>B two</p></div>
        <h3>Deeper in B</h3><div class="note-box"><p>B three</p></div>""")


def tall() -> str:
    # 24 markers, one every 5 000 px, each a distinct colour, 200 px tall, plus text lines.
    parts = ['<div style="position:relative;height:120000px">']
    for k in range(24):
        r, g, b = marker_color(k)
        parts.append(f'<div style="position:absolute;top:{k * 5000}px;left:0;right:0;height:200px;'
                     f'background:rgb({r},{g},{b})"></div><p style="position:absolute;top:{k * 5000 + 300}px;'
                     f'left:20px;margin:0">Marker {k}</p>')
    return page("".join(parts) + "</div>")


def marker_color(k: int) -> tuple[int, int, int]:
    return ((k * 37 + 11) % 256, (k * 91 + 40) % 256, (k * 151 + 80) % 256)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("capture")
    root = base / "site"
    (root / "img").mkdir(parents=True)
    (base / "pyproject.toml").write_text("[tool.theme]\nsecret = 1\n")
    (base / "vendor" / "lib").mkdir(parents=True)
    (base / "vendor" / "lib" / "paint.js").write_text(PAINT_JS)
    # A routed origin's frame: stores something in each kind of storage, then tells its
    # parent what it had found there (local storage, IndexedDB, Cache Storage).
    (base / "vendor" / "lib" / "frame.html").write_text(textwrap.dedent("""\
        <script>(async () => {
          const local = String(localStorage.getItem("k"));
          localStorage.setItem("k", "cdn");
          const db = await new Promise((ok) => { const r = indexedDB.open("t", 1);
            r.onupgradeneeded = () => r.result.createObjectStore("s");
            r.onsuccess = () => ok(r.result); r.onerror = () => ok(null); });
          const kept = await new Promise((ok) => { const q = db.transaction("s").objectStore("s").get("k");
            q.onsuccess = () => ok(String(q.result)); q.onerror = () => ok("error"); });
          await new Promise((ok) => { const tx = db.transaction("s", "readwrite"); tx.objectStore("s").put("cdn", "k");
            tx.oncomplete = ok; tx.onerror = ok; });
          const cache = await caches.open("t");
          const cached = (await cache.match("/x")) ? "cached" : "none";
          await cache.put("/x", new Response("x"));
          parent.postMessage([local, kept, cached].join(" "), "*");
        })();</script>"""))
    (base / "shot.css").write_text(".styled { background: rgb(255, 200, 0) !important; }")
    files = {
        "a.html": sections(extra_in_a=False),
        "a-inserted.html": sections(extra_in_a=True),
        "external.html": page("<p>external</p>", f'<script src="{EXTERNAL}"></script>'),
        "routed.html": page("<p>routed</p>", f'<script src="{ROUTED}"></script>'),
        "tall.html": tall(),
        "lines.html": page("".join(f'<p style="margin:0 0 24px 20px">Line {k} of a page taller than a tile</p>'
                                   for k in range(80))),
        "masked.html": page('<div class="secret" style="height:50px;background:#123">secret</div>'
                            '<div class="styled" style="height:50px">styled</div>'),
        # The words and files a region's record keeps (computed_styles.js): drawn text only, a
        # slot's and a shadow root's included, a break between lines; the masked counter left
        # out; the images and the background drawn, and a 404, not the image that is hidden.
        "words.html": page(
            '<div class="note-box"><p class="title" style="background:url(img/blue.svg) no-repeat">'
            'Why <strong>count</strong></p>'
            '<p>line one<br>line two <span class="secret" style="display:inline-block;width:40px">0</span>'
            '<span style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)">unseen</span>'
            '<span style="display:none">gone</span><span style="visibility:hidden">hidden</span></p>'
            '<x-card>slotted words</x-card><img src="img/blue.svg" width="40" height="40">'
            '<img src="img/none.png" width="40" height="40" alt="">'
            '<div style="height:40px;background:url(img/red.svg)"></div><img src="img/scheme.svg" hidden></div>'
            '<script>customElements.define("x-card", class extends HTMLElement { constructor() { super();'
            ' this.attachShadow({mode: "open"}).innerHTML = "<b>shadow words</b> <slot></slot>"; } });'
            ' let n = 0; setInterval(() => { document.querySelector(".secret").textContent = ++n; }, 50);</script>'),
        "unstable.html": page('<p id="t">0</p><script>let n = 0; (function tick() {'
                              ' document.getElementById("t").style.marginLeft = (++n % 50) + "px";'
                              ' requestAnimationFrame(tick); })();</script>'),
        # A capture call with captureBeyondViewport resizes the view, and the page
        # gets a `resize` event: these pages move their layout then, once or always.
        "late.html": page('<div style="height:1500px;background:#fff">body</div><script>let once = true;'
                          ' addEventListener("resize", () => { if (!once) return; once = false;'
                          ' const d = document.createElement("div"); d.style.cssText = "height:300px;background:#0a0";'
                          ' document.body.prepend(d); });</script>'),
        # Each tile call grows the view to the page and shrinks it back: two resizes,
        # which once toggled the margin back to where it was (a flaky test). It only grows.
        "restless.html": page('<div id="m" style="height:1500px">body</div><script>let n = 0;'
                              ' addEventListener("resize", () => {'
                              ' document.getElementById("m").style.marginTop = ++n * 50 + "px"; });</script>'),
        # Reports, as its first heading, what it found when its scripts ran, then
        # stores things: the next variant on the same reused page must find none of them.
        "memory.html": page(
            '<script>window.seenTheme = document.documentElement.getAttribute("data-theme");</script>'
            '<script>const seen = [localStorage.getItem("k"), sessionStorage.getItem("k"), document.cookie,'
            ' window.seenTheme, screen.width, innerWidth, matchMedia("(prefers-color-scheme: dark)").matches];'
            ' const h = document.createElement("h2"); h.textContent = JSON.stringify(seen);'
            ' h.style.overflowWrap = "anywhere"; document.body.prepend(h);'
            ' localStorage.setItem("k", "local"); sessionStorage.setItem("k", "session");'
            ' document.cookie = "k=cookie"; window.name = "stale";</script><div class="note-box"><p>x</p></div>'),
        # Several tiles at a tile height of 4096, nothing that depends on the viewport's height.
        "long.html": page("".join(f'<h2>Part {k}</h2><p>{"Words that wrap across the line. " * 40}</p>'
                                  f'<div class="note-box"><p>Box {k}</p></div>' for k in range(40))),
        # ... and the same with a 100vh hero and a fixed footer: a grown viewport would change both.
        "hero.html": page('<div style="height:100vh;background:rgb(200,0,0)"></div>'
                          '<div style="height:12000px"></div>'
                          '<div style="position:fixed;bottom:0;left:0;width:200px;height:50px;'
                          'background:rgb(0,0,200)"></div>'),
        # data-typeset: the capture waits for "done" (the specimen's contract), set once the frame has told.
        # fetch() calls whose bodies the page never reads: a file that is missing, one that is
        # there (a bibliography a script looks for and does without).
        "unread.html": page('<p id="said">waiting</p><script>Promise.all([fetch("refs.bib"), fetch("a.html")])'
                            '.then((rs) => { document.getElementById("said").textContent = rs.map((r) => r.status)'
                            '.join(" "); });</script>'),
        "framed.html": page('<div id="out"></div><iframe src="https://cdn.example.com/lib/frame.html"></iframe>'
                            '<script>document.documentElement.dataset.typeset = "pending";'
                            ' addEventListener("message", (e) => { document.getElementById("out").innerHTML ='
                            ' "<h2>frame " + e.data + "</h2><div class=note-box><p>x</p></div>";'
                            ' document.documentElement.dataset.typeset = "done"; });</script>'),
        # Dark by CSS alone: colours, a taller note-box (which moves the masked box below it),
        # a <picture> source, an SVG image's own media query, and form controls (color-scheme).
        "schemes.html": page(
            '<div class="note-box"><p>box</p></div><div class="secret" style="height:30px">secret</div>'
            '<picture><source srcset="img/blue.svg" media="(prefers-color-scheme: dark)">'
            '<img src="img/red.svg" width="40" height="40"></picture>'
            '<img src="img/scheme.svg" width="40" height="40"><input type="checkbox" checked>',
            '<style>:root { color-scheme: light dark; } @media (prefers-color-scheme: dark) {'
            ' body { background: #111; color: #eee; } .note-box { padding-top: 40px; } }</style>'),
        # ... and two pages whose scripts learn the scheme as they load, and draw it.
        "asks.html": page('<h2 id="s"></h2><script>document.getElementById("s").textContent ='
                          ' matchMedia("(prefers-color-scheme: dark)").matches ? "asked: dark" : "asked: light";'
                          '</script>',
                          '<style>@media (prefers-color-scheme: dark) { body { background: #111; } }</style>'),
        "computes.html": page('<h2 id="s"></h2><script>document.getElementById("s").textContent ='
                              ' "computed: " + getComputedStyle(document.body).backgroundColor;</script>',
                              '<style>@media (prefers-color-scheme: dark)'
                              ' { body { background: #111 !important; } }</style>'),
        # Laid out against the viewport's width (a percentage column, width media queries,
        # one in a shadow root, one that also reads the scheme), many small tiles tall.
        "fluid.html": page(
            '<div class="col">' + "".join(f"<h2>Part {k}</h2><p>{'Words that wrap across the column. ' * 30}</p>"
                                          for k in range(24)) + '</div><x-shadowed></x-shadowed>'
            '<div style="height:12000px"></div>'  # tall: a short page's calls skip the zero-width step
            '<script>customElements.define("x-shadowed", class extends HTMLElement { constructor() { super();'
            ' this.attachShadow({ mode: "closed" }).innerHTML = "<style>@media (min-width: 800px) { p { color:'
            ' rgb(150, 0, 0); } }</style><p>in a shadow root</p>"; } });</script>',
            '<style>.col { width: 80%; margin: 0 auto; } @media (min-width: 800px) { .col { width: 60%; } }'
            ' @media (max-width: 799px) { .col p { color: rgb(0, 90, 0); } }'
            ' @media (min-width: 800px) and (prefers-color-scheme: dark) { body { background: #111; color: #eee; } }'
            ' @media (prefers-color-scheme: dark) { .col { border-left: 6px solid rgb(0, 0, 200); } }</style>'),
        # Reader states: a button whose click leaves its mark, a link to focus, a title whose
        # hover shows a box that hides again (display: none) when the pointer leaves.
        "reader.html": page('<style>#tip { display: none; } h2:hover + #tip { display: block; }'
                            ' a:focus-visible { outline: 3px solid #c00; }</style>'
                            '<h2 id="t">Title</h2><div id="tip">A tip</div><p><a id="l" href="#x">a link</a></p>'
                            '<button id="b" onclick="this.textContent = \'pressed\'">press</button>'
                            '<script>const tip = document.getElementById("tip"); document.getElementById("t")'
                            '.addEventListener("mouseleave", () => { tip.style.display = "none"; });</script>'),
        # A script that never gives the browser back, once the page has loaded.
        "endless.html": page('<p>busy</p><script>addEventListener("load", () =>'
                             ' setTimeout(() => { for (;;) {} }, 100));</script>'),
        # A key pressed anywhere starts a loop that never ends.
        "keyloop.html": page('<p><a id="l" href="#x">a link</a></p>'
                             '<script>addEventListener("keydown", () => { for (;;) {} });</script>'),
        # ... and one whose scrollIntoView never returns (a broken polyfill).
        "scrolloop.html": page('<p><a id="l" href="#x">a link</a></p>'
                               '<script>Element.prototype.scrollIntoView = function () { for (;;) {} };</script>'),
        # ... and one that takes animation frames away (a broken polyfill): no frame ever comes.
        "frameless.html": page('<p>still</p><script>window.requestAnimationFrame = () => 0;</script>'),
        "lazy.html": page('<div style="height:5000px"></div>'
                          '<img loading="lazy" src="img/red.svg" width="40" height="40">'),
        # A fade-in whose element is invisible but for its animation's forwards fill.
        "fadein.html": page('<style>@keyframes show { from { opacity: 0; } to { opacity: 1; } }'
                            '.f { width:40px;height:40px;background:rgb(200,0,0);opacity:0;'
                            'animation: show 5s linear forwards; }</style><div class="f"></div>'),
        "animated.html": page('<style>@keyframes spin { to { transform: rotate(360deg); } }'
                              '.s { width:40px;height:40px;background:#c00;'
                              'animation: spin 1s linear infinite; }</style>'
                              '<div class="s"></div><input value="caret" autofocus>'),
    }
    for name, html in files.items():
        (root / name).write_text(html, encoding="utf-8")
    (root / "img" / "blue.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40">'
        '<rect width="40" height="40" fill="#00f"/></svg>')
    (root / "img" / "scheme.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><style>rect { fill: #0f0; }'
        ' @media (prefers-color-scheme: dark) { rect { fill: #0ff; } }</style><rect width="40" height="40"/></svg>')
    (root / "img" / "red.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40">'
        '<rect width="40" height="40" fill="#f00"/></svg>')
    return root


@pytest.fixture(scope="module")
def visual(site) -> VisualConfig:
    return VisualConfig(
        root=site, pages=("a.html",), viewports={"desktop": (1280, 800)}, color_schemes=("light",),
        regions={"note-box": ".note-box"}, mask=(".secret",), style=site.parent / "shot.css",
        route={"https://cdn.example.com/": site.parent / "vendor"},
        # pages that must keep changing, or loop, in real time: under page time they hold still
        real_time=("unstable.html", "endless.html"),
    )


@pytest.fixture(scope="module")
def session(visual):
    with Session(visual) as s:
        yield s


def at(page_: str, scheme: str = "light", width: int = 1280, height: int = 800) -> Variant:
    return Variant(page_, "desktop", width, height, scheme)


def names(capture) -> list[str]:
    return [str(r.path) for r in capture.regions]


def test_region_names_follow_the_nearest_heading(session):
    cap = session.capture(at("a.html"))
    assert names(cap) == [
        "note-box/top.png", "note-box/section-a.png", "note-box/section-a-2.png",
        "note-box/section-b.png", "note-box/section-b-2.png", "note-box/deeper-in-b.png",
    ]
    assert cap.regions[3].heading == "Section B"
    # each region is a crop of the one full-page image at its box
    r = cap.regions[1]
    x, y, w, h = r.box
    assert np.array_equal(cap.crop(r), cap.image[y:y + h, x:x + w]) and cap.crop(r).shape == (h, w, 4)
    paths = [str(p) for p, _ in cap.images()]
    assert paths[0] == "page.png" and paths[1:] == names(cap)


def test_inserting_a_note_box_in_section_a_renames_nothing_in_section_b(session):
    before = session.capture(at("a.html"))
    after = session.capture(at("a-inserted.html"))
    in_b = lambda cap: [(r.name, r.heading) for r in cap.regions if r.heading in ("Section B", "Deeper in B")]  # noqa: E731
    assert in_b(before) == in_b(after) == [
        ("section-b", "Section B"), ("section-b-2", "Section B"), ("deeper-in-b", "Deeper in B")]
    assert len(after.regions) == len(before.regions) + 1
    assert [r.name for r in after.regions if r.heading == "Section A"] == ["section-a", "section-a-2", "section-a-3"]


def test_a_blocked_script_fails_the_render_naming_it(session, site):
    """An aborted script means the page is not as published: no capture, its own line saying so."""
    with pytest.raises(CaptureError) as caught:
        session.capture(at("external.html"))
    lines = str(caught.value).splitlines()
    assert lines[0].startswith("external.html (desktop-light): 1 resource the page needs did not load")
    assert lines[1].startswith(f"  - the page's script {EXTERNAL} did not load: it was blocked (not on 127.0.0.1 "
                               f"and no `route` serves it); asked for by a <script src> at {site / 'external.html'}:5:")


def test_an_external_request_allowed_to_fail_is_aborted_and_listed(visual):
    import dataclasses

    with Session(dataclasses.replace(visual, allow_blocked=("https://cdn.example.org/",))) as s:
        cap = s.capture(at("external.html"))
    assert cap.aborted == [EXTERNAL]
    assert tuple(cap.image[5, 5, :3]) == (255, 255, 255)  # the script never ran


def test_routed_request_is_served_from_the_local_folder(session):
    cap = session.capture(at("routed.html"))
    assert cap.aborted == []
    assert tuple(cap.image[790, 5, :3]) == (0, 128, 0)  # paint.js from vendor/ ran


def test_server_serves_only_under_root_on_loopback(session):
    host, port = session.server.address
    assert host == "127.0.0.1"
    for path in ("/../pyproject.toml", "/%2e%2e/pyproject.toml"):
        conn = http.client.HTTPConnection(host, port, timeout=10)
        conn.request("GET", path)
        resp = conn.getresponse()
        assert resp.status == 404 and b"secret" not in resp.read()
        conn.close()


def test_mask_is_painted_solid_and_style_file_applies(session):
    cap = session.capture(at("masked.html"))
    mask = tuple(int(MASK_COLOR[i:i + 2], 16) for i in (1, 3, 5))
    assert (cap.image[2:48, 2:1000, :3] == mask).all()
    assert tuple(cap.image[75, 500, :3]) == (255, 200, 0)  # from shot.css


def test_a_regions_record_keeps_the_words_it_draws_and_not_what_a_mask_hides(session, site):
    """Each recorded element has the text drawn in it and in no recorded element inside it;
    a counter under a mask, a visually hidden span and undisplayed text are not in it, so two
    captures record the same words while the counter keeps counting."""
    first, second = (session.capture(at("words.html")).styles["note-box/top.png"] for _ in range(2))
    assert first == second
    texts = {selector: styles.kept_text(props["text"]) for selector, props in first.items()}
    assert texts == {"": "", "p.title": "Why count", "p": "line one line two",
                     "x-card": "shadow words slotted words"}, texts
    digest = {name: hashlib.sha256((site / "img" / name).read_bytes()).hexdigest()[:12]
              for name in ("blue.svg", "red.svg")}
    files = first[""]["files"].splitlines()  # the region's own, but the title's background
    assert files == [f"img/blue.svg {digest['blue.svg']}", "img/none.png missing", f"img/red.svg {digest['red.svg']}"]
    assert first["p.title"]["files"] == f"img/blue.svg {digest['blue.svg']}"
    assert not any(props["files"] for selector, props in first.items() if selector not in ("", "p.title"))
    # the background as the page names it, not by our server's address (its port is new each run)
    assert first["p.title"]["background-image"] == 'url("img/blue.svg")'
    with Session(session.visual) as again:
        assert again.capture(at("words.html")).styles["note-box/top.png"] == first


def test_attr_schemes_set_data_theme_against_the_media_query(session):
    light = session.capture(at("a.html", "light"))
    dark_attr = session.capture(at("a.html", "dark-attr"))  # media says light, data-theme says dark
    box = light.regions[1]
    assert tuple(light.crop(box)[20, 40, :3]) == (0xEE, 0xEE, 0xFF)
    assert tuple(dark_attr.crop(box)[20, 40, :3]) == (0x22, 0x22, 0x33)


def test_lazy_images_are_loaded_and_animations_stopped(session):
    lazy = session.capture(at("lazy.html"))
    assert lazy.image.shape[0] >= 5040
    assert tuple(lazy.image[5020, 20, :3]) == (255, 0, 0)
    shots = [session.capture(at("animated.html")).image for _ in range(3)]
    assert all(np.array_equal(shots[0], s) for s in shots[1:])


def test_a_finite_animation_is_shown_finished(session):
    """A 5 s fade-in that fills forwards ends visible, as a reader sees it once it has run."""
    cap = session.capture(at("fadein.html"))
    assert tuple(cap.image[20, 20, :3]) == (200, 0, 0)


def test_a_page_that_never_settles_raises_unstable_render(session):
    with pytest.raises(UnstableRender, match="unstable.html .*kept changing"):
        session.capture(at("unstable.html"))


def test_a_layout_that_moves_during_the_tiles_is_captured_again(session):
    said = []
    cap = session.capture(at("late.html"), progress=said.append)
    assert any("layout changed during capture, retrying (2/3)" in line for line in said), said
    # the second capture shows the page as it became: the block the page added on top
    assert cap.image.shape[0] == 1800
    assert tuple(cap.image[150, 640, :3]) == (0, 170, 0) and tuple(cap.image[1000, 640, :3]) == (255, 255, 255)


def test_a_layout_that_moves_during_every_capture_raises_unstable_render(session):
    with pytest.raises(UnstableRender, match=r"restless.html .*the layout changed during each of 3 captures"):
        session.capture(at("restless.html"))


@pytest.mark.slow
def test_capture_all_overlapping_variants_gives_the_pixels_of_single_captures(session):
    todo = [at("lines.html"), at("a.html", "dark-attr"), at("lazy.html"), at("a.html")]
    together = list(session.capture_all(todo))
    assert [c.variant for c in together] == todo
    for cap, variant in zip(together, todo, strict=True):
        alone = session.capture(variant)
        assert np.array_equal(cap.image, alone.image), variant
        assert [(r.path, r.box) for r in cap.regions] == [(r.path, r.box) for r in alone.regions]


def test_capture_all_hands_over_the_good_variant_before_the_error_of_the_next(session):
    captures = session.capture_all([at("a.html"), at("unstable.html"), at("a.html", "dark-attr")])
    assert next(captures).variant == at("a.html")
    with pytest.raises(UnstableRender, match="unstable.html"):
        next(captures)
    # the session is still usable: nothing of the abandoned variants is left running
    assert session.capture(at("lines.html")).image.shape[0] > 3000


def test_tiles_taken_in_the_foreground_give_the_same_pixels(session, monkeypatch):
    """Without Playwright's loop internals the tiles are taken in the foreground: slower, same image."""
    from theme.capture import tiles

    background = session.capture(at("lines.html"))
    monkeypatch.setattr(tiles, "background_sender", lambda cdp: None)
    foreground = session.capture(at("lines.html"))
    assert np.array_equal(background.image, foreground.image)


def test_five_captures_are_pixel_identical(session):
    first = session.capture(at("a.html")).image
    for _ in range(4):
        assert np.array_equal(first, session.capture(at("a.html")).image)


def test_fingerprint_names_the_environment(session):
    fp = session.capture(at("a.html")).fingerprint
    assert fp["browser"]["name"] == "chromium" and fp["browser"]["version"]
    assert fp["device_scale_factor"] == 1 and "--force-color-profile=srgb" in fp["launch_flags"]
    assert fp["theme_version"] and fp["platform"]["machine"]
    assert fp["tile_height"] == session.visual.tile_height
    assert isinstance(fp["fonts"], dict)


def test_fingerprint_hashes_the_system_fonts_rendering_may_fall_back_to(session):
    import hashlib
    import shutil
    import subprocess

    if shutil.which("fc-match") is None:
        pytest.skip("fontconfig's fc-match is not installed")
    fonts = session.capture(at("a.html")).fingerprint["system_fonts"]
    # the page's stack is `sans-serif`; the generics and emoji are always there
    assert {"sans-serif", "serif", "monospace", "emoji"} <= set(fonts)
    assert list(fonts) == sorted(fonts)
    for family in ("sans-serif", "emoji"):
        file = subprocess.run(["fc-match", "-f", "%{file}", family], capture_output=True, text=True).stdout
        assert fonts[family]["file"] == file
        assert fonts[family]["sha256"] == hashlib.sha256(Path(file).read_bytes()).hexdigest()
    assert session.capture(at("a.html")).fingerprint["system_fonts"] == fonts


def test_screenshot_helper_returns_rgba(session):
    with session.open(at("masked.html")) as pg:
        whole = screenshot(pg)
        part = screenshot(pg.locator(".styled"))
    assert whole.shape == (800, 1280, 4) and whole.dtype == np.uint8
    assert part.shape[0] == 50 and tuple(part[25, 25, :3]) == (255, 200, 0)


@pytest.mark.slow
@pytest.mark.parametrize("tile_height", [16384, 32768])  # the config default, and the largest allowed
def test_tall_page_every_marker_at_its_place(visual, tile_height):
    import dataclasses

    with Session(dataclasses.replace(visual, tile_height=tile_height)) as s:
        cap = s.capture(at("tall.html"))
    assert cap.image.shape[:2] == (120000, 1280)
    assert cap.timings["tile_calls"] == -(-120000 // tile_height)
    for k in range(24):
        y = k * 5000
        for row in (y + 1, y + 100, y + 198):  # first, middle and last rows of the marker
            assert tuple(cap.image[row, 640, :3]) == marker_color(k), f"marker {k} at y={row}"
        assert tuple(cap.image[y + 250, 640, :3]) == (255, 255, 255)  # background below it


def test_selector_syntax_error_names_the_key(site, visual):
    import dataclasses

    bad = dataclasses.replace(visual, regions={"note-box": ".note-box[["}, mask=())
    with Session(bad) as s, pytest.raises(ConfigError, match=r"region 'note-box': '\.note-box\[\[' is not a valid"):
        s.capture(at("a.html"))


def test_unknown_page_is_a_config_error(visual):
    import dataclasses

    with pytest.raises(ConfigError, match="'nope.html' is not a file under"):
        Session(dataclasses.replace(visual, pages=("nope.html",)))


def refused_with_tile_hook(visual, hook, match: str) -> None:
    """lines.html in 1024-px tiles: with `hook` changing the decoded tiles the capture
    raises CaptureError matching `match`; without it the same session captures the page
    exactly as before (nothing of the refused capture is left behind)."""
    import dataclasses

    small_tiles = dataclasses.replace(visual, tile_height=1024, mask=(), style=None)
    with Session(small_tiles) as s:
        whole = s.capture(at("lines.html"))
        assert whole.image.shape[0] > 3000 and whole.timings["tile_calls"] >= 3
        s.tile_hook = hook
        with pytest.raises(CaptureError, match=match):
            s.capture(at("lines.html"))
        s.tile_hook = None
        assert np.array_equal(s.capture(at("lines.html")).image, whole.image)


def test_wholeness_guard_fires_when_a_tile_comes_back_blank(visual):
    """A tile the browser returned blank (simulated by the tile hook) is refused, not stitched."""
    def blank_second_tile(y, tile):
        if y == 1024:
            tile[:] = 255  # white like the page background: a band with no content

    refused_with_tile_hook(visual, blank_second_tile,
                           r"not whole: \d+ of \d+ visible text lines came back blank"
                           r" \(first at y=10\d\d.*tiles 1 of 1024 px")


def test_seam_guard_fires_when_a_tile_repeats_the_band_above(visual):
    """A tile whose rows come from elsewhere (here: the previous tile's, so every text
    line still has ink and check_whole cannot see it) does not continue the tile above."""
    seen = {}

    def repeat_second_tile(y, tile):
        seen[y] = tile.copy()
        if y == 2048:
            tile[:] = seen[1024][:len(tile)]  # the band above, again

    refused_with_tile_hook(visual, repeat_second_tile,
                           r"not whole: the tile at y=2048 does not continue the one above "
                           r"\(\d+ of 20480 px of the 16 rows both hold differ\)")


def test_variants_reuse_pages_but_nothing_of_one_reaches_the_next(session):
    """Pages are handed from variant to variant (a new context costs ~1 CPU-s): each
    variant still starts from nothing, with its own viewport, screen and scheme, and
    an -attr variant's data-theme is there before the page's first script runs."""
    todo = [at("memory.html"), at("memory.html", "dark-attr"), at("memory.html", width=390, height=844),
            at("memory.html", "dark"), at("memory.html"), at("memory.html")]
    seen = [json.loads(c.regions[0].heading) for c in session.capture_all(todo)]
    assert seen == [
        [None, None, "", None, 1280, 1280, False],
        [None, None, "", "dark", 1280, 1280, False],
        [None, None, "", None, 390, 390, False],
        [None, None, "", None, 1280, 1280, True],
        [None, None, "", None, 1280, 1280, False],
        [None, None, "", None, 1280, 1280, False],
    ]
    assert 1 <= len(session._browser.contexts) <= 3  # six variants, at most three pages alive at once


@pytest.fixture(scope="module")
def small_tiles(visual):
    import dataclasses

    with Session(dataclasses.replace(visual, tile_height=4096, mask=())) as s:
        yield s


def test_a_fixed_footer_is_shown_once_where_it_sits_at_scroll_0(small_tiles):
    """A 100vh hero and a fixed footer on a page of several tiles: the hero is the
    800 px first screen and the footer is pinned at that screen's bottom, once."""
    cap = small_tiles.capture(at("hero.html"))
    assert cap.timings["tile_calls"] >= 3
    red = np.nonzero((cap.image[:, 640, :3] == (200, 0, 0)).all(axis=1))[0]
    assert (red.min(), red.max()) == (0, 799)  # 100vh is the 800 px viewport, as the page is seen
    blue = np.nonzero((cap.image[:, 100, :3] == (0, 0, 200)).all(axis=1))[0]
    assert (blue.min(), blue.max(), len(blue)) == (750, 799, 50)  # the fixed footer at the first screen's bottom
    assert cap.explain["frozen"]["pinned"] == [["div", "fixed", 750]]


def test_pinned_to_its_width_a_page_keeps_its_layout_when_the_view_narrows(small_tiles, monkeypatch):
    """A beyond-viewport call of a tall page resizes the view for a moment through zero width
    (benchmarks/README.md; whether a ResizeObserver sees it depends on timing). Narrowed
    to 1 px on purpose: held (scripts.PIN_WIDTH), the column keeps its width and its media
    rules; unheld, it is laid out and styled for 1 px."""
    from theme.capture import scripts

    def at_one_px() -> list:
        with small_tiles.open(at("fluid.html")) as pg:
            cdp = pg.context.new_cdp_session(pg)
            cdp.send("Emulation.setDeviceMetricsOverride", {"width": 1, "height": 800, "deviceScaleFactor": 1,
                                                            "mobile": False})
            return pg.evaluate("() => [innerWidth, Math.round(document.querySelector('.col').getBoundingClientRect()"
                               ".width), getComputedStyle(document.querySelector('.col p')).color]")

    assert at_one_px() == [1, 768, "rgb(17, 17, 17)"]  # 60 % of 1280, the wide rules
    monkeypatch.setattr(scripts, "PIN_WIDTH", "() => 0")
    assert at_one_px() == [1, 1, "rgb(0, 90, 0)"]  # 80 % of 1 px, the narrow rule


@pytest.mark.slow
def test_pinning_the_width_changes_no_pixel(small_tiles, monkeypatch):
    """Both widths, light and dark (the dark one switched from the light page): the same
    pixels and regions as unpinned captures, and the media rules it pinned counted."""
    from theme.capture import scripts

    todo = four("fluid.html")
    pinned = list(small_tiles.capture_all(todo))
    assert [c.explain["pinned_width"] for c in pinned if not c.timings["switched"]] == [3, 3]
    assert [c.timings["switched"] for c in pinned] == [False, True, False, True]
    monkeypatch.setattr(scripts, "PIN_WIDTH", "() => 0")
    for cap, alone in zip(pinned, small_tiles.capture_all(todo), strict=True):
        assert cap.timings["tile_calls"] >= 2
        assert np.array_equal(cap.image, alone.image), cap.variant
        assert [(r.path, r.box) for r in cap.regions] == [(r.path, r.box) for r in alone.regions]
    desktop_dark, mobile_light = pinned[3].image, pinned[0].image
    assert ((desktop_dark[:, :, :3].reshape(-1, 3) == (0, 0, 200)).all(axis=1)).any()  # the scheme still switches
    assert ((mobile_light[:, :, :3].reshape(-1, 3) == (0, 90, 0)).all(axis=1)).any()  # the narrow rule, pinned on


@pytest.mark.slow
def test_after_a_tall_capture_the_page_has_the_next_variants_viewport(small_tiles):
    assert small_tiles.capture(at("long.html")).timings["tile_calls"] >= 3
    for width, height in ((390, 844), (1280, 800)):
        seen = json.loads(small_tiles.capture(at("memory.html", width=width, height=height)).regions[0].heading)
        assert seen[4:6] == [width, width]
        with small_tiles.open(at("memory.html", width=width, height=height)) as pg:
            sizes = pg.evaluate("[innerWidth, innerHeight, screen.width, screen.height]")
            assert sizes == [width, height, width, height]


def test_a_fetch_whose_body_is_never_read_is_answered_and_the_page_captured(session):
    """A response's headers answer a fetch(): unread, its body never finishes loading, and page
    time, which waits for the page's requests before it moves, waited for it for 30 s and failed."""
    with session.open(at("unread.html")) as pg:
        assert pg.evaluate("document.getElementById('said').textContent") == "404 200"
    cap = session.capture(at("unread.html"))
    assert cap.image.shape[1] == 1280 and cap.aborted == []


def test_a_routed_origins_storage_does_not_reach_the_next_variant(session):
    seen = [c.regions[0].heading for c in session.capture_all([at("framed.html"), at("framed.html")])]
    seen.append(session.capture(at("framed.html")).regions[0].heading)
    assert seen == ["frame null undefined none"] * 3


def four(page_: str) -> list[Variant]:
    return [Variant(page_, vp, w, h, scheme) for vp, (w, h) in (("mobile", (390, 844)), ("desktop", (1280, 800)))
            for scheme in ("light", "dark")]


def test_dark_taken_from_the_light_page_has_the_pixels_of_a_fresh_dark_load(session):
    """Two viewports × light and dark: each dark variant switches its light page's scheme
    instead of loading again, and gives what a fresh dark load gives, pixel for pixel,
    regions, masks, <picture> sources and images' own media queries included."""
    todo = four("schemes.html")
    together = list(session.capture_all(todo))
    assert [c.variant for c in together] == todo
    assert [c.timings["switched"] for c in together] == [False, True, False, True]
    for cap in together:
        alone = session.capture(cap.variant)
        assert alone.timings["switched"] is False
        assert np.array_equal(cap.image, alone.image), cap.variant
        assert [(r.path, r.box) for r in cap.regions] == [(r.path, r.box) for r in alone.regions]
    light, dark = together[2].image, together[3].image
    picture = light[:, :, :3].reshape(-1, 3)
    assert ((picture == (255, 0, 0)).all(axis=1)).any()
    assert not ((dark[:, :, :3].reshape(-1, 3) == (255, 0, 0)).all(axis=1)).any()
    assert ((dark[:, :, :3].reshape(-1, 3) == (0, 0, 255)).all(axis=1)).any()  # the dark <picture> source
    assert ((dark[:, :, :3].reshape(-1, 3) == (0, 255, 255)).all(axis=1)).any()  # the SVG's own dark rule
    masked = lambda img: np.flatnonzero(np.all(img[:, 600, :3] == (255, 0, 255), axis=1))  # noqa: E731
    assert masked(dark).min() - masked(light).min() == 32  # the mask moved with the note-box, 32 px taller in dark


@pytest.mark.parametrize("page_, said", [("asks.html", "asked: dark"), ("computes.html", "computed: rgb(17, 17, 17)")])
@pytest.mark.slow
def test_a_page_whose_scripts_learn_the_scheme_is_loaded_afresh_in_each(session, page_, said):
    """Switching the scheme would keep what such a script drew in light: these are loaded again."""
    todo = four(page_)
    together = list(session.capture_all(todo))
    assert not any(c.timings["switched"] for c in together)
    for cap in together:
        assert np.array_equal(cap.image, session.capture(cap.variant).image), cap.variant
    with session.open(todo[1]) as pg:
        assert pg.text_content("#s") == said
    assert not np.array_equal(together[0].image, together[1].image)


def test_switch_schemes_false_loads_every_variant_afresh(visual):
    import dataclasses

    with Session(dataclasses.replace(visual, switch_schemes=False)) as s:
        together = list(s.capture_all(four("schemes.html")))
    assert [c.variant for c in together] == four("schemes.html")
    assert not any(c.timings["switched"] for c in together)


@pytest.mark.slow
def test_a_page_image_that_is_not_whole_is_taken_again_with_smaller_tiles(visual):
    """A tile the browser returned blank once (a call too large for the raster memory at
    that moment): the 120 000 px page is taken again with tiles of half the rows, 16 384
    instead of 32 768, and the capture says so; its pixels are those of a capture that was
    whole at once."""
    import dataclasses

    with Session(dataclasses.replace(visual, mask=(), style=None, tile_height=32768)) as s:
        whole = s.capture(at("tall.html"))
        seen = []

        def blank_the_first_second_tile(y, tile):
            seen.append(y)
            if y == 32768 and seen.count(32768) == 1:
                tile[:] = 255

        s.tile_hook = blank_the_first_second_tile
        healed = s.capture(at("tall.html"))
    assert seen == [0, 32768, 65536, 98304] + list(range(0, 120000, 16384))  # 32 768-px tiles, then 16 384
    assert np.array_equal(healed.image, whole.image)
    assert whole.notes == []
    assert len(healed.notes) == 1 and re.fullmatch(
        r"tall\.html \(desktop-light\): the page image was not whole with 32768-px tiles \(\d+ of \d+ text "
        r"lines blank, the first at y=35\d\d\d\); it is whole with 16384-px tiles, which this capture used",
        healed.notes[0]), healed.notes


def test_a_page_image_never_whole_fails_its_own_variant_with_the_blank_band(visual):
    """Blank at every tile height: that variant is a Failure naming its viewport and scheme,
    with the band that was blank; the next variant is captured as if nothing happened."""
    import dataclasses

    def blank_rows_2048_to_2400(y, tile):
        top, bottom = max(0, 2048 - y), max(0, 2400 - y)
        tile[top:bottom] = 255

    with Session(dataclasses.replace(visual, tile_height=2048, mask=(), style=None)) as s:
        s.tile_hook = blank_rows_2048_to_2400
        failed, other = s.capture_all([at("lines.html"), at("a.html")], failures=True)
        s.tile_hook = None
        alone = s.capture(at("a.html"))
    assert isinstance(failed, Failure) and failed.kind == "not-whole"
    assert failed.variant == at("lines.html")
    assert failed.message.startswith("lines.html (desktop-light): the stitched page image is not whole")
    assert "(tried 2048-px tiles (" in failed.message and "then 1024-px tiles (" in failed.message
    band = failed.images["blank-band"]
    assert band.shape[1:] == (1280, 4) and 300 <= band.shape[0] <= 1200
    assert (band == 255).all(axis=(1, 2)).sum() >= 300  # the blank rows are in it
    assert not isinstance(other, Failure) and np.array_equal(other.image, alone.image)


@pytest.mark.slow
def test_with_failures_a_page_that_never_settles_is_its_variants_failure_alone(session):
    first, failed, last = session.capture_all([at("a.html"), at("unstable.html"), at("a.html", "dark-attr")],
                                              failures=True)
    assert isinstance(failed, Failure) and failed.variant == at("unstable.html")
    assert "unstable.html (desktop-light): the page kept changing" in failed.message
    assert (first.variant, last.variant) == (at("a.html"), at("a.html", "dark-attr"))


def test_a_page_whose_script_never_ends_fails_as_unresponsive_and_the_others_go_on(visual, monkeypatch):
    """Playwright's page.evaluate has no timeout: on a page whose script loops for ever after
    load, the run used to sit silent for good. Each look at the page is bounded now: the
    variant fails, naming the page and why, and the same browser takes the next page."""
    monkeypatch.setattr(bounded, "ANSWER_S", 2.0)
    quick = dataclasses.replace(visual, settle_timeout=1)
    with Session(quick) as s:
        failed, after = s.capture_all([at("endless.html"), at("a.html")], failures=True)
        alone = s.capture(at("a.html"))
    assert isinstance(failed, Failure) and failed.kind == "unresponsive"
    assert failed.message == ("endless.html (desktop-light): the page did not answer for 2 s: a script of it "
                              "keeps the browser busy (a loop that never ends?) or it draws no frame; fix the "
                              "script, or raise settle_timeout in [tool.theme.visual] if the page is only that slow")
    assert not isinstance(after, Failure) and np.array_equal(after.image, alone.image)


# What the engine asks every page after settling, in order; a page may start a loop at any time
# (a timer, an observer that one of these very calls wakes), so each question is bounded.
ASKED_AFTER_SETTLING = ("FREEZE", "PIN_WIDTH", "UNMOVED_FOUND", "GEOMETRY", "AFTER_TILES")


@pytest.mark.slow
def test_a_page_that_stops_answering_after_settling_fails_at_any_question(visual, monkeypatch):
    """Whichever of the engine's later questions the page stops answering (here the question
    itself loops for ever, as a page's loop that starts just then would hold it), the variant
    fails as unresponsive, named, and the same browser captures the next page as before."""
    monkeypatch.setattr(bounded, "ANSWER_S", 2.0)
    loop = "() => { for (;;) {} }"
    with Session(dataclasses.replace(visual, settle_timeout=1)) as s:
        alone = s.capture(at("a.html"))
        for name in ASKED_AFTER_SETTLING:
            with monkeypatch.context() as m:
                m.setattr(scripts, name, loop)
                [failed] = s.capture_all([at("a.html")], failures=True)
            assert isinstance(failed, Failure) and failed.kind == "unresponsive", (name, failed)
            assert failed.message.startswith("a.html (desktop-light): the page did not answer for 2 s: "), name
            after = s.capture(at("a.html"))
            assert np.array_equal(after.image, alone.image), name


@pytest.mark.slow
def test_a_state_whose_page_stops_answering_at_a_key_or_a_read_of_its_elements_fails_alone(visual, monkeypatch):
    """The calls of a reader state that Playwright cannot bound and DevTools cannot be given
    (a key pressed or typed wherever focus is; the step's element scrolled into view; reads
    through the handles of the elements the state found: their boxes, their styles, their
    text's contrast) are bounded too: a page
    whose script loops for ever there fails that state as unresponsive, naming what it was
    doing, and the same browser takes the next state as it did before."""
    from theme.capture import shoot
    from theme.core.config import StateConfig, Step

    monkeypatch.setattr(bounded, "ANSWER_S", 2.0)
    loop = "() => { for (;;) {} }"
    hover = StateConfig("hover", (Step("hover", "#t"),), {"tip": "#tip"}, contrast="text")
    keys = {"press": StateConfig("press", (Step("focus", "#l"), Step("press", "Enter")), {"link": "#l"}),
            "type": StateConfig("type", (Step("focus", "#l"), Step("type", "cat")), {"link": "#l"}),
            "scroll": StateConfig("scroll", (Step("focus", "#l"),), {"link": "#l"})}
    cfg = dataclasses.replace(visual, settle_timeout=1, states=(hover, *keys.values()), chain_states=False)
    with Session(cfg) as s:
        alone = s.capture(dataclasses.replace(at("reader.html"), state="hover"))
        for name, page_, doing in (("press", "keyloop.html", "pressing Enter"),
                                   ("type", "keyloop.html", "typing 'cat'"),
                                   ("scroll", "scrolloop.html", "scrolling #l into view")):
            [failed] = s.capture_all([dataclasses.replace(at(page_), state=name)], failures=True)
            assert isinstance(failed, Failure) and failed.kind == "unresponsive", (name, failed)
            assert failed.message.startswith(
                f"{page_} (desktop-light, state {name}): the page did not answer for 2 s ({doing}): "), failed
        for module, script, doing in ((scripts, "STATE_REGIONS", "finding capture tip"),
                                      (shoot, "_AS_JSON", "reading the styles of a state's elements"),
                                      (scripts, "STATE_CONTRAST", "measuring the text's contrast")):
            with monkeypatch.context() as m:
                m.setattr(module, script, loop)
                [failed] = s.capture_all([dataclasses.replace(at("reader.html"), state="hover")], failures=True)
            assert isinstance(failed, Failure) and failed.kind == "unresponsive", (script, failed)
            assert f"the page did not answer for 2 s ({doing}): " in failed.message, failed.message
            after = s.capture(dataclasses.replace(at("reader.html"), state="hover"))
            assert [np.array_equal(a, b) for (_, a), (_, b) in zip(after.images(), alone.images(), strict=True)] \
                == [True] * len(alone.regions), script


@pytest.mark.slow
def test_an_embedded_frame_that_stops_answering_fails_its_variant_or_is_not_parked(visual, monkeypatch):
    """The two questions asked of an embedded frame, through Playwright (how its scripts read
    the colour scheme, before the dark variant takes the light one's page; clearing its
    storage, before its page is parked) are bounded in the frame's own renderer: a frame
    that loops there fails the variant as unresponsive, or has its page closed, not parked;
    the run goes on and the next capture is as before."""
    monkeypatch.setattr(bounded, "ANSWER_S", 2.0)
    in_frame_only = "() => { if (window !== window.top) { for (;;) {} } return null; }"
    with Session(dataclasses.replace(visual, settle_timeout=1)) as s:
        alone = s.capture(at("framed.html"))
        with monkeypatch.context() as m:
            m.setattr(scripts, "SCHEME_READ", in_frame_only)
            shots = list(s.capture_all([at("framed.html"), at("framed.html", "dark")], failures=True))
        failed = [shot for shot in shots if isinstance(shot, Failure)]
        assert [f.kind for f in failed] == ["unresponsive"], shots
        assert failed[0].message.startswith("framed.html (desktop-light): the page did not answer for 2 s (reading the "
                                            "colour scheme of the frame https://cdn.example.com/lib/frame.html): ")
        with monkeypatch.context() as m:
            m.setattr(scripts, "FORGET", in_frame_only)
            parked = s.capture(at("framed.html"))  # its page closed, not parked: nothing to fail
        assert np.array_equal(parked.image, alone.image)
        assert np.array_equal(s.capture(at("framed.html")).image, alone.image)


@pytest.mark.slow
def test_states_of_a_variant_share_its_page_only_while_each_finds_it_as_the_first_did(visual):
    """The first state of a variant loads the page; the next one is taken on that page, reset,
    when the page is again as the first state found it (the title's hover box hidden anew by
    a script is the same as never shown), and on a fresh load when a step left its mark (the
    button's text). The images are those of every state on a fresh load."""
    from theme.core.config import StateConfig, Step

    states = (StateConfig("hover", (Step("hover", "#t"),), {"tip": "#tip"}),
              StateConfig("focus", (Step("focus", "#l"),), {"link": "#l"}),
              StateConfig("press", (Step("click", "#b"),), {"button": "#b"}),
              StateConfig("again", (Step("hover", "#t"),), {"tip": "#tip"}))
    todo = [dataclasses.replace(at("reader.html"), state=s.name) for s in states]
    shots = {}
    for chain in (True, False):
        with Session(dataclasses.replace(visual, states=states, chain_states=chain)) as s:
            shots[chain] = list(s.capture_all(todo))
    assert [c.explain["page"] for c in shots[True]] == [
        "a fresh load", "the page of state hover, reset: as that state found it",
        "the page of state focus, reset: as that state found it",
        "a fresh load: state press left its page other than it found it"]
    assert [c.explain["page"] for c in shots[False]] == ["a fresh load"] * 4
    for chained, fresh in zip(shots[True], shots[False], strict=True):
        assert names(chained) == names(fresh) and len(chained.regions) == 1
        for (rel, a), (_, b) in zip(chained.images(), fresh.images(), strict=True):
            assert np.array_equal(a, b), (chained.variant.state, rel)


def test_a_page_that_takes_away_animation_frames_is_still_captured(visual):
    """The engine waits two animation frames before each look at a page. A page that replaces
    requestAnimationFrame with one that never calls back no longer stalls it: theme's scripts
    keep the browser's own (js/keep_real_time.js), as they keep its timers from page time."""
    with Session(dataclasses.replace(visual, settle_timeout=5)) as s:
        [shot] = s.capture_all([at("frameless.html")], failures=True)
    assert not isinstance(shot, Failure), shot.message


def test_a_bounded_question_takes_any_function_the_page_scripts_are_written_as(session):
    """bounded.ask calls a function's source in the page as page.evaluate does: an async
    one is awaited, a last line that is a // comment does not swallow the call, a throw names itself."""
    with session.open(at("a.html")) as page:
        cdp = page.context.new_cdp_session(page)
        assert bounded.ask(cdp, "(n) => n + 1 // one more", 41, seconds=5, where="a") == 42
        assert bounded.ask(cdp, "async ({k}) => { await null; return [k, document.title] }", {"k": "v"},
                             seconds=5, where="a") == ["v", ""]
        with pytest.raises(CaptureError, match=r"^a\.html: theme's script failed in the page \(Error: no\)$"):
            bounded.ask(cdp, "() => { throw new Error('no') }", None, seconds=5, where="a.html")
