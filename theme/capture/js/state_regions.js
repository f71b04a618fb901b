// The boxes of a reader state's captured elements (viewport px, as the screenshot sees
// them) and, for naming them like the page's regions (naming.py), the h1–h4 before each
// in document order. An element in a shadow root (a Distill hover box) is placed where its
// outermost host is: the d-cite whose box it is.
(elements) => {
  const headings = [...document.querySelectorAll('h1, h2, h3, h4')];
  const outermost = (e) => {
    let n = e;
    while (n.getRootNode() instanceof ShadowRoot) n = n.getRootNode().host;
    return n;
  };
  const before = (e) => {
    let found = -1;
    for (let i = 0; i < headings.length; i++) {
      if (headings[i] === e || !(headings[i].compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING)) break;
      found = i;
    }
    return found;
  };
  return {
    headings: headings.map((h) => h.textContent.replace(/\s+/g, ' ').trim()),
    found: elements.map((e) => {
      const r = e.getBoundingClientRect();
      const host = outermost(e);
      return { x: r.x, y: r.y, width: r.width, height: r.height, heading: before(host), id: host.id || '',
        index: elements.indexOf(e) };
    }),
  };
}
