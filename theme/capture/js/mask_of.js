// uses: pathOf
// The selector a person would write to mask an element, for `mask` lines in
// messages (elements_at.js): what drew it, named by the page's own words.
// - A part of a drawing (a `path`, a `circle`) is masked as its drawing: the
//   outermost <svg> holding it.
// - Its own id, or a class the page's HTML gives it (`authored`: classes
//   found in class="…" attributes of the page's source, so none a script or a
//   framework generated) that names it alone on the page.
// - Else within the nearest ancestor that has one (`#figure-3 svg`), its tag,
//   or its tag and an authored class, when that names it alone; else that
//   ancestor, below the article's landmarks (masking d-article would mask
//   the article).
// - Else the selector path (pathOf): tags and :nth-of-type.
(el, authored) => {
  const has = new Set(authored);
  const unique = (sel) => { try { return document.querySelectorAll(sel).length === 1; } catch (e) { return false; } };
  // An id with a long run of digits or a hash is generated (`ember123`, `react-4f9c2a`).
  const madeId = (id) => /\d{3,}|[0-9a-f]{6,}$/i.test(id);
  const own = (e) => {
    if (e.id && !madeId(e.id) && unique('#' + CSS.escape(e.id))) return '#' + CSS.escape(e.id);
    for (const c of e.classList) {
      const s = `${e.localName}.${CSS.escape(c)}`;
      if (has.has(c) && unique(s)) return s;
    }
    return null;
  };
  const LANDMARK = /^(html|body|main|article|d-article|d-title|d-byline|d-appendix|d-front-matter)$/;
  while (el.ownerSVGElement) el = el.ownerSVGElement;
  const self = own(el);
  if (self) return self;
  for (let a = el.parentElement; a && !LANDMARK.test(a.localName); a = a.parentElement) {
    const named = own(a);
    if (!named) continue;
    const inside = [`${named} ${el.localName}`,
                    ...[...el.classList].filter((c) => has.has(c)).map((c) => `${named} ${el.localName}.${CSS.escape(c)}`)];
    return inside.find(unique) || named;
  }
  return pathOf(el);
}
