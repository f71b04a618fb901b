// uses: realTime
// One look at whether the page has settled: what is still pending (never
// throws). Maths: every <d-math> (the Distill runtime typesets KaTeX into its
// shadow root) whose source is not empty must hold KaTeX output or a KaTeX
// error; a page of the specimen's contract sets <html data-typeset> and flips
// it to "done". Custom tags nothing defined are listed, never waited for: a
// tag no script defines is plain markup styled by CSS alone.
({ dataTheme }) => {
  const w = window.__themeWatch || { lastChange: 0, defines: 0, observers: [], scrollers: 0, roots: [] };
  const html = document.documentElement;
  if (dataTheme !== null && html.getAttribute('data-theme') !== dataTheme) html.setAttribute('data-theme', dataTheme);
  for (const el of document.querySelectorAll('img[loading="lazy"], iframe[loading="lazy"]')) el.loading = 'eager';
  const undefinedTags = [...new Set([...document.querySelectorAll(':not(:defined)')].map((e) => e.localName))].sort();
  const roots = [document, ...w.roots];
  const maths = roots.flatMap((r) => [...r.querySelectorAll('d-math')]);
  const done = (m) => {
    if (!customElements.get('d-math') || !(m.textContent || '').trim()) return true;
    const inside = m.shadowRoot || w.roots.find((r) => r.host === m) || m;
    return !!inside.querySelector('.katex, .katex-error, .katex-display, mjx-container');
  };
  const mathsPending = maths.filter((m) => !done(m)).length;
  const typeset = html.hasAttribute('data-typeset') ? html.dataset.typeset : null;
  const images = [...document.images].filter((i) => !i.complete).map((i) => i.currentSrc || i.src);
  return {
    quietMs: realTime().now() - w.lastChange, defines: w.defines, undefinedTags, maths: maths.length,
    mathsPending, typeset, images, fonts: document.fonts.status, readyState: document.readyState,
    observers: w.observers.length, scrollers: w.scrollers, timers: w.timers ? w.timers.size : 0,
  };
}
