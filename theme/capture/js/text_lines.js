// Wholeness guard, the browser half: boxes of visible text lines, in document
// coordinates, clipped by every overflow/clip ancestor. Text whose own colour
// is transparent, under opacity 0 or visibility:hidden, or inside a mask, is
// left out. Python then checks that each such box has ink (is not one flat
// colour) in the stitched image: a tile that came back blank fails at once.
({ maxSamples, masks }) => {
  const getComputedStyle = window.__themeStyleOf || window.getComputedStyle;  // see scheme_probe.js
  const INF = { l: -Infinity, t: -Infinity, r: Infinity, b: Infinity };
  const cache = new Map();
  const sx = window.scrollX, sy = window.scrollY;
  const pinned = window.__themePinned || new WeakSet();  // fixed, but pinned by freeze_view.js: measured
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
