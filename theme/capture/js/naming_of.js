// uses: CHROME, TITLE
// What naming.py reads to name an element as a page's regions are named (naming.element_names),
// for a page region (regions.js) and a reader state's captured element alike (state_regions.js):
// the page's h1–h4 as text; where each stands (`placed`: in the article, the title block, or
// which page chrome, CHROME of theme/capture/naming.py), so Python can pass over the byline's
// "DOI"; the page's d-title heading; and `of(el)`: the index of the nearest heading that precedes
// el in document order (null: none), the CHROME elements around it (`inside`, innermost first)
// and, when el precedes the article's first heading, its id and caption (a child figcaption or
// .figcaption, the runtime's caption class, or a table's caption: its own, else its figure's),
// what naming.own_base reads.
() => {
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
  const of = (el) => {
    const facts = { heading: headingOf(el), inside: around(el) };
    if (!first || first === el || !(first.compareDocumentPosition(el) & FOLLOWING)) {
      facts.id = el.id;
      facts.caption = captionOf(el);
    }
    return facts;
  };
  const title = document.querySelector(TITLE + ' h1');
  return { headings: headings.map(textOf), placed, title: title ? textOf(title) : null, of };
}
