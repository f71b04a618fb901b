// uses: layoutHash, regions, textLines, fontFamilies, realTime
// Everything measured once the tiles are taken, in one round trip: the layout
// hash (to prove nothing moved during the capture: then the boxes below are
// those the tiles show), the regions, the text lines of the wholeness guard,
// the font stacks and the loaded resources (for the font fingerprint). Run
// while the last tile is still being decoded in Python, so the renderer's time
// on a tall page costs no wall time. Returned as one JSON string: Playwright's
// Python client unpacks a returned object value by value in Python, CPU taken
// from the browser; json.loads does it in C (benchmarks/README.md).
(arg) => JSON.stringify({
  hash: layoutHash(arg.masks), found: regions(arg), lines: textLines(arg), fonts: fontFamilies(),
  resources: realTime().performance.getEntriesByType('resource').map((e) => e.name),
  undefined: [...new Set([...document.querySelectorAll(':not(:defined)')].map((e) => e.localName))].sort(),
})
