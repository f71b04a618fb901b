// Adds CSS as a constructed stylesheet. Not Playwright's add_style_tag: after
// it, every beyond-viewport capture became many times slower (benchmarks/README.md);
// an adopted sheet costs nothing extra.
(css) => {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}
