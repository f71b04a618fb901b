// uses: adoptCss, stopAnimations, unmoved, checkSelectors, STABLE_CSS
// The end of settling, in one round trip: screenshot-only sheets adopted (see
// adopt_css.js), script animations stopped (stop_animations.js), a flag set so
// `screenshot()` knows the page is already prepared, and the configured
// selectors checked (check_selectors.js: null, or the first that does not parse).
// Our own sheet (stable.css) goes in between two looks of the unmoved.js guard, with
// whatever the page animated since freeze_view.js finished first (a transition cut
// short by `transition: none` jumps to its end); the user's `style` sheet after
// it, unguarded: what it changes, the user asked for.
({ sheets, flag, selectors }) => {
  const guard = unmoved();
  const before = guard.look();
  for (const css of sheets) if (css === STABLE_CSS) adoptCss(css);
  guard.check('adopting the screenshot-only CSS (STABLE_CSS)', before);
  for (const css of sheets) if (css !== STABLE_CSS) adoptCss(css);
  stopAnimations();
  window[flag] = true;
  return checkSelectors(selectors);
}
