// uses: pathOf
// A page wider than its viewport: the widest elements that reach past its right edge,
// outermost first and none inside another one listed, skipping what an ancestor clips
// (overflow other than visible) because that never widens the page.
({ limit }) => {
  const d = document.documentElement, b = document.body || d;
  const width = Math.max(d.scrollWidth, b.scrollWidth), view = d.clientWidth;
  if (width <= view) return { width, view, widest: [] };
  const style = window.__themeStyleOf || getComputedStyle;
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
