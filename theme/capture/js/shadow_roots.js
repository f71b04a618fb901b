// The document and every shadow root in it, in tree order (each root before the roots
// inside it): open ones, and closed ones, which a page script cannot reach but the watch.js
// init script keeps as they are attached. A root whose host is not in the document is left
// out: nothing in it is drawn.
() => {
  const kept = new Map(((window.__themeWatch || {}).roots || []).map((r) => [r.host, r]));
  const roots = [];
  const visit = (root) => {
    roots.push(root);
    for (const el of root.querySelectorAll('*')) {
      const shadow = el.shadowRoot || kept.get(el);
      if (shadow) visit(shadow);
    }
  };
  visit(document);
  return roots;
}
