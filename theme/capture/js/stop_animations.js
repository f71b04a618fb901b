// CSS animations and Web Animations created by scripts: finish the finite ones
// (final state, as a reader sees it) and cancel endless ones (initial state).
() => {
  for (const a of document.getAnimations()) {
    try { a.finish(); } catch (e) { a.cancel(); }
  }
}
