// Init script, before any page script, in every frame: lazy
// images and frames are made eager once the parser has created them, so they
// load with the page instead of only when scrolled to (a full-page capture
// never scrolls).
() => {
  const eager = () => {
    for (const el of document.querySelectorAll('img[loading="lazy"], iframe[loading="lazy"]')) el.loading = 'eager';
  };
  document.addEventListener('DOMContentLoaded', eager, { once: true });
}
