// uses: realTime
// Resolves after two animation frames: style, layout and media queries brought up to date, and painted.
() => new Promise((r) => { const { requestAnimationFrame: frame } = realTime(); frame(() => frame(r)); })
