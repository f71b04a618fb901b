// Solid boxes over masked elements, in document coordinates (absolute to the
// root, so they scroll with the page and never change its layout).
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
