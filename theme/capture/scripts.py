"""JavaScript run inside the page. Kept as strings so the package needs no data files.

Each function is passed to `page.evaluate(SCRIPT, arg)`; results are plain JSON.
"""

import json

from .naming import CHROME, TITLE

# Runs before any page script, in every frame (a context init script): lazy
# images and frames are made eager once the parser has created them, so they
# load with the page instead of only when scrolled to (a full-page capture
# never scrolls).
EAGER = r"""
(() => {
  const eager = () => {
    for (const el of document.querySelectorAll('img[loading="lazy"], iframe[loading="lazy"]')) el.loading = 'eager';
  };
  document.addEventListener('DOMContentLoaded', eager, { once: true });
})();
"""

# Also before any page script, in every frame: notes the first way a script of
# the page could have learned the colour scheme (window.__themeSchemeRead):
# a prefers-color-scheme query, or any computed style (colours, custom
# properties). A page that did neither was drawn by its CSS alone, so switching
# its emulated scheme gives what a fresh load in the other scheme gives, and
# Session may take its dark variant from its light one's page (schedule.plan). This
# module's own scripts use the unwrapped getComputedStyle (__themeStyleOf), so
# they never count.
SCHEME_PROBE = r"""
(() => {
  const mark = (how) => { if (!window.__themeSchemeRead) window.__themeSchemeRead = how; };
  const style = window.getComputedStyle;
  Object.defineProperty(window, '__themeStyleOf', { value: (el, pseudo) => style.call(window, el, pseudo) });
  window.getComputedStyle = function getComputedStyle(el, pseudo) {
    mark('getComputedStyle');
    return style.call(window, el, pseudo);
  };
  const query = window.matchMedia;
  if (query) window.matchMedia = function matchMedia(text) {
    if (/prefers-color-scheme/i.test(String(text))) mark('matchMedia(' + String(text) + ')');
    return query.call(window, text);
  };
  const map = Element.prototype.computedStyleMap;
  if (map) Element.prototype.computedStyleMap = function computedStyleMap() {
    mark('computedStyleMap');
    return map.call(this);
  };
})();
"""

# What SCHEME_PROBE saw in this frame (null: nothing).
SCHEME_READ = "() => window.__themeSchemeRead || null"

# <html data-theme> forced for one navigation (the -attr schemes), before any of
# the page's scripts run. At document start there is no <html> element yet, so
# the attribute is set when the parser inserts it: a mutation observer's
# callback runs at the microtask checkpoint before the first script executes.
DATA_THEME = r"""
(() => {
  const theme = %(data_theme)s;
  const set = () => {
    const html = document.documentElement;
    if (html && html.getAttribute('data-theme') !== theme) html.setAttribute('data-theme', theme);
    return !!html;
  };
  if (!set()) new MutationObserver((_, seen) => { if (set()) seen.disconnect(); }).observe(document, { childList: true });
})();
"""

# Before a lane's page is handed to the next variant, in every frame: what the
# last one stored where only a script of its origin can reach (sessionStorage
# lives as long as the tab, and a third-party frame's storage is partitioned by
# the top-level site: Storage.clearDataForOrigin clears neither, and the
# browser's frame tree does not list such a frame, out of process, to clear its
# storage key). Each kind is tried on its own: one may be missing or refused.
FORGET = r"""
async () => {
  const quietly = async (what) => { try { await what(); } catch (e) {} };
  await quietly(() => sessionStorage.clear());
  await quietly(() => localStorage.clear());
  await quietly(async () => {
    for (const { name } of await indexedDB.databases()) {
      await new Promise((done) => { const r = indexedDB.deleteDatabase(name); r.onsuccess = r.onerror = r.onblocked = done; });
    }
  });
  await quietly(async () => { for (const name of await caches.keys()) await caches.delete(name); });
}
"""

# Screenshot-only CSS that removes motion and blinking: transitions off (a
# style change shows its end at once), the text caret transparent, smooth
# scrolling off, and scrollbars hidden in case --hide-scrollbars is ignored.
# CSS animations are not switched off here but finished with the page's
# script animations (STOP_ANIMATIONS): a fade-in that fills forwards must end
# visible, as the reader sees it, not at its base style.
STABLE_CSS = """
*, *::before, *::after {
  transition: none !important;
  caret-color: transparent !important;
  scroll-behavior: auto !important;
}
::-webkit-scrollbar { display: none !important; }
"""

# Adds CSS as a constructed stylesheet. Not Playwright's add_style_tag: after
# it, every beyond-viewport capture became many times slower (benchmarks/README.md);
# an adopted sheet costs nothing extra.
ADOPT_CSS = r"""
(css) => {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}
"""

# Before any page script, in every frame: what the settle loop asks about
# (scripts.PROBE). It notes when the page last did something that changes what
# is drawn: defined a custom element, changed the DOM (in the document or in any
# shadow root, open or closed), and which IntersectionObservers and scroll
# listeners it made (the reader's view needs a scroll through the article only
# when something listens). Closed shadow roots are kept so maths typeset inside
# them can be seen.
WATCH = r"""
(() => {
  if (window.__themeWatch) return;
  const w = window.__themeWatch = { lastChange: performance.now(), defines: 0, observers: [], scrollers: 0, roots: [] };
  const touch = () => { w.lastChange = performance.now(); };
  const mo = new MutationObserver(touch);
  const watch = (node) => mo.observe(node, { childList: true, subtree: true, attributes: true, characterData: true });
  watch(document);
  const define = customElements.define;
  customElements.define = function (...args) { w.defines++; touch(); return define.apply(this, args); };
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (...args) { const root = attach.apply(this, args); w.roots.push(root); watch(root); return root; };
  const IO = window.IntersectionObserver;
  if (IO) {
    window.IntersectionObserver = function IntersectionObserver(cb, opts) { const o = new IO(cb, opts); w.observers.push(o); return o; };
    window.IntersectionObserver.prototype = IO.prototype;
  }
  // Short timers (up to 1 s) still to fire: a page that fetches a fragment
  // 300 ms after load, or a runtime that reacts 500 ms after the last scroll,
  // has work scheduled that network and DOM quiet cannot see yet.
  const timers = w.timers = new Set();
  const later = window.setTimeout, cancel = window.clearTimeout;
  window.setTimeout = function setTimeout(fn, delay, ...args) {
    if (typeof fn !== 'function' || !(Number(delay || 0) <= 1000)) return later.call(window, fn, delay, ...args);
    const id = later.call(window, function (...a) { timers.delete(id); return fn.apply(this, a); }, delay, ...args);
    timers.add(id);
    return id;
  };
  window.clearTimeout = function clearTimeout(id) { timers.delete(id); return cancel.call(window, id); };
  const listen = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, ...rest) {
    if (type === 'scroll' || type === 'wheel') w.scrollers++;
    return listen.call(this, type, ...rest);
  };
})();
"""

# One look at whether the page has settled: what is still pending (never
# throws). Maths: every <d-math> (the Distill runtime typesets KaTeX into its
# shadow root) whose source is not empty must hold KaTeX output or a KaTeX
# error; a page of the specimen's contract sets <html data-typeset> and flips
# it to "done". Custom tags nothing defined are listed, never waited for: a
# tag no script defines is plain markup styled by CSS alone.
PROBE = r"""
({ dataTheme }) => {
  const w = window.__themeWatch || { lastChange: 0, defines: 0, observers: [], scrollers: 0, roots: [] };
  const html = document.documentElement;
  if (dataTheme !== null && html.getAttribute('data-theme') !== dataTheme) html.setAttribute('data-theme', dataTheme);
  for (const el of document.querySelectorAll('img[loading="lazy"], iframe[loading="lazy"]')) el.loading = 'eager';
  const undefinedTags = [...new Set([...document.querySelectorAll(':not(:defined)')].map((e) => e.localName))].sort();
  const roots = [document, ...w.roots];
  const maths = roots.flatMap((r) => [...r.querySelectorAll('d-math')]);
  const done = (m) => {
    if (!customElements.get('d-math') || !(m.textContent || '').trim()) return true;
    const inside = m.shadowRoot || w.roots.find((r) => r.host === m) || m;
    return !!inside.querySelector('.katex, .katex-error, .katex-display, mjx-container');
  };
  const mathsPending = maths.filter((m) => !done(m)).length;
  const typeset = html.hasAttribute('data-typeset') ? html.dataset.typeset : null;
  const images = [...document.images].filter((i) => !i.complete).map((i) => i.currentSrc || i.src);
  return {
    quietMs: performance.now() - w.lastChange, defines: w.defines, undefinedTags, maths: maths.length,
    mathsPending, typeset, images, fonts: document.fonts.status, readyState: document.readyState,
    observers: w.observers.length, scrollers: w.scrollers, timers: w.timers ? w.timers.size : 0,
  };
}
"""

# After every image is complete: each one decoded, so no half-painted bitmap
# reaches the screenshot; then two animation frames.
DECODE_IMAGES = r"""
async () => {
  await Promise.all([...document.images].map((img) => img.decode().catch(() => {})));
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
}
"""

# The reader's view: scroll the whole article one screen at a time so that
# IntersectionObservers and scroll handlers see every part of it (d-figure
# ready/onscreen/offscreen, scroll-spy tables of contents, lazy content), then
# back to the top. One frame a screen: each scroll is made inside an animation
# frame callback, and the same frame's rendering update (scroll events, then
# intersection observations) sees the new position before the next one is
# made. Run only when the page made an observer or listens to scrolling (WATCH):
# elsewhere it changes nothing.
READ_THROUGH = r"""
async () => {
  const d = document.documentElement;
  const step = Math.max(200, window.innerHeight);
  let screens = 0;
  await new Promise((done) => {
    const next = () => {
      const y = screens * step;
      if (y >= d.scrollHeight) { window.scrollTo(0, 0); requestAnimationFrame(() => requestAnimationFrame(done)); return; }
      window.scrollTo(0, y);
      screens++;
      requestAnimationFrame(next);
    };
    requestAnimationFrame(next);
  });
  return screens;
}
"""

# CSS animations and Web Animations created by scripts: finish the finite ones
# (final state, as a reader sees it) and cancel endless ones (initial state).
STOP_ANIMATIONS = r"""
() => {
  for (const a of document.getAnimations()) {
    try { a.finish(); } catch (e) { a.cancel(); }
  }
}
"""

# A cheap fingerprint of the rendered state: FNV-1a over every element's box
# (1/64 px, Chromium's LayoutUnit) plus the document size and text length.
# Milliseconds even on a tall page, against seconds for a full capture. What
# happens inside a masked element (`masks`: selectors) is not counted, only its
# own box: a mask is how a user says "this keeps changing, and that is fine",
# so a figure a script animates forever can be masked and the page still settle.
LAYOUT_HASH = r"""
(masks) => {
  let h = 0x811c9dc5;
  const mix = (v) => { h = Math.imul(h ^ (Math.round(v) | 0), 16777619) >>> 0; };
  const hidden = new Set();
  for (const sel of masks || []) {
    for (const m of document.querySelectorAll(sel)) for (const e of m.getElementsByTagName('*')) hidden.add(e);
  }
  const all = document.getElementsByTagName('*');
  mix(all.length - hidden.size);
  let text = document.documentElement.textContent.length;
  for (const el of all) {
    if (hidden.has(el)) continue;
    const r = el.getBoundingClientRect();
    mix(r.x * 64); mix(r.y * 64); mix(r.width * 64); mix(r.height * 64);
  }
  if (hidden.size) text = 0;  // a masked element's text may change; the boxes above still catch reflow
  const d = document.documentElement;
  mix(d.scrollWidth); mix(d.scrollHeight); mix(text);
  return [h, all.length - hidden.size, d.scrollWidth, d.scrollHeight];
}
"""

# Resolves after two animation frames: style, layout and media queries brought up to date, and painted.
NEXT_FRAME = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"

# LAYOUT_HASH after NEXT_FRAME: one round of the stability check.
LAYOUT_HASH_NEXT_FRAME = (
    "async (masks) => { await (" + NEXT_FRAME + ")(); return (" + LAYOUT_HASH.strip() + ")(masks); }"
)

# The size of the whole page in CSS px (= device px at scale factor 1): the scroll
# size of the document's scroller (document.scrollingElement: <html>, or <body> in
# quirks mode), what a reader scrolls through. Nothing else counts: an element's own
# scroll size (a <body> that scrolls inside the view) is not the page's.
GEOMETRY = r"""
() => {
  const s = document.scrollingElement || document.documentElement;
  return { width: s.scrollWidth, height: s.scrollHeight, scrollX: window.scrollX, scrollY: window.scrollY };
}
"""

# Checks every selector; returns the first that does not parse.
CHECK_SELECTORS = r"""
(items) => {
  for (const [where, selector] of items) {
    try { document.querySelector(selector); } catch (e) { return { where, selector, message: String(e.message) }; }
  }
  return null;
}
"""

# Solid boxes over masked elements, in document coordinates (absolute to the
# root, so they scroll with the page and never change its layout).
MASK = r"""
({ selectors, color }) => {
  const boxes = [];
  for (const sel of selectors) for (const el of document.querySelectorAll(sel)) {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) continue;
    boxes.push([r.left + window.scrollX, r.top + window.scrollY, r.width, r.height]);
  }
  for (const [x, y, w, hgt] of boxes) {
    const div = document.createElement('div');
    div.setAttribute('data-theme-mask', '');
    div.style.cssText = `position:absolute;left:${x}px;top:${y}px;width:${w}px;height:${hgt}px;` +
      `background:${color};z-index:2147483647;pointer-events:none;margin:0;padding:0;border:0;`;
    document.documentElement.appendChild(div);
  }
  return boxes.length;
}
"""

# Removes MASK's boxes (before a page is taken again in another scheme).
UNMASK = "() => { for (const box of document.querySelectorAll('[data-theme-mask]')) box.remove(); }"

# A readable selector path of an element, for messages, reports and `mask`:
# tag, id or first two classes, :nth-of-type among same-tag siblings, up to
# the nearest ancestor with an id (or body).
PATH_OF = r"""
(el) => {
  const step = (e) => {
    if (e.id) return `${e.localName}#${CSS.escape(e.id)}`;
    let s = e.localName + [...e.classList].slice(0, 2).map((c) => '.' + CSS.escape(c)).join('');
    const parent = e.parentElement;
    if (parent) {
      const same = [...parent.children].filter((c) => c.localName === e.localName);
      if (same.length > 1) s += `:nth-of-type(${same.indexOf(e) + 1})`;
    }
    return s;
  };
  const parts = [];
  for (let e = el; e && e !== document.documentElement; e = e.parentElement) {
    parts.unshift(step(e));
    if (e.id || e === document.body) break;
  }
  return parts.join(' > ');
}
""".strip()

# The guard that freezing never moves the layout. Every step that changes a
# settled page before its tiles (FREEZE_VIEW, FREEZE, PIN_WIDTH) makes its change
# between two looks at every element's border box and the page's scroll size,
# inside one synchronous task: no script of the page runs in between, so a box
# that differs was moved by the step, not by the page. The document's elements,
# as LAYOUT_HASH: what moves inside a shadow root without changing its host's box
# moves nothing around it, and the shadow roots of the long runtime page hold six
# elements in seven, which tripled the cost of a look (benchmarks/README.md).
# The first step that moved something is kept in window.__themeUnmoved (its first
# elements, by how much, and the page size before and after) for UNMOVED_FOUND;
# theme/capture/unmoved.py refuses the capture. A difference under 1/100 px is
# float noise of transforms, not a move (Chromium lays out in 1/64 px).
UNMOVED = r"""
(() => {
  const pathOf = (""" + PATH_OF + r""");
  const nameOf = (el) => (el === document.documentElement ? 'html' : pathOf(el));
  const state = window.__themeUnmoved || (window.__themeUnmoved = { moved: null, looks: 0, elements: 0, ms: 0 });
  const size = () => { const s = document.scrollingElement || document.documentElement; return [s.scrollWidth, s.scrollHeight]; };
  const stop = (""" + STOP_ANIMATIONS.strip() + r""");
  // Each look at the page at rest: its motion finished first (STOP_ANIMATIONS), and
  // with it any transition a step started, which would still show the old place.
  const measure = (els) => {
    const t = performance.now();
    stop();
    const boxes = new Float64Array(els.length * 4);
    let i = 0;
    for (const el of els) {
      const r = el.getBoundingClientRect();
      boxes[i++] = r.left + window.scrollX; boxes[i++] = r.top + window.scrollY; boxes[i++] = r.width; boxes[i++] = r.height;
    }
    state.looks++; state.elements = els.length; state.ms += performance.now() - t;
    return { els, boxes, size: size() };
  };
  const look = () => measure([...document.getElementsByTagName('*')]);
  // The elements that explain a move come first: a resized element none of whose
  // descendants resized (its ancestors only grew around it), then a moved one
  // whose parent did not move (its descendants only went along); the rest after.
  const causesFirst = (moved) => {
    const resized = moved.filter((m) => m.d[2] || m.d[3]);
    const around = new Set();
    for (const m of resized) for (let e = m.el.parentElement; e && !around.has(e); e = e.parentElement) around.add(e);
    const changed = new Set(moved.map((m) => m.el));
    const rank = (m) => (m.d[2] || m.d[3] ? (around.has(m.el) ? 2 : 0) : (changed.has(m.el.parentElement) ? 2 : 1));
    return moved.map((m, k) => [rank(m), k, m]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((x) => x[2]);
  };
  // The look after `step`, compared with `before`; returned for the next step to compare with.
  const check = (step, before) => {
    const after = measure(before.els);
    const moved = [];
    for (let k = 0; k < before.els.length; k++) {
      const d = [0, 1, 2, 3].map((j) => after.boxes[4 * k + j] - before.boxes[4 * k + j]);
      if (d.some((v) => Math.abs(v) >= 0.01)) moved.push({ el: before.els[k], d: d.map((v) => Math.round(v * 100) / 100) });
    }
    const resized = after.size[0] !== before.size[0] || after.size[1] !== before.size[1];
    if ((moved.length || resized) && !state.moved) {
      const first = causesFirst(moved).slice(0, 3).map((m) => [nameOf(m.el), ...m.d]);
      // No box changed, yet the page did: the boxes that now reach past its old size.
      const past = [];
      for (let k = 0; k < before.els.length && !moved.length && past.length < 3; k++) {
        const [x, y, w, h] = after.boxes.subarray(4 * k, 4 * k + 4);
        if ((w || h) && (x + w > before.size[0] || y + h > before.size[1]) && !past.some((e) => e.contains(before.els[k]))) past.push(before.els[k]);
      }
      state.moved = { step, count: moved.length, first, past: past.map(nameOf), before: before.size, after: after.size };
    }
    return after;
  };
  return { look, check };
})()
""".strip()

# What the UNMOVED guard found on this page: the first move and what the looks cost.
UNMOVED_FOUND = "() => window.__themeUnmoved || null"

# The reader's view frozen, once the page has settled after READ_THROUGH:
#  - IntersectionObservers disconnected: a beyond-viewport capture grows the
#    view to the whole page, and an observer would see every element come on
#    screen, fire, and change the page during or between the tiles;
#  - inline SVG animations paused at 0 s, CSS animations and transitions
#    finished (STOP_ANIMATIONS): the page at rest, as the guard then sees it;
#  - animated GIF/APNG/WebP images drawn as their first frame (decoded by
#    WebCodecs' ImageDecoder, shown with CSS `content`), so they show one frame,
#    the same one every run. `content` gives the <img> the frame's size as its
#    natural size: where the image was scaled by its source's density (srcset
#    `2x`, or a `w` descriptor with `sizes`) that is another size, so such an
#    image keeps its box by an explicit width and height;
#  - fixed and sticky elements pinned where they sit at scroll 0: a
#    beyond-viewport capture lays the page out in a view as tall as the page,
#    where `bottom: 0` or a sticky box would sit elsewhere. A fixed element stays
#    fixed, at top/left offsets measured, with its size and padding in px: as
#    `absolute` it would count in the page's scroll size (an off-screen drawer
#    made the page wider, a panel past the first screen's bottom made it taller)
#    and its shadow was painted differently. A sticky element becomes relative,
#    so it keeps its place in the flow. Their transitions are switched off first,
#    or a transition on `top` would still show the old place when measured;
#  - each of those two changes between two looks of the UNMOVED guard.
# Returns what it did, for --explain.
FREEZE_VIEW = r"""
async () => {
  const w = window.__themeWatch || { observers: [], roots: [] };
  for (const o of w.observers) { try { o.disconnect(); } catch (e) {} }
  const style = window.__themeStyleOf || getComputedStyle;
  for (const svg of document.querySelectorAll('svg')) {
    try { if (svg.animationsPaused && !svg.animationsPaused()) { svg.pauseAnimations(); svg.setCurrentTime(0); } } catch (e) {}
  }
  const stills = [];  // [img, src, URL of its first frame, the frame's width and height]
  if ('ImageDecoder' in window) {
    for (const img of [...document.images]) {
      const src = img.currentSrc || img.src;
      if (!src || src.startsWith('data:') || !img.naturalWidth || /\.(svg|jpe?g)([?#]|$)/i.test(src)) continue;
      try {
        const res = await fetch(src);
        const data = await res.arrayBuffer();  // read whole: a body left unread is a request never finished
        const type = (res.headers.get('content-type') || '').split(';')[0].trim();
        if (!/^image\/(gif|png|apng|webp|avif)$/.test(type) || !(await ImageDecoder.isTypeSupported(type))) continue;
        const dec = new ImageDecoder({ data, type });
        await dec.tracks.ready;
        const track = dec.tracks.selectedTrack;
        if (!track || !track.animated) { dec.close(); continue; }
        const { image } = await dec.decode({ frameIndex: 0 });
        const canvas = document.createElement('canvas');
        canvas.width = image.displayWidth; canvas.height = image.displayHeight;
        canvas.getContext('2d').drawImage(image, 0, 0);
        image.close(); dec.close();
        const blob = await new Promise((r) => canvas.toBlob(r, 'image/png'));
        const still = new Image();
        still.src = URL.createObjectURL(blob);
        await still.decode().catch(() => {});
        stills.push([img, src, still.src, canvas.width, canvas.height]);
      } catch (e) {}
    }
  }
  // From here to the end of the pinning, one synchronous task (see UNMOVED).
  const guard = """ + UNMOVED + r""";
  const set = (el, props) => { for (const [k, v] of Object.entries(props)) el.style.setProperty(k, v, 'important'); };
  // A computed length to the 1/64 px of a layout unit: getComputedStyle prints 4
  // decimals, and "82.5781px" read back is 1/64 px narrower than the box it came from.
  const px = (v) => `${Math.round(parseFloat(v) * 64) / 64}px`;
  let look = guard.look();
  const frozen = [];
  for (const [img, src, url, width, height] of stills) {
    const cs = style(img);
    set(img, { transition: 'none' });
    if (width !== img.naturalWidth || height !== img.naturalHeight) set(img, { width: px(cs.width), height: px(cs.height) });
    // Drawn in place of the animation by CSS `content`, so src, srcset and the
    // page's selectors on them stay as the author wrote them.
    set(img, { content: `url("${url}")` });
    frozen.push(src);
  }
  look = guard.check('showing animated images at their first frame', look);
  const pinned = [];
  const held = window.__themePinned = window.__themePinned || new WeakSet();  // fixed, pinned: TEXT_LINES measures them
  const found = [];
  for (const el of document.querySelectorAll('body *')) {
    const cs = style(el);
    if (cs.position !== 'fixed' && cs.position !== 'sticky') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const keep = ['width', 'height', 'padding-top', 'padding-right', 'padding-bottom', 'padding-left'];
    found.push([el, cs.position, r, Object.fromEntries(keep.map((k) => [k, px(cs.getPropertyValue(k))]))]);
  }
  for (const [el, position, r, sizes] of found) {
    set(el, { transition: 'none' });
    if (position === 'fixed') {
      set(el, { ...sizes, 'min-width': '0px', 'max-width': 'none', 'min-height': '0px', 'max-height': 'none',
                top: '0px', left: '0px', right: 'auto', bottom: 'auto', margin: '0px' });
      held.add(el);
    } else set(el, { position: 'relative', top: '0px', left: '0px', right: 'auto', bottom: 'auto' });
    const now = el.getBoundingClientRect();
    set(el, { top: px(r.top - now.top), left: px(r.left - now.left) });
    const name = el.localName + (el.id ? '#' + el.id : '') + [...el.classList].slice(0, 2).map((c) => '.' + c).join('');
    pinned.push([name, position, Math.round(r.top + window.scrollY)]);
  }
  guard.check('pinning fixed and sticky elements where they sit at scroll 0', look);
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  return { frozen, pinned, observers: w.observers.length };
}
"""

# Regions: for each key, every matched element with a box, the index of the
# nearest heading (h1–h4) that precedes it in document order, and a readable
# selector path. Headings come back as text so Python makes the names, with
# where each stands (`placed`: in the article, the title block or which page
# chrome, naming.CHROME) so Python can pass over the byline's "DOI". An element
# that precedes the article's first heading also brings its id and caption
# (a child figcaption or .figcaption, the runtime's caption class, or a table's
# caption: its own, else its figure's), and the page its d-title heading: what
# naming.own_base reads.
REGIONS = r"""
({ regions }) => {
  const CHROME = """ + json.dumps(", ".join(CHROME)) + r""", TITLE = """ + json.dumps(TITLE) + r""";
  const headings = [...document.querySelectorAll('h1, h2, h3, h4')];
  const chrome = [...document.querySelectorAll(CHROME)];
  const FOLLOWING = Node.DOCUMENT_POSITION_FOLLOWING;
  const textOf = (e) => e.textContent.replace(/\s+/g, ' ').trim();
  // headings are in document order: binary search the last one that precedes el
  const headingOf = (el) => {
    let lo = 0, hi = headings.length - 1, found = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1, h = headings[mid];
      const pos = h.compareDocumentPosition(el);
      // FOLLOWING: el comes after h (also when el sits inside h); a heading
      // inside el (a matched <section>) does not precede it.
      if (h !== el && (pos & FOLLOWING)) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return found;
  };
  // The CHROME elements around el, innermost first, as indices into `chrome`.
  const around = (el) => {
    const out = [];
    for (let c = el.closest(CHROME); c; c = c.parentElement && c.parentElement.closest(CHROME)) out.push(chrome.indexOf(c));
    return out;
  };
  const placed = headings.map((h) => h.closest(TITLE) ? TITLE : (around(h)[0] ?? null));
  const first = headings.find((h, i) => placed[i] === null);  // the article's first heading
  // A caption is a child, as HTML has it (a figcaption deeper down labels a part).
  const CAPTION = ':scope > figcaption, :scope > .figcaption';
  const captionOf = (el) => {
    const own = el.querySelector(CAPTION) || (el.localName === 'table' && el.caption);
    const figure = own ? null : el.parentElement && el.parentElement.closest('figure, d-figure');
    const cap = own || (figure && figure.querySelector(CAPTION));
    return cap ? textOf(cap) : '';
  };
  const pathOf = (""" + PATH_OF + r""");
  const out = {};
  for (const [key, selector] of regions) {
    out[key] = [];
    for (const el of document.querySelectorAll(selector)) {
      const r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) continue;
      const item = { box: [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height],
                     heading: headingOf(el), selector: pathOf(el), inside: around(el) };
      if (!first || first === el || !(first.compareDocumentPosition(el) & FOLLOWING)) {
        item.id = el.id;
        item.caption = captionOf(el);
      }
      out[key].push(item);
    }
  }
  const title = document.querySelector(TITLE + ' h1');
  return { headings: headings.map(textOf), placed, title: title ? textOf(title) : null, regions: out };
}
"""

# Sub-pixel nudges (theme/check/phase.py): move the `ordinal`-th visible match of
# `selector` by (dx, dy) CSS px with relative positioning, which offsets an
# element's painting without moving anything around it. Only static or
# relative elements are moved (absolute, fixed and sticky ones are placed by
# other rules); the paths of those moved come back.
NUDGE = r"""
(items) => {
  const moved = [];
  for (const { path, selector, ordinal, dx, dy } of items) {
    const visible = [...document.querySelectorAll(selector)].filter((el) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0;
    });
    const el = visible[ordinal];
    if (!el) continue;
    const cs = (window.__themeStyleOf || getComputedStyle)(el);
    if (cs.position !== 'static' && cs.position !== 'relative') continue;
    const px = (v) => (v === 'auto' ? 0 : parseFloat(v) || 0);
    el.style.setProperty('position', 'relative', 'important');
    el.style.setProperty('top', `${px(cs.top) + dy}px`, 'important');
    el.style.setProperty('left', `${px(cs.left) + dx}px`, 'important');
    el.style.setProperty('bottom', 'auto', 'important');
    el.style.setProperty('right', 'auto', 'important');
    moved.push(path);
  }
  return moved;
}
"""

# Wholeness guard, the browser half: boxes of visible text lines, in document
# coordinates, clipped by every overflow/clip ancestor. Text whose own colour
# is transparent, under opacity 0 or visibility:hidden, or inside a mask, is
# left out. Python then checks that each such box has ink (is not one flat
# colour) in the stitched image: a tile that came back blank fails at once.
TEXT_LINES = r"""
({ maxSamples, masks }) => {
  const getComputedStyle = window.__themeStyleOf || window.getComputedStyle;  // see SCHEME_PROBE
  const INF = { l: -Infinity, t: -Infinity, r: Infinity, b: Infinity };
  const cache = new Map();
  const sx = window.scrollX, sy = window.scrollY;
  const pinned = window.__themePinned || new WeakSet();  // fixed, but pinned by FREEZE_VIEW: measured
  const loose = (el, cs) => (cs.position === 'fixed' && !pinned.has(el)) || cs.position === 'sticky';
  const clipOf = (el) => {
    if (!el || el === document.documentElement) return INF;
    if (cache.has(el)) return cache.get(el);
    const parent = clipOf(el.parentElement);
    let clip = parent;
    if (parent) {
      const cs = getComputedStyle(el);
      if (cs.display === 'none' || cs.visibility !== 'visible' || parseFloat(cs.opacity) === 0 ||
          cs.contentVisibility === 'hidden') clip = null;
      else if (cs.overflowX !== 'visible' || cs.overflowY !== 'visible' || cs.clip !== 'auto' ||
               cs.clipPath !== 'none' || loose(el, cs)) {
        // fixed/sticky boxes move between a viewport and a beyond-viewport capture: skip them
        if (loose(el, cs)) clip = null;
        else {
          const r = el.getBoundingClientRect();
          clip = { l: Math.max(parent.l, r.left + sx), t: Math.max(parent.t, r.top + sy),
                   r: Math.min(parent.r, r.right + sx), b: Math.min(parent.b, r.bottom + sy) };
        }
      }
    }
    cache.set(el, clip);
    return clip;
  };
  const transparent = (c) => /^rgba\(.*,\s*0\)$/.test(c) || c === 'transparent';
  const maskSel = masks.join(', ');
  const lines = [];
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!/[^\s\u200b-\u200f\u2060\ufeff]/.test(node.data)) continue;
    const el = node.parentElement;
    if (!el || ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TITLE'].includes(el.tagName)) continue;
    if (maskSel && el.closest(maskSel)) continue;
    const clip = clipOf(el);
    if (!clip) continue;
    const cs = getComputedStyle(el);
    if (transparent(cs.color) || transparent(cs.webkitTextFillColor)) continue;
    // Words, not the node's whole range: a whole node's rects include fragments
    // that are all whitespace (the indentation line of a code block), which have
    // no ink. One word about every 60 characters: about one a line of prose, so a
    // band of lost paragraphs is caught even where each paragraph is one node.
    const words = /[^\s\u200b-\u200f\u2060\ufeff]+/g;
    let lastTop = null;
    for (let word = words.exec(node.data); word; word = words.exec(node.data)) {
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      for (const r of range.getClientRects()) {
        const l = Math.max(clip.l, r.left + sx), t = Math.max(clip.t, r.top + sy);
        const rr = Math.min(clip.r, r.right + sx), b = Math.min(clip.b, r.bottom + sy);
        if (rr - l < 4 || b - t < 4 || (rr - l) * (b - t) < 0.5 * r.width * r.height) continue;
        if (t === lastTop) continue;
        lastTop = t;
        lines.push([l, t, rr - l, b - t]);
      }
      words.lastIndex = word.index + word[0].length + 60;
    }
  }
  if (lines.length <= maxSamples) return lines;
  const step = lines.length / maxSamples;
  return Array.from({ length: maxSamples }, (_, i) => lines[Math.floor(i * step)]);
}
"""

# For the fingerprint: every distinct computed font-family stack on the page,
# and the families that loaded @font-face rules provide (those are hashed from
# the files served; the rest fall to fontconfig, see fonts.py).
FONT_FAMILIES = r"""
() => {
  const stacks = new Set();
  const style = window.__themeStyleOf || getComputedStyle;  // see SCHEME_PROBE
  for (const el of document.getElementsByTagName('*')) stacks.add(style(el).fontFamily);
  const web = new Set([...document.fonts].filter((f) => f.status === 'loaded')
    .map((f) => f.family.replace(/^["']|["']$/g, '')));
  return { stacks: [...stacks].sort(), web: [...web].sort() };
}
"""

# Everything measured once the tiles are taken, in one round trip: the layout
# hash (to prove nothing moved during the capture: then the boxes below are
# those the tiles show), the regions, the text lines of the wholeness guard,
# the font stacks and the loaded resources (for the font fingerprint). Run
# while the last tile is still being decoded in Python, so the renderer's time
# on a tall page costs no wall time. Returned as one JSON string: Playwright's
# Python client unpacks a returned object value by value in Python, CPU taken
# from the browser; json.loads does it in C (benchmarks/README.md).
AFTER_TILES = (
    "(arg) => JSON.stringify({ hash: (" + LAYOUT_HASH.strip() + ")(arg.masks), found: (" + REGIONS.strip() + ")(arg),"
    " lines: (" + TEXT_LINES.strip() + ")(arg), fonts: (" + FONT_FAMILIES.strip() + ")(),"
    " resources: performance.getEntriesByType('resource').map((e) => e.name),"
    " undefined: [...new Set([...document.querySelectorAll(':not(:defined)')].map((e) => e.localName))].sort() })"
)

# The page held to its width under the tiles. Chromium takes each beyond-viewport
# capture of a tall page by resizing the view for a moment, through zero width, to
# the page's height and back: a page laid out against the viewport's width (percentage
# widths, width media queries) is restyled, laid out and painted again in full
# for every call (1.3 s of each 2.1 s call on the long runtime page; percentages
# alone cost 0.5 s on a page of plain paragraphs). Pinned, it lays out as it
# does now, so its pixels are the same, and a call costs the raster and encode:
#  - <html> gets min-width = its width now (an adopted sheet: no attribute changes);
#  - each media rule, sheet or import whose condition reads the viewport's size
#    is set to what it evaluates to now ('all' / 'not all'), in the document and
#    every shadow root; one that also reads prefers-color-scheme is left alone,
#    as a switch of scheme must still reach it.
# Between two looks of the UNMOVED guard. Returns how many conditions were pinned, for --explain.
PIN_WIDTH = r"""
() => {
  const guard = """ + UNMOVED + r""";
  const before = guard.look();
  const w = window.__themeWatch || { roots: [] };
  const html = document.documentElement;
  const style = window.__themeStyleOf || getComputedStyle;  // unwrapped: not the page reading its scheme
  // to the 1/64 px of a layout unit: the 4 decimals getComputedStyle prints can fall short of it
  const held = `html { min-width: ${Math.round(parseFloat(style(html).width) * 64) / 64}px !important; }`;
  const sizeish = /(width|height|aspect-ratio|orientation)/i;
  let pinned = 0;
  const pin = (media) => {
    const text = media && media.mediaText;
    if (!text || !sizeish.test(text) || /prefers-color-scheme/i.test(text)) return;
    media.mediaText = matchMedia(text).matches ? 'all' : 'not all';
    pinned++;
  };
  const seen = new Set();
  const walk = (sheet) => {
    if (!sheet || seen.has(sheet)) return;
    seen.add(sheet);
    pin(sheet.media);
    let rules;
    try { rules = sheet.cssRules; } catch (e) { return; }  // another origin's sheet: not readable
    const visit = (list) => {
      for (const rule of list) {
        if (rule instanceof CSSMediaRule) pin(rule.media);
        if (rule instanceof CSSImportRule) { pin(rule.media); walk(rule.styleSheet); }
        if (rule.cssRules) visit(rule.cssRules);
      }
    };
    visit(rules);
  };
  for (const root of [document, ...w.roots]) {
    for (const s of [...(root.styleSheets || []), ...(root.adoptedStyleSheets || [])]) walk(s);
  }
  (""" + ADOPT_CSS.strip() + r""")(held);
  guard.check('holding the page to its width (PIN_WIDTH)', before);
  return pinned;
}
"""

# The end of settling, in one round trip: screenshot-only sheets adopted (see
# ADOPT_CSS), script animations stopped (STOP_ANIMATIONS), a flag set so
# `screenshot()` knows the page is already prepared, and the configured
# selectors checked (CHECK_SELECTORS: null, or the first that does not parse).
# Our own sheet (STABLE_CSS) goes in between two looks of the UNMOVED guard, with
# whatever the page animated since FREEZE_VIEW finished first (a transition cut
# short by `transition: none` jumps to its end); the user's `style` sheet after
# it, unguarded: what it changes, the user asked for.
FREEZE = (
    "({ sheets, flag, selectors }) => { const adopt = (" + ADOPT_CSS.strip() + ");"
    " const stop = (" + STOP_ANIMATIONS.strip() + "); const ours = " + json.dumps(STABLE_CSS) + ";"
    " const guard = " + UNMOVED + "; const before = guard.look();"
    " for (const css of sheets) if (css === ours) adopt(css);"
    " guard.check('adopting the screenshot-only CSS (STABLE_CSS)', before);"
    " for (const css of sheets) if (css !== ours) adopt(css);"
    " stop(); window[flag] = true;"
    " return (" + CHECK_SELECTORS.strip() + ")(selectors); }"
)


# For `theme capture --explain`: the smallest element whose box holds each
# changed area (x, y, w, h in page px) that two captures disagree on, as a
# selector path to paste into `mask`. Elements inside open shadow roots are
# answered with their host (a mask selector cannot reach inside).
ELEMENTS_AT = r"""
(boxes) => {
  const sx = window.scrollX, sy = window.scrollY;
  const all = [...document.body.getElementsByTagName('*')].map((el) => {
    const r = el.getBoundingClientRect();
    return [el, r.left + sx, r.top + sy, r.right + sx, r.bottom + sy, r.width * r.height];
  }).filter((e) => e[5] > 0);
  const pathOf = (""" + PATH_OF + r""");
  return boxes.map(([x, y, w, h]) => {
    let best = null;
    for (const e of all) {
      if (e[1] <= x + 1 && e[2] <= y + 1 && e[3] >= x + w - 1 && e[4] >= y + h - 1 && (!best || e[5] < best[5])) best = e;
    }
    return best ? pathOf(best[0]) : null;
  });
}
"""


# A page whose pixels change with the fonts a browser falls back to, their hinting and
# anti-aliasing: its hash stands for a remote browser's fonts (session.remote_fingerprint).
FONT_PROBE = """<!doctype html><meta charset="utf-8"><style>
body { margin: 0; background: #fff; color: #111; font-size: 15px; line-height: 1.2; }
p { margin: 2px 6px; white-space: nowrap; }
</style>
<p style="font-family: serif">Serif Rgfy 0123 ÆØ ß → ∑ ∫ √ — “quotes”</p>
<p style="font-family: sans-serif">Sans Rgfy 0123 ÆØ ß → ∑ ∫ √ — “quotes”</p>
<p style="font-family: monospace">Mono Rgfy 0123 {} [] != <= => ->  ~~</p>
<p style="font-family: system-ui">System 📝 ✅ ⚠️ 🚀 中文 日本語 한국어 العربية</p>
<p style="font-family: math">𝑥² + 𝑦² = 𝑧²  ∀ε>0 ∃δ</p>"""


# Who asked for each of `urls` (resources that did not load; theme/capture/resources.py):
# the element whose src/href names it (script, link, …, in the document or a shadow
# root), else the @import or @font-face rule of a readable stylesheet that does. A
# request nothing here names came from a script (a fetch, a module import).
WHO_ASKED = r"""
(urls) => {
  const w = window.__themeWatch || { roots: [] };
  const roots = [document, ...w.roots];
  const out = {};
  const abs = (value, base) => { try { return new URL(value, base || document.baseURI).href; } catch (e) { return null; } };
  for (const root of roots) {
    for (const el of root.querySelectorAll('[src], [href]')) {
      for (const attr of ['src', 'href']) {
        const value = el.getAttribute(attr);
        const url = value && abs(value);
        if (url && urls.includes(url) && !out[url]) {
          out[url] = { how: 'element', tag: el.localName, attr, value, inShadow: root !== document,
                       host: root === document ? null : root.host.localName };
        }
      }
    }
  }
  const seen = new Set();
  const walk = (sheet, owner) => {
    if (!sheet || seen.has(sheet)) return;
    seen.add(sheet);
    let rules;
    try { rules = sheet.cssRules; } catch (e) { return; }
    const base = sheet.href || document.baseURI;
    const where = sheet.href || (owner ? `a <style> in ${owner}` : 'an inline <style>');
    const visit = (list) => {
      for (const rule of list) {
        if (rule instanceof CSSImportRule) {
          const url = abs(rule.href, base);
          if (url && urls.includes(url) && !out[url]) out[url] = { how: 'import', sheet: where, value: rule.href };
          walk(rule.styleSheet, owner);
        } else if (rule instanceof CSSFontFaceRule) {
          const src = rule.style.getPropertyValue('src');
          for (const m of src.matchAll(/url\(\s*(['"]?)([^'")]+)\1\s*\)/g)) {
            const url = abs(m[2], base);
            if (url && urls.includes(url) && !out[url]) {
              out[url] = { how: 'font-face', sheet: where, value: m[2],
                           family: rule.style.getPropertyValue('font-family').replace(/^['"]|['"]$/g, '') };
            }
          }
        }
        if (rule.cssRules) visit(rule.cssRules);
      }
    };
    visit(rules);
  };
  for (const root of roots) {
    const owner = root === document ? null : `the shadow root of <${root.host.localName}>`;
    for (const s of [...(root.styleSheets || []), ...(root.adoptedStyleSheets || [])]) walk(s, owner);
  }
  return out;
}
"""

# A page wider than its viewport: the widest elements that reach past its right edge,
# outermost first and none inside another one listed, skipping what an ancestor clips
# (overflow other than visible) because that never widens the page.
OVERFLOW = r"""
({ limit }) => {
  const d = document.documentElement, b = document.body || d;
  const width = Math.max(d.scrollWidth, b.scrollWidth), view = d.clientWidth;
  if (width <= view) return { width, view, widest: [] };
  const style = window.__themeStyleOf || getComputedStyle;
  const pathOf = (""" + PATH_OF + r""");
  const clipped = (el) => {
    for (let a = el.parentElement; a && a !== b && a !== d; a = a.parentElement) {
      if (style(a).overflowX !== 'visible') return true;
    }
    return false;
  };
  const over = [];
  for (const el of b.querySelectorAll('*')) {
    // An element reaches as far as its box, or its content when that spills out (a long word).
    const r = el.getBoundingClientRect();
    const right = r.left + window.scrollX + Math.max(r.width, el.scrollWidth || 0);
    if (right > view + 0.5 && r.width > 0 && !clipped(el)) over.push([el, right, r.width]);
  }
  over.sort((x, y) => y[1] - x[1] || y[2] - x[2]);
  const widest = [];
  for (const [el, right, w] of over) {
    if (widest.some((o) => o.el.contains(el))) continue;
    widest.push({ el, right: Math.round(right), width: Math.round(w) });
    if (widest.length >= limit) break;
  }
  return { width, view, widest: widest.map((o) => ({ selector: pathOf(o.el), right: o.right, width: o.width })) };
}
"""


# What keeps changing on a page that will not settle, as selectors to mask: the
# elements whose children, text or attributes change during `wait` ms (a mutation
# observer, so a loop that comes back to where it started is seen too). From each,
# climb while the element's size changed over the window; the first one whose size
# stayed put is the one to mask (its box covers the change and keeps still), or,
# when the change reaches the page itself, the outermost element that changed.
# Outermost first, none inside another, at most `limit`; masked elements left out.
MOVING = r"""
async ({ masks, wait, limit }) => {
  const pathOf = (""" + PATH_OF + r""");
  const hidden = new Set();
  for (const sel of masks || []) for (const m of document.querySelectorAll(sel)) { hidden.add(m); for (const e of m.getElementsByTagName('*')) hidden.add(e); }
  const top = document.body || document.documentElement;
  const size = (el) => { const r = el.getBoundingClientRect(); return `${Math.round(r.width * 64)},${Math.round(r.height * 64)}`; };
  const before = new Map();
  for (const el of top.getElementsByTagName('*')) before.set(el, size(el));
  const touched = new Set();
  const seen = new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (el && el !== top && top.contains(el) && !hidden.has(el)) touched.add(el);
    }
  });
  seen.observe(top, { subtree: true, childList: true, attributes: true, characterData: true });
  await new Promise((done) => window.setTimeout(done, wait));
  seen.disconnect();
  const sized = (el) => !before.has(el) || before.get(el) !== size(el);
  const picks = new Set();
  for (let el of touched) {
    if (!el.isConnected) continue;
    while (el.parentElement && el.parentElement !== top && sized(el)) el = el.parentElement;
    picks.add(el);
  }
  const outer = [...picks].filter((el) => ![...picks].some((o) => o !== el && o.contains(el)));
  outer.sort((x, y) => (x.compareDocumentPosition(y) & Node.DOCUMENT_POSITION_FOLLOWING) ? -1 : 1);
  return outer.slice(0, limit).map((el) => pathOf(el));
}
"""
