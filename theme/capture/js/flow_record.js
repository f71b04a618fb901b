// uses: recordProps
// The page's text flow as kinds of element (theme/baselines/style_record.py reads it as the
// record of the whole page image, "page.png"): the body text no region covers,
// so a change to `d-article p` is told in CSS terms, once, with how many elements
// it reached. Input: {masks: [selector]}. Output: {kind: props}, props as
// computed_styles.js gives them (less the sizes, which vary element by element),
// plus `count` (elements of that kind with that style) and `sections` (how many
// of the page's h2 sections they are in).
//
// A kind is the element's landmark (d-title, d-byline, d-article, d-appendix,
// footer…; else body), its nearest ancestor with a class below it, if any, and
// its tag and first two classes, `>` where it is the child of the one before:
// `d-article > p`, `d-article div.note-box-content > p`, `d-article a`. Only
// elements that hold words of their own, drawn, outside masks and shadow roots.
// A kind's record is the style most of its elements compute, with `count` (all
// of them), `sections` (how many of the page's h1/h2 sections hold one) and
// `within`, the kind most of them sit in (their nearest ancestor recorded too),
// so a change they inherit is told as their parent's (theme/baselines/style_record.py).
// Each landmark, and the body, is a kind of its own too, named by its tag
// (`d-article`): the style its text inherits, so a change to `d-article
// { font-size }` is told as d-article's, once; its `count` is the elements of
// the flow inside it.
// At most MAX_KINDS kinds, the most numerous: the same page, the same record.
({ masks }) => {
  const PROPS = recordProps().filter((p) => p !== 'width' && p !== 'height');
  const MAX_KINDS = 60;
  // the Distill runtime's, v2 then v1 (dt-*: t-SNE's), then HTML's own
  const LANDMARKS = new Set(['d-title', 'd-byline', 'd-article', 'd-appendix', 'd-footnote-list',
                             'd-citation-list', 'dt-byline', 'dt-article', 'dt-appendix',
                             'header', 'nav', 'main', 'article', 'aside', 'footer']);
  const SKIP = new Set(['style', 'script', 'template', 'link', 'meta', 'noscript', 'svg', 'math']);
  const computed = window.__themeStyleOf || getComputedStyle;
  const masked = new Set();
  for (const sel of masks || []) for (const m of document.querySelectorAll(sel)) masked.add(m);
  const step = (el) => el.localName + [...el.classList].slice(0, 2).map((c) => '.' + CSS.escape(c)).join('');
  const ownWords = (el) => [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.data.trim() !== '');
  const found = new Map();  // element -> [landmark, section, context]
  const marks = new Map();  // landmark element -> its kind's record: {n, sections}
  let section = 0;
  const walk = (el, landmark, context) => {
    if (SKIP.has(el.localName) || masked.has(el)) return;
    if (/^h[12]$/.test(el.localName)) section += 1;
    const here = LANDMARKS.has(el.localName) ? el : landmark;
    if (here === el && el.getClientRects().length > 0) marks.set(el, { n: 0, sections: new Set() });
    if (el !== document.body && ownWords(el) && el.getClientRects().length > 0) found.set(el, [here, section, context]);
    const next = here !== landmark ? null : (el !== here && el.classList.length ? el : context);
    for (const kid of el.children) walk(kid, here, next);
  };
  walk(document.body, document.body, null);
  const kindOf = (el, [landmark, , context]) => {
    let name = landmark === document.body ? 'body' : landmark.localName;
    if (context) name += `${context.parentElement === landmark ? ' > ' : ' '}${step(context)}`;
    const parent = context || landmark;
    return `${name}${el.parentElement === parent ? ' > ' : ' '}${step(el)}`;
  };
  const kinds = new Map();  // kind -> {styles: Map(key -> [props, n]), n, sections: Set, within: Map(kind -> n)}
  const names = new Map();
  for (const [el, at] of found) names.set(el, kindOf(el, at));
  for (const el of marks.keys()) names.set(el, el.localName);
  const tally = (map, key, n = 1) => map.set(key, (map.get(key) || 0) + n);
  const recorded = (el) => found.has(el) || marks.has(el);
  const count = (el, kind, n, sections) => {
    if (!kinds.has(kind)) kinds.set(kind, { styles: new Map(), n: 0, sections: new Set(), within: new Map() });
    const k = kinds.get(kind);
    const cs = computed(el);
    const props = {};
    for (const p of PROPS) props[p] = cs.getPropertyValue(p);
    const key = JSON.stringify(props);
    if (!k.styles.has(key)) k.styles.set(key, [props, 0]);
    k.styles.get(key)[1] += 1;
    k.n += n;
    for (const s of sections) k.sections.add(s);
    let up = el.parentElement;
    while (up && !recorded(up)) up = up.parentElement;
    tally(k.within, up ? names.get(up) : '');
  };
  const AROUND = [...LANDMARKS].join(',');
  const outer = (m) => (m === document.body ? null : m.parentElement.closest(AROUND) || document.body);
  for (const [el, at] of found) {
    count(el, names.get(el), 1, [at[1]]);
    for (let up = at[0]; up; up = outer(up)) {
      if (!marks.has(up)) continue;
      marks.get(up).n += 1;
      marks.get(up).sections.add(at[1]);
    }
  }
  for (const [el, m] of marks) if (m.n > 0) count(el, names.get(el), m.n, m.sections);
  const most = (map) => [...map.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0];
  const ranked = [...kinds.entries()].sort((a, b) => b[1].n - a[1].n || (a[0] < b[0] ? -1 : 1));
  const out = {};
  for (const [kind, k] of ranked.slice(0, MAX_KINDS)) {
    const byCount = (a, b) => b[1] - a[1] || (JSON.stringify(a[0]) < JSON.stringify(b[0]) ? -1 : 1);
    const [props] = [...k.styles.values()].sort(byCount)[0];
    out[kind] = { ...props, count: String(k.n), sections: String(k.sections.size), within: most(k.within) };
  }
  return out;
}
