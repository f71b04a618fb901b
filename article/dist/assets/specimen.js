/* specimen.js: the theme toggle, and nothing else.
 *
 * The Distill runtime (assets/distill/template.v2.js) does the article's work: it typesets
 * <d-math> with KaTeX and highlights <d-code> with Prism inside their shadow roots, draws the
 * byline from <d-front-matter>, and numbers citations and footnotes. This file only wires
 * the .theme-toggle button in <d-title>: a click flips <html data-theme> between "light"
 * and "dark", starting from whichever scheme is showing.
 * Deterministic on purpose: no clock, no randomness, no network, no storage.
 */
(function () {
  "use strict";

  function currentTheme() {
    var explicit = document.documentElement.getAttribute("data-theme");
    if (explicit === "light" || explicit === "dark") return explicit;
    var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    return dark ? "dark" : "light";
  }

  function wireToggles() {
    var buttons = document.querySelectorAll(".theme-toggle");
    Array.prototype.forEach.call(buttons, function (button) {
      button.addEventListener("click", function () {
        var next = currentTheme() === "dark" ? "light" : "dark";
        document.documentElement.setAttribute("data-theme", next);
        button.setAttribute("aria-pressed", next === "dark" ? "true" : "false");
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", wireToggles);
  } else {
    wireToggles();
  }
})();
