// uses: unmoved, adoptCss, walkSheets
// The page held to its width under the tiles. Chromium takes each beyond-viewport
// capture of a tall page by resizing the view for a moment, through zero width, to
// the page's height and back: a page laid out against the viewport's width (percentage
// widths, width media queries) is restyled, laid out and painted again in full
// for every call (1.3 s of each 2.1 s call on the long runtime page; percentages
// alone cost 0.5 s on a page of plain paragraphs). Pinned, it lays out as it
// does now, so its pixels are the same, and a call costs the raster and encode:
//  - <html> gets min-width = its width now (an adopted sheet: no attribute changes);
//  - each media rule, sheet or import whose condition reads the viewport's size
//    is set to what it evaluates to now ('all' / 'not all'), in the document and
//    every shadow root (walkSheets); one that also reads prefers-color-scheme is
//    left alone, as a switch of scheme must still reach it.
// Between two looks of the unmoved.js guard. Returns how many conditions were pinned, for --explain.
() => {
  const guard = unmoved();
  const before = guard.look();
  const html = document.documentElement;
  const style = window.__themeStyleOf || getComputedStyle;  // unwrapped: not the page reading its scheme
  // to the 1/64 px of a layout unit: the 4 decimals getComputedStyle prints can fall short of it
  const held = `html { min-width: ${Math.round(parseFloat(style(html).width) * 64) / 64}px !important; }`;
  const sizeish = /(width|height|aspect-ratio|orientation)/i;
  let pinned = 0;
  const pin = (media) => {
    const text = media && media.mediaText;
    if (!text || !sizeish.test(text) || /prefers-color-scheme/i.test(text)) return;
    media.mediaText = matchMedia(text).matches ? 'all' : 'not all';
    pinned++;
  };
  walkSheets({
    sheet: (sheet) => pin(sheet.media),
    rule: (rule) => { if (rule instanceof CSSMediaRule || rule instanceof CSSImportRule) pin(rule.media); },
  });
  adoptCss(held);
  guard.check('holding the page to its width (PIN_WIDTH)', before);
  return pinned;
}
