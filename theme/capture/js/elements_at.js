// uses: pathOf
// For `theme capture --explain`: the smallest element whose box holds each
// changed area (x, y, w, h in page px) that two captures disagree on, as a
// selector path to paste into `mask`. Elements inside open shadow roots are
// answered with their host (a mask selector cannot reach inside).
(boxes) => {
  const sx = window.scrollX, sy = window.scrollY;
  const all = [...document.body.getElementsByTagName('*')].map((el) => {
    const r = el.getBoundingClientRect();
    return [el, r.left + sx, r.top + sy, r.right + sx, r.bottom + sy, r.width * r.height];
  }).filter((e) => e[5] > 0);
  return boxes.map(([x, y, w, h]) => {
    let best = null;
    for (const e of all) {
      if (e[1] <= x + 1 && e[2] <= y + 1 && e[3] >= x + w - 1 && e[4] >= y + h - 1 && (!best || e[5] < best[5])) best = e;
    }
    return best ? pathOf(best[0]) : null;
  });
}
