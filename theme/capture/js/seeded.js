// Init script (called with the seed), before any page script, in every frame:
// Math.random, crypto.getRandomValues and crypto.randomUUID draw from one
// generator (sfc32) seeded from `seed` and the document's path and query, so a
// figure drawn from random numbers is the same figure on every run, machine and
// worker. Not from the viewport or scheme: every variant of a page draws the same
// numbers, so a dark variant switched from its light page is its fresh dark load.
// Workers are noted, not seeded: a worker's script resolves its own addresses against
// its URL, which a wrapper would change.
(seed) => {
  if (window.__themeSeeded) return;
  Object.defineProperty(window, '__themeSeeded', { value: seed });
  // Web Workers and canvases drawn off the main thread (OffscreenCanvas): neither this
  // generator nor page time reaches a worker, so each one started is noted, by its script
  // (freeze_view.js reports them) for the message that names what does not hold still.
  const started = [];
  Object.defineProperty(window, '__themeWorkers', { value: started });
  for (const name of ['Worker', 'SharedWorker']) {
    const Real = window[name];
    if (!Real) continue;
    const Wrapped = function (url, options) {
      const href = String(url);
      const what = name === 'Worker' ? 'a Web Worker' : 'a shared worker';
      started.push(`${what} (${href.startsWith('blob:') ? 'a blob: script' : href})`);
      return new.target ? Reflect.construct(Real, [url, options], new.target) : Real(url, options);
    };
    Wrapped.prototype = Real.prototype;
    window[name] = Wrapped;
  }
  const Canvas = window.HTMLCanvasElement && HTMLCanvasElement.prototype;
  if (Canvas && Canvas.transferControlToOffscreen) {
    const transfer = Canvas.transferControlToOffscreen;
    Canvas.transferControlToOffscreen = function transferControlToOffscreen() {
      started.push(`a canvas drawn in a worker (${this.id ? '#' + this.id : 'canvas'})`);
      return transfer.call(this);
    };
  }
  // cyrb128: four 32-bit words from a string (a well-mixed seed for sfc32)
  const key = `${seed}:${location.pathname}${location.search}`;
  let h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762;
  for (let i = 0; i < key.length; i++) {
    const k = key.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067); h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213); h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067); h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213); h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  let a = (h1 ^ h2 ^ h3 ^ h4) >>> 0, b = (h2 ^ h1) >>> 0, c = (h3 ^ h1) >>> 0, d = (h4 ^ h1) >>> 0;
  const next = () => {  // sfc32 (Chris Doty-Humphrey's small fast counting generator)
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9); b = (c + (c << 3)) | 0; c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0; t = (t + d) | 0; c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 15; i++) next();
  Math.random = function random() { return next() / 4294967296; };
  const C = window.Crypto && window.Crypto.prototype;
  if (!C) return;
  const fill = C.getRandomValues;
  // The browser's own first: it checks the array's type and the 65 536-byte quota and
  // throws as it would; then the same bytes come from the generator instead.
  C.getRandomValues = function getRandomValues(array) {
    const out = fill.call(this, array);
    const bytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    for (let i = 0; i < bytes.length; i += 4) {
      const r = next();
      for (let j = 0; j < 4 && i + j < bytes.length; j++) bytes[i + j] = (r >>> (8 * j)) & 255;
    }
    return out;
  };
  if (C.randomUUID) {
    C.randomUUID = function randomUUID() {
      const b = C.getRandomValues.call(this, new Uint8Array(16));
      b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;  // version 4, RFC 4122 variant
      const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    };
  }
}
