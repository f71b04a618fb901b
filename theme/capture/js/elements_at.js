// uses: maskOf
// For `theme capture --explain` and an update's refusal of a page that does
// not hold still: the smallest element whose box holds each changed area (x,
// y, w, h in page px) that two captures disagree on, as the selector a person
// would write in `mask` (mask_of.js). Elements inside open shadow roots are
// answered with their host (a mask selector cannot reach inside).
async (boxes) => {
  // A framework's scoping class is in the served HTML too (svelte-suja6o,
  // css-1x2y3z, jsx-4821): a prefix of one, or a dashed part mixing letters
  // and digits.
  const GENERATED = /^(svelte|css|jsx|sc|astro|emotion|tw)-|-(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{5,}$/i;
  // The classes the page's own HTML gives (class="…" in its source), so a
  // selector never leans on one a script or a framework generated.
  let authored = [];
  try {
    const source = await (await fetch(location.href)).text();
    authored = [...new Set([...source.matchAll(/\sclass\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)]
      .flatMap((m) => (m[1] ?? m[2]).split(/\s+/)).filter((c) => c && !/[{}$<>]/.test(c) && !GENERATED.test(c)))];
  } catch (e) {}
  const sx = window.scrollX, sy = window.scrollY;
  const all = [...document.body.getElementsByTagName('*')].map((el) => {
    const r = el.getBoundingClientRect();
    return [el, r.left + sx, r.top + sy, r.right + sx, r.bottom + sy, r.width * r.height];
  }).filter((e) => e[5] > 0);
  return boxes.map(([x, y, w, h]) => {
    // An area two renders disagree on spans both renders' content, and this load
    // (a third) has its own: a number of other digits is narrower or wider. An
    // element within 15% of the area holds it, as a mask paints each render's own box.
    const slackX = Math.max(1, 0.15 * w), slackY = Math.max(1, 0.15 * h);
    let best = null;
    for (const e of all) {
      if (e[1] <= x + slackX && e[2] <= y + slackY && e[3] >= x + w - slackX && e[4] >= y + h - slackY && (!best || e[5] < best[5])) best = e;
    }
    return best ? maskOf(best[0], authored) : null;
  });
}
