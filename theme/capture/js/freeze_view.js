// uses: unmoved, realTime
// The reader's view frozen, once the page has settled after read_through.js:
// - IntersectionObservers disconnected: a beyond-viewport capture grows the
// view to the whole page, and an observer would see every element come on
// screen, fire, and change the page during or between the tiles;
// - inline SVG animations paused at 0 s, CSS animations and transitions
// finished (stop_animations.js): the page at rest, as the guard then sees it;
// - animated GIF/APNG/WebP images drawn as their first frame (decoded by
// WebCodecs' ImageDecoder, shown with CSS `content`), so they show one frame,
// the same one every run. `content` gives the <img> the frame's size as its
// natural size, once loaded: every such image keeps its box by an explicit
// width and height, as laid out before the swap;
// - fixed and sticky elements pinned where they sit at scroll 0: a
// beyond-viewport capture lays the page out in a view as tall as the page,
// where `bottom: 0` or a sticky box would sit elsewhere. A fixed element stays
// fixed, at top/left offsets measured, with its size and padding in px: as
// `absolute` it would count in the page's scroll size (an off-screen drawer
// made the page wider, a panel past the first screen's bottom made it taller)
// and its shadow was painted differently. A sticky element becomes relative,
// so it keeps its place in the flow. Their transitions are switched off first,
// or a transition on `top` would still show the old place when measured;
// - each of those two changes between two looks of the unmoved.js guard.
// Returns what it did, for --explain.
async () => {
  const w = window.__themeWatch || { observers: [], roots: [] };
  for (const o of w.observers) { try { o.disconnect(); } catch (e) {} }
  const style = window.__themeStyleOf || getComputedStyle;
  for (const svg of document.querySelectorAll('svg')) {
    try { if (svg.animationsPaused && !svg.animationsPaused()) { svg.pauseAnimations(); svg.setCurrentTime(0); } } catch (e) {}
  }
  const stills = [];  // [img, src, URL of its first frame, the frame's width and height]
  if ('ImageDecoder' in window) {
    for (const img of [...document.images]) {
      const src = img.currentSrc || img.src;
      if (!src || src.startsWith('data:') || !img.naturalWidth || /\.(svg|jpe?g)([?#]|$)/i.test(src)) continue;
      try {
        const res = await fetch(src);
        const data = await res.arrayBuffer();  // read whole: a body left unread is a request never finished
        const type = (res.headers.get('content-type') || '').split(';')[0].trim();
        if (!/^image\/(gif|png|apng|webp|avif)$/.test(type) || !(await ImageDecoder.isTypeSupported(type))) continue;
        const dec = new ImageDecoder({ data, type });
        await dec.tracks.ready;
        const track = dec.tracks.selectedTrack;
        if (!track || !track.animated) { dec.close(); continue; }
        const { image } = await dec.decode({ frameIndex: 0 });
        const canvas = document.createElement('canvas');
        canvas.width = image.displayWidth; canvas.height = image.displayHeight;
        canvas.getContext('2d').drawImage(image, 0, 0);
        image.close(); dec.close();
        const blob = await new Promise((r) => canvas.toBlob(r, 'image/png'));
        const still = new Image();
        still.src = URL.createObjectURL(blob);
        await still.decode().catch(() => {});
        stills.push([img, src, still.src, canvas.width, canvas.height]);
      } catch (e) {}
    }
  }
  // From here to the end of the pinning, one synchronous task (see unmoved.js).
  const guard = unmoved();
  const set = (el, props) => { for (const [k, v] of Object.entries(props)) el.style.setProperty(k, v, 'important'); };
  // A computed length to the 1/64 px of a layout unit: getComputedStyle prints 4
  // decimals, and "82.5781px" read back is 1/64 px narrower than the box it came from.
  const px = (v) => `${Math.round(parseFloat(v) * 64) / 64}px`;
  let look = guard.look();
  const frozen = [];
  for (const [img, src, url, width, height] of stills) {
    const cs = style(img);
    set(img, { transition: 'none' });
    // The box as laid out now, always: until the frame's URL has loaded as the `content`
    // image (a task away, later under load) the <img> has no natural size and would
    // collapse to 0 × 0; and a source's density (srcset `2x`, `w` with `sizes`) gave it
    // another size than the frame's.
    if (cs.display !== 'none') set(img, { width: px(cs.width), height: px(cs.height) });
    // Drawn in place of the animation by CSS `content`, so src, srcset and the
    // page's selectors on them stay as the author wrote them.
    set(img, { content: `url("${url}")` });
    frozen.push(src);
  }
  look = guard.check('showing animated images at their first frame', look);
  const pinned = [];
  const held = window.__themePinned = window.__themePinned || new WeakSet();  // fixed, pinned: text_lines.js measures them
  const found = [];
  for (const el of document.querySelectorAll('body *')) {
    const cs = style(el);
    if (cs.position !== 'fixed' && cs.position !== 'sticky') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const keep = ['width', 'height', 'padding-top', 'padding-right', 'padding-bottom', 'padding-left'];
    found.push([el, cs.position, r, Object.fromEntries(keep.map((k) => [k, px(cs.getPropertyValue(k))]))]);
  }
  for (const [el, position, r, sizes] of found) {
    set(el, { transition: 'none' });
    if (position === 'fixed') {
      set(el, { ...sizes, 'min-width': '0px', 'max-width': 'none', 'min-height': '0px', 'max-height': 'none',
                top: '0px', left: '0px', right: 'auto', bottom: 'auto', margin: '0px' });
      held.add(el);
    } else set(el, { position: 'relative', top: '0px', left: '0px', right: 'auto', bottom: 'auto' });
    const now = el.getBoundingClientRect();
    set(el, { top: px(r.top - now.top), left: px(r.left - now.left) });
    const name = el.localName + (el.id ? '#' + el.id : '') + [...el.classList].slice(0, 2).map((c) => '.' + c).join('');
    pinned.push([name, position, Math.round(r.top + window.scrollY)]);
  }
  guard.check('pinning fixed and sticky elements where they sit at scroll 0', look);
  const { requestAnimationFrame: frame } = realTime();
  await new Promise((r) => frame(() => frame(r)));
  return { frozen, pinned, observers: w.observers.length, workers: [...new Set(window.__themeWorkers || [])] };
}
