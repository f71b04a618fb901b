// uses: namingOf, pathOf
// The boxes of a reader state's captured elements (viewport px, as the screenshot sees
// them) and what names them as the page's regions are named (namingOf, naming.element_names):
// the nearest h1–h4 before each, the page chrome around it, and before the article's first
// heading its id and caption; so a hover box after the byline's "DOI" is not named "doi". An
// element in a shadow root (a Distill hover box) is placed where its outermost host is: the
// d-cite whose box it is. `path`: its readable selector path (pathOf), through the
// host for an element in a shadow root, so what it inherits from the page's text flow
// can be told (theme/check/causes.py: inherited).
(elements) => {
  const naming = namingOf();
  const outermost = (e) => {
    let n = e;
    while (n.getRootNode() instanceof ShadowRoot) n = n.getRootNode().host;
    return n;
  };
  return {
    headings: naming.headings, placed: naming.placed, title: naming.title,
    found: elements.map((e) => {
      const r = e.getBoundingClientRect();
      const host = outermost(e);
      const path = host === e ? pathOf(e) : `${pathOf(host)} > #shadow-root > ${pathOf(e)}`;
      return { x: r.x, y: r.y, width: r.width, height: r.height, ...naming.of(host),
        index: elements.indexOf(e), path };
    }),
  };
}
