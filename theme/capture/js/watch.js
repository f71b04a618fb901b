// uses: realTime
// Init script, before any page script, in every frame: what the settle loop asks about
// (probe.js). It notes when the page last did something that changes what
// is drawn: defined a custom element, changed the DOM (in the document or in any
// shadow root, open or closed), and which IntersectionObservers and scroll
// listeners it made (the reader's view needs a scroll through the article only
// when something listens). Closed shadow roots are kept so maths typeset inside
// them can be seen.
() => {
  if (window.__themeWatch) return;
  const w = window.__themeWatch = { lastChange: realTime().now(), defines: 0, observers: [], scrollers: 0, roots: [] };
  const now = realTime().now;
  const touch = () => { w.lastChange = now(); };
  const mo = new MutationObserver(touch);
  const watch = (node) => mo.observe(node, { childList: true, subtree: true, attributes: true, characterData: true });
  watch(document);
  const define = customElements.define;
  customElements.define = function (...args) { w.defines++; touch(); return define.apply(this, args); };
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (...args) { const root = attach.apply(this, args); w.roots.push(root); watch(root); return root; };
  const IO = window.IntersectionObserver;
  if (IO) {
    window.IntersectionObserver = function IntersectionObserver(cb, opts) { const o = new IO(cb, opts); w.observers.push(o); return o; };
    window.IntersectionObserver.prototype = IO.prototype;
  }
  // Short timers (up to 1 s) still to fire: a page that fetches a fragment
  // 300 ms after load, or a runtime that reacts 500 ms after the last scroll,
  // has work scheduled that network and DOM quiet cannot see yet.
  const timers = w.timers = new Set();
  const later = window.setTimeout, cancel = window.clearTimeout;
  window.setTimeout = function setTimeout(fn, delay, ...args) {
    if (typeof fn !== 'function' || !(Number(delay || 0) <= 1000)) return later.call(window, fn, delay, ...args);
    const id = later.call(window, function (...a) { timers.delete(id); return fn.apply(this, a); }, delay, ...args);
    timers.add(id);
    return id;
  };
  window.clearTimeout = function clearTimeout(id) { timers.delete(id); return cancel.call(window, id); };
  const listen = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, ...rest) {
    if (type === 'scroll' || type === 'wheel') w.scrollers++;
    return listen.call(this, type, ...rest);
  };
}
