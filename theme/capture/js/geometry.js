// The size of the whole page in CSS px (= device px at scale factor 1): the scroll
// size of the document's scroller (document.scrollingElement: <html>, or <body> in
// quirks mode), what a reader scrolls through. Nothing else counts: an element's own
// scroll size (a <body> that scrolls inside the view) is not the page's.
() => {
  const s = document.scrollingElement || document.documentElement;
  return { width: s.scrollWidth, height: s.scrollHeight, scrollX: window.scrollX, scrollY: window.scrollY };
}
