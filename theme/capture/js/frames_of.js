// The ancestors of an element whose own sub-pixel phase shapes how it paints,
// outermost first: Chromium gives each a paint offset translation snapped to
// whole pixels (layout or paint containment, a transform, a filter, a scroll
// container, fixed or sticky), and what is inside is rasterised from there. The
// Distill runtime's `d-article { contain: layout style }` is one: a region put
// back on its own phase still snaps a superscript one pixel off when the
// d-article above it moved by a fraction (theme/check/phase.py). Crosses shadow
// roots to the host; <html> and <body> are never frames.
(el) => {
  const style = window.__themeStyleOf || getComputedStyle;
  const frames = [];
  const snaps = (cs) => /layout|paint|strict|content/.test(cs.contain)
    || cs.transform !== 'none' || cs.translate !== 'none' || cs.scale !== 'none' || cs.rotate !== 'none'
    || cs.perspective !== 'none' || cs.filter !== 'none' || /transform/.test(cs.willChange)
    || cs.overflowX !== 'visible' || cs.overflowY !== 'visible'
    || cs.position === 'fixed' || cs.position === 'sticky';
  const up = (e) => e.parentElement || (e.getRootNode() instanceof ShadowRoot ? e.getRootNode().host : null);
  for (let a = up(el); a && a !== document.body && a !== document.documentElement; a = up(a)) {
    if (snaps(style(a))) frames.unshift(a);
  }
  return frames;
}
