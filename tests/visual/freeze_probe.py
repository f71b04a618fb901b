"""Every element's box on a page before and after the capture engine freezes it.

The engine's own guard (theme/capture/js/unmoved.js) looks at the document's elements; this probe is
the tests' independent and wider look: the document's elements and those of every shadow
root, open or closed (the WATCH init script keeps them), and the page's scroll size.

    monkeypatch.setattr(scripts, "FREEZE_VIEW", before_freezing(scripts.FREEZE_VIEW))
    with session.open(variant) as page:      # settled: frozen, sheets in, width held
        moved = page.evaluate(MOVED)         # {"elements", "count", "first", "size"}
    cap = session.capture(variant)
    cap.explain["frozen"]["size_before"]     # [scrollWidth, scrollHeight] before freezing
"""

from __future__ import annotations

# The boxes (document coordinates) and the scroll size, kept in the page.
SNAPSHOT = r"""
() => {
  const w = window.__themeWatch || { roots: [] };
  const els = [...document.getElementsByTagName('*')];
  for (const root of w.roots) els.push(...root.querySelectorAll('*'));
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return [r.left + scrollX, r.top + scrollY, r.width, r.height];
  };
  const s = document.scrollingElement;
  window.__probeBefore = { els, boxes: els.map(box), size: [s.scrollWidth, s.scrollHeight] };
}
"""

# What moved since SNAPSHOT: element count, moved count, the first five (a name, the box
# before, the box now) and the scroll size before and now. A difference under 1/100 px
# is float noise; layout moves by 1/64 px at least.
MOVED = r"""
() => {
  const { els, boxes, size } = window.__probeBefore;
  const name = (el) => el.localName + (el.id ? '#' + el.id : '')
    + [...el.classList].slice(0, 2).map((c) => '.' + c).join('');
  const moved = [];
  els.forEach((el, k) => {
    const r = el.getBoundingClientRect();
    const now = [r.left + scrollX, r.top + scrollY, r.width, r.height];
    if (now.some((v, j) => Math.abs(v - boxes[k][j]) >= 0.01)) moved.push([name(el), boxes[k], now]);
  });
  const s = document.scrollingElement;
  return { elements: els.length, count: moved.length, first: moved.slice(0, 5),
           size: [size, [s.scrollWidth, s.scrollHeight]] };
}
"""


def before_freezing(freeze_view: str) -> str:
    """FREEZE_VIEW that first takes SNAPSHOT, and returns the scroll size it saw as "size_before"."""
    return ("async () => { (" + SNAPSHOT.strip() + ")(); const done = await (" + freeze_view.strip() + ")();"
            " return { ...done, size_before: window.__probeBefore.size }; }")
