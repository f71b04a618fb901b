// Resolves after two animation frames: style, layout and media queries brought up to date, and painted.
() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
