// uses: pathOf, framesOf, namingOf
// Regions: for each key, every matched element with a box, what naming.py names it by
// (namingOf: the nearest h1–h4 before it, the page chrome around it, and before the
// article's first heading its id and caption) and a readable selector path. Headings come
// back as text with where each stands, and the page's d-title heading, so Python makes the
// names. Each item's `frames` are the top-left corners of the ancestors whose phase shapes
// its pixels (framesOf).
({ regions }) => {
  const naming = namingOf();
  const out = {};
  for (const [key, selector] of regions) {
    out[key] = [];
    for (const el of document.querySelectorAll(selector)) {
      const r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) continue;
      out[key].push({ box: [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height],
                      ...naming.of(el), selector: pathOf(el),
                      frames: framesOf(el).map((f) => { const b = f.getBoundingClientRect();
                                                        return [b.left + window.scrollX, b.top + window.scrollY]; }) });
    }
  }
  return { headings: naming.headings, placed: naming.placed, title: naming.title, regions: out };
}
