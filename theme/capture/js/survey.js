// uses: shadowRoots, walkSheets, realTime, LIVE_CANVAS
// What `theme init` reads from a loaded page (theme/init/survey.py). Components: for each
// candidate selector, how many matches have a box (a region needs one). Note-boxes: class
// names containing "note" (not footnotes) on block-level boxes, outermost only (.note-box,
// not .note-box-title). Scheme: CSS that changes with prefers-color-scheme, in every sheet
// the page and its shadow roots use (walkSheets). Blocked: for each of `urls`, the element
// whose attribute asked for it. Missing: local files that answered 4xx/5xx.
({ urls }) => {
  const roots = shadowRoots();
  const style = window.__themeStyleOf || getComputedStyle;  // unwrapped: not the page reading its scheme
  const shown = (el) => {
    const r = el.getBoundingClientRect(), cs = style(el);
    return r.width > 0 && r.height > 0 && cs.display !== 'inline' && cs.display !== 'contents';
  };
  const count = (sel) => [...document.querySelectorAll(sel)].filter(shown).length;

  const noteClasses = new Map();
  for (const el of document.querySelectorAll('[class]')) {
    for (const c of el.classList) {
      if (/note/i.test(c) && !/footnote/i.test(c) && shown(el)) {
        if (!noteClasses.has(c)) noteClasses.set(c, []);
        noteClasses.get(c).push(el);
      }
    }
  }
  const names = [...noteClasses.keys()];
  const inOther = (el, c) => names.some((o) => o !== c && el.parentElement && el.parentElement.closest('.' + CSS.escape(o)));
  const notes = names.filter((c) => noteClasses.get(c).some((el) => !inOther(el, c))).sort()
    .map((c) => ({ cls: c, selector: '.' + CSS.escape(c), count: noteClasses.get(c).length }));

  const figureInDFigure = [...document.querySelectorAll('d-figure figure')].length > 0;
  const components = {};
  for (const sel of ['d-math[block]', 'd-code[block]', 'figure', 'd-figure', 'table', 'aside']) components[sel] = count(sel);
  // what a reader opens or focuses (init's reader states): inline elements count too
  const boxed = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  // a live figure outside <figure>: a canvas a script draws (the size of a figure, not an icon)
  const live = (el) => { const r = el.getBoundingClientRect(); return r.width >= 64 && r.height >= 64; };
  // Figures a script draws outside <figure> (issue 48: t-SNE's `div.l-page-outset.tsne-group`,
  // empty in the HTML): a div or section right in the article holding an <svg>, <canvas> or
  // <img> the size of a figure. Each is named by the outermost element around all of its
  // drawings with a class of the page's own (not the runtime's l-* layout classes) or an id.
  const drawn = new Map();
  const inDrawn = [];
  const article = document.querySelector('d-article, dt-article, article, main') || document.body;
  const own = (el) => [...el.classList].filter((c) => !/^l-/.test(c) && !/note/i.test(c));
  for (const block of article.children) {
    if (!['div', 'section'].includes(block.localName)) continue;
    const art = [...block.querySelectorAll('svg, canvas, img')]
      .filter((g) => live(g) && !g.closest('figure, d-figure, aside, table'));
    if (!art.length) continue;
    const named = [block, ...block.querySelectorAll('[id], [class]')]
      .find((el) => (own(el).length || el.id) && art.every((g) => el.contains(g)));
    if (!named) continue;
    const c = own(named)[0];
    const key = c || named.id;
    const selector = c ? '.' + CSS.escape(c) : '#' + CSS.escape(named.id);
    if (!drawn.has(key)) drawn.set(key, { key, selector, count: 0 });
    drawn.get(key).count++;
    inDrawn.push(named);
  }
  components[LIVE_CANVAS] = [...document.querySelectorAll(LIVE_CANVAS)]
    .filter((c) => live(c) && !inDrawn.some((d) => d.contains(c))).length;
  for (const sel of ['d-cite', 'd-footnote', 'd-article a[href]']) {
    components[sel] = [...document.querySelectorAll(sel)].filter(boxed).length;
  }

  const scheme = { rules: 0, unreadable: 0, meta: '', sources: 0 };
  walkSheets({
    sheet: (sheet) => { if (sheet.media && /prefers-color-scheme/i.test(sheet.media.mediaText)) scheme.rules++; },
    unreadable: () => { scheme.unreadable++; },
    rule: (rule) => {
      const cond = rule.conditionText || (rule.media && rule.media.mediaText) || '';
      if (/prefers-color-scheme/i.test(cond)) scheme.rules++;
      else if (rule.style && (/light-dark\(/i.test(rule.cssText) || /dark/i.test(rule.style.getPropertyValue('color-scheme')))) scheme.rules++;
    },
  });
  const meta = document.querySelector('meta[name="color-scheme"]');
  scheme.meta = meta && /dark/i.test(meta.content) ? meta.content : '';
  scheme.sources = document.querySelectorAll('source[media*="prefers-color-scheme"]').length;

  const blocked = {};
  const attrs = ['src', 'href', 'data', 'poster', 'srcset'];
  for (const r of roots) {
    for (const el of r.querySelectorAll(attrs.map((a) => `[${a}]`).join(','))) {
      for (const a of attrs) {
        const value = el.getAttribute(a);
        if (!value) continue;
        for (const part of a === 'srcset' ? value.split(',').map((s) => s.trim().split(/\s+/)[0]) : [value]) {
          let abs;
          try { abs = new URL(part, document.baseURI).href; } catch (e) { continue; }
          if (urls.includes(abs) && !blocked[abs]) {
            const host = el.localName === 'source' && el.parentElement ? el.parentElement : el;
            // The element an embed script fills when it is alone in it (no other element, no
            // words): init masks that slot for a script service it lets stay blocked.
            const parent = el.parentElement;
            const alone = el.localName === 'script' && parent && parent !== document.body
              && parent.children.length === 1 && !parent.textContent.trim();
            blocked[abs] = { tag: host.localName, own: el.localName, attr: a, value, inShadow: r !== document,
                             slot: alone ? parent.localName : null };
          }
        }
      }
    }
  }
  const missing = realTime().performance.getEntriesByType('resource')
    .filter((e) => e.name.startsWith(location.origin) && e.responseStatus >= 400)
    .map((e) => [e.name.slice(location.origin.length), e.responseStatus, e.initiatorType]);
  return { notes, components, figureInDFigure, scheme, blocked, missing, drawn: [...drawn.values()] };
}
