// The computed properties a style record keeps (theme/baselines/style_record.py): what theme
// tokens set (type, colour, background, border, radius, spacing, colour scheme),
// what draws text (decoration, transform, alignment, opacity, shadow), and the
// used width and height. One list for the regions' records (computed_styles.js)
// and the page's text flow (flow_record.js, which leaves the sizes out).
() => [
  'display', 'width', 'height',
  'color', 'font-family', 'font-size', 'font-weight', 'font-style', 'line-height',
  'letter-spacing', 'text-align', 'text-transform', 'text-decoration-line', 'text-decoration-color',
  'background-color', 'background-image',
  'border-top-width', 'border-right-width', 'border-bottom-width', 'border-left-width',
  'border-top-style', 'border-right-style', 'border-bottom-style', 'border-left-style',
  'border-top-color', 'border-right-color', 'border-bottom-color', 'border-left-color',
  'border-radius',
  'padding-top', 'padding-right', 'padding-bottom', 'padding-left',
  'margin-top', 'margin-right', 'margin-bottom', 'margin-left',
  'box-shadow', 'opacity', 'color-scheme',
]
