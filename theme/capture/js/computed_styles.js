// uses: recordProps
// The style record of regions (theme/baselines/style_record.py reads it): for each region,
// its element's computed style for the properties a theme changes, and the same
// for the elements inside it that hold text, so a failed image can be explained
// in CSS terms ("`.note-box-content` font-size 12px → 13px") rather than pixels.
//
// Input: {regions: [{key, selector, index?, element?}], masks: [selector]}: `selector`
// is a region's selector path (Region.selector, from path_of.js) or any selector,
// `index` which match (default 0); or `element`, the element itself (a reader state's,
// found by a Playwright selector that may reach into shadow roots); `masks`, the
// selectors painted over. Output: {key: {"": props, "<relative selector>": props, …}},
// or null for a key whose element is not there. Values are the browser's computed
// (resolved) strings; theme/baselines/style_record.py compacts them.
//
// Properties: record_props.js's list; width/height say how the box followed (a
// resolved width/height is the used size, "auto" for an inline box).
//
// Text holders: the region's child elements that contain text, breadth first:
// a child that is only a wrapper (no text node of its own, as .note-box-content
// around its paragraphs, or a <pre> around <code>) is recorded and its own
// text-holding children are visited in turn; one with text of its own ends the
// walk there (a <strong> in a figcaption is part of its text run). An element
// with an open shadow root is walked through that root: it is what is drawn.
// At most MAX_HOLDERS, in tree order per level: the same page, the same record.
// Each is named by a selector path relative to the region: tag and first two
// classes a step, :nth-of-type(k) when a sibling would read the same, and
// "#shadow-root" where the walk enters a shadow root.
//
// Text: each recorded element's `text` is the text drawn in it and not in a recorded
// element inside it, in the order the flat tree (shadow roots, slotted nodes) draws it,
// so a changed word is told apart from a changed image or font, and belongs to one
// element. Text that is not rendered (display: none, visibility: hidden, <style>) or
// under a mask (a script keeps changing it) is left out: it draws nothing in the image.
// Files: likewise, `files` lists the URLs of the images, videos, objects, frames and CSS
// backgrounds drawn there (sorted, once each); theme/capture/shoot.py adds their digests.
// Drawing: likewise, `drawing` sums up the SVG shapes drawn there, one line a kind of
// shape: "circle 12 cx=… cy=… r=…", its count and, for each geometry attribute, a
// digest of its values in tree order, so a figure a script drew anew (a path's `d`,
// circles at other places, more points) is told from an image, a canvas or a font.
({ regions, masks }) => {
  const PROPS = recordProps();
  const MAX_HOLDERS = 8;
  const SKIP = new Set(['style', 'script', 'template', 'link', 'meta', 'noscript']);
  // Unwrapped where capture installed its scheme probe: reading styles here is theme's,
  // not the page learning its scheme (a switched dark variant depends on that).
  const computed = window.__themeStyleOf || getComputedStyle;
  const styleOf = (el) => {
    const cs = computed(el);
    const out = {};
    for (const p of PROPS) out[p] = cs.getPropertyValue(p);
    return out;
  };
  const ownText = (el) => [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.data.trim() !== '');
  // Text it draws: in its shadow root when it has one (light text there shows only if slotted),
  // never a <style>'s text.
  const holdsText = (el) => {
    const walk = document.createTreeWalker(el.shadowRoot || el, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      if (n.data.trim() !== '' && !SKIP.has(n.parentNode.localName)) return true;
    }
    return false;
  };
  const drawn = (el) => !SKIP.has(el.localName) && el.getClientRects().length > 0;
  const stepName = (el) => el.localName + [...el.classList].slice(0, 2).map((c) => '.' + CSS.escape(c)).join('');
  // The children an element draws, each with the path prefix that leads to it.
  const childrenOf = (el, path) => {
    const root = el.shadowRoot || el;
    const prefix = (path ? path + ' > ' : '') + (el.shadowRoot ? '#shadow-root > ' : '');
    const kids = [...root.children];
    return kids.map((kid) => {
      const name = stepName(kid);
      const same = kids.filter((k) => k.localName === kid.localName);
      const ambiguous = kids.some((k) => k !== kid && stepName(k) === name);
      return [kid, prefix + (ambiguous ? `${name}:nth-of-type(${same.indexOf(kid) + 1})` : name)];
    });
  };
  const holders = (region) => {
    const out = [];
    let level = childrenOf(region, '');
    while (level.length && out.length < MAX_HOLDERS) {
      const next = [];
      for (const [el, path] of level) {
        if (out.length >= MAX_HOLDERS) break;
        if (!drawn(el) || !holdsText(el)) continue;
        out.push([el, path]);
        if (!ownText(el)) next.push(...childrenOf(el, path));
      }
      level = next;
    }
    return out;
  };
  const masked = new Set();
  for (const sel of masks || []) for (const m of document.querySelectorAll(sel)) masked.add(m);
  const INLINE = new Set(['inline', 'contents', 'ruby', 'ruby-text']);
  // Kept for screen readers, drawn as nothing: a box of at most 1 x 1 px that clips what is in
  // it (KaTeX's MathML beside the maths it draws; the usual "visually hidden" class).
  const unseen = (el) => {
    const box = el.getBoundingClientRect();
    if (box.width > 1 || box.height > 1) return false;
    const cs = computed(el);
    return cs.overflow !== 'visible' || cs.clip !== 'auto';
  };
  const shown = (el) => (el.checkVisibility ? el.checkVisibility({ visibilityProperty: true })
    : el.getClientRects().length > 0);
  // The files an element draws from: its image, video, object or frame, its CSS backgrounds.
  const sourcesOf = (el) => {
    const out = [];
    const tag = el.localName;
    if ((tag === 'img' || tag === 'video') && el.currentSrc) out.push(el.currentSrc);
    if (tag === 'video' && el.poster) out.push(el.poster);
    if (tag === 'image' && el.href) out.push(new URL(el.href.baseVal, el.baseURI).href);
    if (tag === 'object' && el.data) out.push(el.data);
    if ((tag === 'embed' || tag === 'iframe') && el.src) out.push(el.src);
    const background = computed(el).backgroundImage;
    if (background && background !== 'none') for (const m of background.matchAll(/url\("([^"]*)"\)/g)) out.push(m[1]);
    return out;
  };
  const SHAPES = new Set(['path', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'rect', 'use']);
  const GEOMETRY = ['d', 'cx', 'cy', 'r', 'rx', 'ry', 'x', 'y', 'x1', 'y1', 'x2', 'y2', 'width', 'height',
                    'points', 'transform', 'href'];
  // FNV-1a, 32 bits, as 8 hex digits: a short digest, the same on every run.
  const fnv = (text) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
    return h.toString(16).padStart(8, '0');
  };
  const summed = (shapes) => {
    const kinds = new Map();
    for (const el of shapes) {
      if (!kinds.has(el.localName)) kinds.set(el.localName, []);
      kinds.get(el.localName).push(el);
    }
    return [...kinds.keys()].sort().map((kind) => {
      const all = kinds.get(kind);
      const attrs = GEOMETRY.filter((a) => all.some((el) => el.hasAttribute(a)))
        .map((a) => `${a}=${fnv(all.map((el) => el.getAttribute(a) ?? '').join('|'))}`);
      return [kind, all.length, ...attrs].join(' ');
    }).join('\n');
  };
  // What `node` draws, each word and file added to its nearest recorded element's lists.
  const gather = (node, owner, texts, files, shapes) => {
    if (node.nodeType === Node.TEXT_NODE) {
      const parent = node.parentElement || node.parentNode?.host;
      if (node.data.trim() === '') texts.get(owner).push(' ');  // it may part two words
      else if (parent && !SKIP.has(parent.localName) && shown(parent)) texts.get(owner).push(node.data);
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE || SKIP.has(node.localName) || masked.has(node) || unseen(node)) return;
    const mine = texts.has(node) ? node : owner;
    if (shown(node)) files.get(mine).push(...sourcesOf(node));
    if (node.namespaceURI === 'http://www.w3.org/2000/svg' && SHAPES.has(node.localName) && shown(node)) {
      shapes.get(mine).push(node);
    }
    let kids = node.shadowRoot ? node.shadowRoot.childNodes : node.childNodes;
    if (node.localName === 'slot' && node.assignedNodes().length) kids = node.assignedNodes();
    const apart = node.localName === 'br' || !INLINE.has(computed(node).display);  // a line of its own
    if (apart) texts.get(mine).push(' ');
    for (const kid of kids) gather(kid, mine, texts, files, shapes);
    if (apart) texts.get(mine).push(' ');
  };
  const out = {};
  for (const { key, selector, index, element } of regions) {
    const el = element || document.querySelectorAll(selector)[index || 0];
    if (!el) { out[key] = null; continue; }
    const found = [[el, ''], ...holders(el)];
    const texts = new Map(found.map(([holder]) => [holder, []]));
    const files = new Map(found.map(([holder]) => [holder, []]));
    const shapes = new Map(found.map(([holder]) => [holder, []]));
    gather(el, el, texts, files, shapes);
    const record = {};
    for (const [holder, path] of found) {
      const text = texts.get(holder).join('').replace(/\s+/g, ' ').trim();
      record[path] = { ...styleOf(holder), text, files: [...new Set(files.get(holder))].sort(),
                       drawing: summed(shapes.get(holder)) };
    }
    out[key] = record;
  }
  return out;
}
