/* contents.js: the scroll-spy of the table of contents.
 *
 * <d-contents> is plain markup (no script defines the tag); the theme's CSS makes it a
 * sticky column beside the text on wide screens. This file marks where the reader is: on
 * every scroll, the link whose section or subsection is the last to have reached the top
 * of the window (within READ_LINE px) gets the class `active`, every other link loses it.
 * Before the first section reaches the top, the first link is the active one. When the
 * contents column is shorter than its list and scrolls on its own, the active link is
 * kept in view inside it.
 * Deterministic on purpose: positions only, no clock, no timers, no randomness.
 */
(function () {
  "use strict";

  var READ_LINE = 96; // px from the top of the window: a heading above it is being read

  function init() {
    var nav = document.querySelector("d-contents nav");
    if (!nav) return;
    var box = nav.parentElement;
    var links = Array.prototype.slice.call(nav.querySelectorAll('a[href^="#"]'));
    var targets = links.map(function (a) {
      return document.getElementById(a.getAttribute("href").slice(1));
    });
    var current = -1;

    function keepInView(link, index) {
      if (box.scrollHeight <= box.clientHeight) return; // the list is not clipped: nothing to do
      var top = link.offsetTop, bottom = top + link.offsetHeight;
      if (index === 0) {
        box.scrollTop = 0;
      } else if (top < box.scrollTop || bottom > box.scrollTop + box.clientHeight) {
        box.scrollTop = Math.max(0, top - Math.round(box.clientHeight / 3));
      }
    }

    function update() {
      var index = 0;
      for (var i = 0; i < targets.length; i++) {
        if (targets[i] && targets[i].getBoundingClientRect().top <= READ_LINE) index = i;
      }
      if (index === current) return;
      current = index;
      for (var j = 0; j < links.length; j++) links[j].classList.toggle("active", j === index);
      keepInView(links[index], index);
    }

    window.addEventListener("scroll", update, { passive: true });
    window.addEventListener("resize", update);
    update();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
