// The colours a reader sees in a state, for its contrast check (theme/capture/states.py):
// - "text": every visible text in the captured elements, walked through shadow roots and
//   slots (a hover box's text is slotted into its panel), as [colour, background];
// - "focus": the focused element (inside shadow roots too) and its indicator: its outline
//   when it has one, else the first colour of its box-shadow, against what is behind it.
// A background is the stack of background colours from the element up to the root
// (composed tree: a slot's content sits on the slot's ancestors), top first; the caller
// composites them over the page's canvas. Colours are computed values: `rgb(…)`/`rgba(…)`.
(arg) => {
  const { elements, kind } = arg;
  const up = (e) => e.assignedSlot || e.parentElement || (e.getRootNode() instanceof ShadowRoot ? e.getRootNode().host : null);
  const backgrounds = (e) => {
    const out = [];
    for (let n = e; n; n = up(n)) {
      const bg = getComputedStyle(n).backgroundColor;
      if (bg && bg !== 'transparent' && bg !== 'rgba(0, 0, 0, 0)') out.push(bg);
    }
    return out;
  };
  const canvas = getComputedStyle(document.documentElement).backgroundColor;
  const label = (e) => {
    const tag = e.localName + (e.id ? '#' + e.id : '') + [...e.classList].slice(0, 2).map((c) => '.' + c).join('');
    const host = e.getRootNode() instanceof ShadowRoot ? e.getRootNode().host.localName + ' ' : '';
    return host + tag;
  };
  if (kind === 'focus') {
    let active = document.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
    if (!active || active === document.body) return { canvas, found: [], focused: null };
    const s = getComputedStyle(active);
    let colour = null;
    let how = 'outline';
    // `auto` is the browser's own ring, drawn in two tones to show on any background
    if (s.outlineStyle === 'auto') return { canvas, focused: label(active), found: [], ring: 'auto' };
    if (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) colour = s.outlineColor;
    else if (s.boxShadow && s.boxShadow !== 'none') {
      const m = s.boxShadow.match(/rgba?\([^)]*\)/);
      if (m) { colour = m[0]; how = 'box-shadow'; }
    }
    const parent = up(active);
    return {
      canvas,
      focused: label(active),
      found: colour ? [{ what: `${label(active)} (${how})`, colour, under: parent ? backgrounds(parent) : [] }] : [],
    };
  }
  const found = [];
  const seen = new Set();
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      const e = node.parentElement;
      if (!e || !node.textContent.trim() || seen.has(e)) return;
      const range = document.createRange();
      range.selectNodeContents(node);
      const r = range.getBoundingClientRect();
      const s = getComputedStyle(e);
      if (!r.width || !r.height || s.visibility !== 'visible' || parseFloat(s.opacity) === 0) return;
      seen.add(e);
      found.push({ what: `${label(e)} "${node.textContent.trim().slice(0, 40)}"`, colour: s.color, under: backgrounds(e) });
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE && node.nodeType !== Node.DOCUMENT_FRAGMENT_NODE) return;
    if (node.localName === 'slot') {
      for (const n of node.assignedNodes({ flatten: true })) walk(n);
      return;
    }
    const children = node.shadowRoot ? node.shadowRoot.childNodes : node.childNodes;
    for (const n of children) walk(n);
  };
  for (const e of elements) walk(e);
  return { canvas, found, focused: null };
}
