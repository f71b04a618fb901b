// uses: pathOf, framesOf, CHROME, TITLE
// Regions: for each key, every matched element with a box, the index of the
// nearest heading (h1–h4) that precedes it in document order, and a readable
// selector path. Headings come back as text so Python makes the names, with
// where each stands (`placed`: in the article, the title block or which page
// chrome, CHROME of theme/capture/naming.py) so Python can pass over the byline's "DOI". An element
// that precedes the article's first heading also brings its id and caption
// (a child figcaption or .figcaption, the runtime's caption class, or a table's
// caption: its own, else its figure's), and the page its d-title heading: what
// naming.own_base reads (theme/capture/naming.py). Each item's `frames` are the
// top-left corners of the ancestors whose phase shapes its pixels (framesOf).
({ regions }) => {
  const headings = [...document.querySelectorAll('h1, h2, h3, h4')];
  const chrome = [...document.querySelectorAll(CHROME)];
  const FOLLOWING = Node.DOCUMENT_POSITION_FOLLOWING;
  const textOf = (e) => e.textContent.replace(/\s+/g, ' ').trim();
  // headings are in document order: binary search the last one that precedes el
  const headingOf = (el) => {
    let lo = 0, hi = headings.length - 1, found = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1, h = headings[mid];
      const pos = h.compareDocumentPosition(el);
      // FOLLOWING: el comes after h (also when el sits inside h); a heading
      // inside el (a matched <section>) does not precede it.
      if (h !== el && (pos & FOLLOWING)) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return found;
  };
  // The CHROME elements around el, innermost first, as indices into `chrome`.
  const around = (el) => {
    const out = [];
    for (let c = el.closest(CHROME); c; c = c.parentElement && c.parentElement.closest(CHROME)) out.push(chrome.indexOf(c));
    return out;
  };
  const placed = headings.map((h) => h.closest(TITLE) ? TITLE : (around(h)[0] ?? null));
  const first = headings.find((h, i) => placed[i] === null);  // the article's first heading
  // A caption is a child, as HTML has it (a figcaption deeper down labels a part).
  const CAPTION = ':scope > figcaption, :scope > .figcaption';
  const captionOf = (el) => {
    const own = el.querySelector(CAPTION) || (el.localName === 'table' && el.caption);
    const figure = own ? null : el.parentElement && el.parentElement.closest('figure, d-figure');
    const cap = own || (figure && figure.querySelector(CAPTION));
    return cap ? textOf(cap) : '';
  };
  const out = {};
  for (const [key, selector] of regions) {
    out[key] = [];
    for (const el of document.querySelectorAll(selector)) {
      const r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) continue;
      const item = { box: [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height],
                     heading: headingOf(el), selector: pathOf(el), inside: around(el),
                     frames: framesOf(el).map((f) => { const b = f.getBoundingClientRect();
                                                       return [b.left + window.scrollX, b.top + window.scrollY]; }) };
      if (!first || first === el || !(first.compareDocumentPosition(el) & FOLLOWING)) {
        item.id = el.id;
        item.caption = captionOf(el);
      }
      out[key].push(item);
    }
  }
  const title = document.querySelector(TITLE + ' h1');
  return { headings: headings.map(textOf), placed, title: title ? textOf(title) : null, regions: out };
}
