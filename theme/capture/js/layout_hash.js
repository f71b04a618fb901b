// A cheap fingerprint of the rendered state: FNV-1a over every element's box
// (1/64 px, Chromium's LayoutUnit) plus the document size and text length.
// Milliseconds even on a tall page, against seconds for a full capture. What
// happens inside a masked element (`masks`: selectors) is not counted, only its
// own box: a mask is how a user says "this keeps changing, and that is fine",
// so a figure a script animates forever can be masked and the page still settle.
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
