// What a reader state starts from, in one string: every node of the document and of its
// open shadow roots that is rendered (name, attributes, text, form value, checked, scroll
// offsets; an element not rendered counts as one, whatever it holds), the
// window's scroll, the focused element, the selection, and how many elements are hovered,
// active or focus-visible. A state is taken on the page its variant's state before it used
// only when this, the layout and the first screen are what the first state started from
// (chain.py); anything a step left behind differs here, and the state loads anew.
// Masked elements are left out with all they hold: what a script keeps changing is masked.
(masks) => {
  const masked = (el) => masks.some((sel) => { try { return el.matches(sel); } catch (e) { return false; } });
  let h = 0x811c9dc5;
  const mix = (value) => {
    const s = String(value);
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
    h = Math.imul(h ^ 0x1f, 16777619);  // a separator: "ab","c" is not "a","bc"
  };
  let nodes = 0;
  const walk = (node) => {
    nodes++;
    mix(node.nodeName);
    if (node.nodeType === Node.TEXT_NODE || node.nodeType === Node.COMMENT_NODE) mix(node.data);
    if (node.nodeType === Node.ELEMENT_NODE) {
      if (masked(node)) return;
      // Not rendered, with all it holds: how it is hidden does not matter (a hover box
      // hidden again has `style="display: none"` where it started with none)
      if (getComputedStyle(node).display === 'none') { mix('hidden'); return; }
      for (const a of node.attributes) { mix(a.name); mix(a.value); }
      if (typeof node.value === 'string') mix(node.value);
      if (node.checked === true) mix('checked');
      if (node.scrollTop || node.scrollLeft) mix(`${node.scrollTop},${node.scrollLeft}`);
      if (node.shadowRoot) walk(node.shadowRoot);
    }
    for (let c = node.firstChild; c; c = c.nextSibling) walk(c);
  };
  walk(document);
  mix(`${window.scrollX},${window.scrollY}`);
  const active = document.activeElement;
  mix(active ? `${active.nodeName}#${active.id}` : '');
  mix(String(window.getSelection() || ''));
  mix(document.querySelectorAll(':hover, :active, :focus-visible').length);
  return `${(h >>> 0).toString(16)}/${nodes}`;
}
