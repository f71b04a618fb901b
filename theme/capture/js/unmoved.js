// uses: pathOf, stopAnimations, realTime
// The guard that freezing never moves the layout; each call makes one, { look, check }.
// Every step that changes a settled page before its tiles (freeze_view.js, freeze.js,
// pin_width.js) makes its change between two looks at every element's border box and
// the page's scroll size, inside one synchronous task: no script of the page runs in
// between, so a box that differs was moved by the step, not by the page. The document's
// elements, as layout_hash.js: what moves inside a shadow root without changing its
// host's box moves nothing around it, and the shadow roots of the long runtime page hold
// six elements in seven, which tripled the cost of a look (benchmarks/README.md).
// The first step that moved something is kept in window.__themeUnmoved (its first
// elements, by how much, and the page size before and after) for unmoved_found.js;
// theme/capture/unmoved.py refuses the capture. A difference under 1/100 px is
// float noise of transforms, not a move (Chromium lays out in 1/64 px).
() => {
  const nameOf = (el) => (el === document.documentElement ? 'html' : pathOf(el));
  const state = window.__themeUnmoved || (window.__themeUnmoved = { moved: null, looks: 0, elements: 0, ms: 0 });
  const size = () => { const s = document.scrollingElement || document.documentElement; return [s.scrollWidth, s.scrollHeight]; };
  // Each look at the page at rest: its motion finished first (stopAnimations), and
  // with it any transition a step started, which would still show the old place.
  const measure = (els) => {
    const t = realTime().now();
    stopAnimations();
    const boxes = new Float64Array(els.length * 4);
    let i = 0;
    for (const el of els) {
      const r = el.getBoundingClientRect();
      boxes[i++] = r.left + window.scrollX; boxes[i++] = r.top + window.scrollY; boxes[i++] = r.width; boxes[i++] = r.height;
    }
    state.looks++; state.elements = els.length; state.ms += realTime().now() - t;
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
}
