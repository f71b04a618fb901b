// uses: pathOf, realTime
// What keeps changing on a page that will not settle, as selectors to mask: the
// elements whose children, text or attributes change during `wait` ms (a mutation
// observer, so a loop that comes back to where it started is seen too). From each,
// climb while the element's size changed over the window; the first one whose size
// stayed put is the one to mask (its box covers the change and keeps still), or,
// when the change reaches the page itself, the outermost element that changed.
// Outermost first, none inside another, at most `limit`; masked elements left out.
async ({ masks, wait, limit }) => {
  const hidden = new Set();
  for (const sel of masks || []) for (const m of document.querySelectorAll(sel)) { hidden.add(m); for (const e of m.getElementsByTagName('*')) hidden.add(e); }
  const top = document.body || document.documentElement;
  const size = (el) => { const r = el.getBoundingClientRect(); return `${Math.round(r.width * 64)},${Math.round(r.height * 64)}`; };
  const before = new Map();
  for (const el of top.getElementsByTagName('*')) before.set(el, size(el));
  const touched = new Set();
  const seen = new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (el && el !== top && top.contains(el) && !hidden.has(el)) touched.add(el);
    }
  });
  seen.observe(top, { subtree: true, childList: true, attributes: true, characterData: true });
  await new Promise((done) => realTime().setTimeout(done, wait));
  seen.disconnect();
  const sized = (el) => !before.has(el) || before.get(el) !== size(el);
  const picks = new Set();
  for (let el of touched) {
    if (!el.isConnected) continue;
    while (el.parentElement && el.parentElement !== top && sized(el)) el = el.parentElement;
    picks.add(el);
  }
  const outer = [...picks].filter((el) => ![...picks].some((o) => o !== el && o.contains(el)));
  outer.sort((x, y) => (x.compareDocumentPosition(y) & Node.DOCUMENT_POSITION_FOLLOWING) ? -1 : 1);
  return outer.slice(0, limit).map((el) => pathOf(el));
}
