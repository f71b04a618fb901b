// Init script (called with the theme): <html data-theme> forced for one navigation (the -attr schemes), before any of
// the page's scripts run. At document start there is no <html> element yet, so
// the attribute is set when the parser inserts it: a mutation observer's
// callback runs at the microtask checkpoint before the first script executes.
(theme) => {
  const set = () => {
    const html = document.documentElement;
    if (html && html.getAttribute('data-theme') !== theme) html.setAttribute('data-theme', theme);
    return !!html;
  };
  if (!set()) new MutationObserver((_, seen) => { if (set()) seen.disconnect(); }).observe(document, { childList: true });
}
