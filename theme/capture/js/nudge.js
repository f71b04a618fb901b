// uses: framesOf
// Sub-pixel realignment (theme/check/phase.py): put the `ordinal`-th visible
// match of `selector` back on the phase its baseline was captured at, (x, y) in
// CSS px, with relative positioning, which offsets an element's painting without
// moving anything around it. Its frames (framesOf) go first, outermost first, each
// onto its own recorded phase, when the baseline recorded as many as it has now;
// a frame shared by several regions is placed once, and a region that wants it on
// another phase keeps it where it is. Only static or relative elements are moved
// (absolute, fixed and sticky ones are placed by other rules). Returns
// {path: [dx, dy]} of each element placed ([0, 0]: already on its phase, its
// frames moved). `toward` is phase.py's _toward: the offsets are measured here,
// after the frames moved the element.
(items) => {
  const STEP = 1 / 64;  // Chromium's LayoutUnit
  const toward = (target, value) => {
    let d = ((target - value) % 1 + 1) % 1;
    if (d >= 0.5) d -= 1;
    d = Math.round(d / STEP) * STEP;
    return Math.abs(d) < STEP / 2 ? 0 : d;
  };
  const at = (el) => { const r = el.getBoundingClientRect(); return [r.left + window.scrollX, r.top + window.scrollY]; };
  const style = window.__themeStyleOf || getComputedStyle;  // unwrapped: not the page reading its scheme
  const movable = (el) => ['static', 'relative'].includes(style(el).position);
  const place = (el, [x, y]) => {
    const [nx, ny] = at(el);
    const dx = toward(x, nx), dy = toward(y, ny);
    if (dx === 0 && dy === 0) return [0, 0];
    const cs = style(el);
    const px = (v) => (v === 'auto' ? 0 : parseFloat(v) || 0);
    el.style.setProperty('position', 'relative', 'important');
    el.style.setProperty('top', `${px(cs.top) + dy}px`, 'important');
    el.style.setProperty('left', `${px(cs.left) + dx}px`, 'important');
    el.style.setProperty('bottom', 'auto', 'important');
    el.style.setProperty('right', 'auto', 'important');
    return [dx, dy];
  };
  const found = [];
  for (const item of items) {
    const visible = [...document.querySelectorAll(item.selector)].filter((el) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0;
    });
    const el = visible[item.ordinal];
    if (el && movable(el)) found.push([item, el]);
  }
  // Frames first, outer before inner: placing one moves everything inside it.
  const wanted = new Map();
  for (const [item, el] of found) {
    const frames = framesOf(el);
    if (!item.frames || item.frames.length !== frames.length) continue;
    frames.forEach((f, i) => {
      if (!wanted.has(f)) wanted.set(f, { target: item.frames[i], depth: i });
    });
  }
  const frames = [...wanted.entries()].sort((a, b) => a[1].depth - b[1].depth);
  for (const [frame, { target }] of frames) if (movable(frame)) place(frame, target);
  const moved = {};
  for (const [item, el] of found) moved[item.path] = place(el, [item.x, item.y]);
  return moved;
}
