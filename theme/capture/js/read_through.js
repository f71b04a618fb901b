// uses: realTime
// The reader's view: scroll the whole article one screen at a time so that
// IntersectionObservers and scroll handlers see every part of it (d-figure
// ready/onscreen/offscreen, scroll-spy tables of contents, lazy content), then
// back to the top. One frame a screen: each scroll is made inside an animation
// frame callback, and the same frame's rendering update (scroll events, then
// intersection observations) sees the new position before the next one is
// made. Run only when the page made an observer or listens to scrolling (watch.js):
// elsewhere it changes nothing.
async () => {
  const { requestAnimationFrame: frame } = realTime();
  const d = document.documentElement;
  const step = Math.max(200, window.innerHeight);
  let screens = 0;
  await new Promise((done) => {
    const next = () => {
      const y = screens * step;
      if (y >= d.scrollHeight) { window.scrollTo(0, 0); frame(() => frame(done)); return; }
      window.scrollTo(0, y);
      screens++;
      frame(next);
    };
    frame(next);
  });
  return screens;
}
