// The browser's own timers and clock for theme's scripts (kept by keep_real_time.js
// before the page clock replaced the page's); on a page where that init script
// never ran, the page's own, which are then the browser's.
() => window.__themeReal || {
  setTimeout: window.setTimeout.bind(window),
  clearTimeout: window.clearTimeout.bind(window),
  requestAnimationFrame: window.requestAnimationFrame.bind(window),
  now: performance.now.bind(performance),
  performance,
}
