// Sub-pixel nudges (theme/check/phase.py): move the `ordinal`-th visible match of
// `selector` by (dx, dy) CSS px with relative positioning, which offsets an
// element's painting without moving anything around it. Only static or
// relative elements are moved (absolute, fixed and sticky ones are placed by
// other rules); the paths of those moved come back.
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
