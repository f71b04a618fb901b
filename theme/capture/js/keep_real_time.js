// Init script, first of all, in every frame: the browser's own timers and clock,
// kept for theme's scripts before the page clock (pagetime.py) replaces Date,
// setTimeout, requestAnimationFrame and performance.now with ones only the capture
// moves (its performance object also lists no resource timing entries). Settling,
// watching and freezing need time that passes, and init and lint the page's requests.
() => {
  if (window.__themeReal) return;
  const real = {
    setTimeout: window.setTimeout.bind(window),
    clearTimeout: window.clearTimeout.bind(window),
    requestAnimationFrame: window.requestAnimationFrame.bind(window),
    now: performance.now.bind(performance),
    performance,
  };
  Object.defineProperty(window, '__themeReal', { value: Object.freeze(real) });
}
