// Removes the boxes of mask.js (before a page is taken again in another scheme).
() => { for (const box of document.querySelectorAll('[data-theme-mask]')) box.remove(); }
