/* specimen.js: the only script the specimen article runs besides KaTeX.
 *
 * There is no Distill runtime here (it would come from a CDN), so this file does the
 * little the page needs, and nothing the theme's CSS should do:
 *   - <d-math>          -> KaTeX markup (display mode when the element has `block`)
 *   - <d-code block>    -> <pre><code> with a few token classes (.tok-kw .tok-str .tok-com .tok-num)
 *   - every upgraded element gets `data-ready`; when all are done,
 *     <html data-typeset="done"> tells the capture engine the page is stable.
 *   - .theme-toggle flips <html data-theme> between "light" and "dark".
 * Deterministic on purpose: no clock, no randomness, no network, no storage.
 */
(function () {
  "use strict";

  var KEYWORDS = {
    python: "and as assert async await break class continue def del elif else except False finally for " +
      "from global if import in is lambda None nonlocal not or pass raise return True try while with yield",
    bash: "case do done elif else esac export fi for function if in local return then until while"
  };

  // One left-to-right scan: comment | string | number | word. Anything else is copied as text.
  var TOKEN = /(#[^\n]*)|("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|(\b\d+(?:\.\d+)?(?:e[+-]?\d+)?\b)|([A-Za-z_][A-Za-z0-9_]*)/g;

  function escapeHtml(text) {
    return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function span(cls, text) {
    return '<span class="' + cls + '">' + escapeHtml(text) + "</span>";
  }

  function highlight(source, language) {
    var words = (KEYWORDS[language] || "").split(" ");
    var out = "";
    var last = 0;
    var match;
    TOKEN.lastIndex = 0;
    while ((match = TOKEN.exec(source)) !== null) {
      out += escapeHtml(source.slice(last, match.index));
      if (match[1]) out += span("tok-com", match[1]);
      else if (match[2]) out += span("tok-str", match[2]);
      else if (match[3]) out += span("tok-num", match[3]);
      else if (words.indexOf(match[4]) >= 0) out += span("tok-kw", match[4]);
      else out += escapeHtml(match[4]);
      last = TOKEN.lastIndex;
    }
    return out + escapeHtml(source.slice(last));
  }

  // Authors indent code to match the HTML around it; strip the shared indent and the
  // blank first/last lines so the rendered block starts at column 0.
  function dedent(text) {
    var lines = text.replace(/\t/g, "    ").split("\n");
    while (lines.length && !lines[0].trim()) lines.shift();
    while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
    var indent = Infinity;
    lines.forEach(function (line) {
      if (line.trim()) indent = Math.min(indent, line.match(/^ */)[0].length);
    });
    if (indent === Infinity) indent = 0;
    return lines.map(function (line) { return line.slice(indent); }).join("\n");
  }

  function upgradeCode(el) {
    if (el.hasAttribute("block")) {
      var language = el.getAttribute("language") || "";
      var source = dedent(el.textContent);
      el.innerHTML = "<pre><code" + (language ? ' class="language-' + escapeHtml(language) + '"' : "") +
        ">" + highlight(source, language) + "</code></pre>";
    }
    el.setAttribute("data-ready", "");
  }

  function upgradeMath(el) {
    var tex = el.textContent.trim();
    if (window.katex) {
      window.katex.render(tex, el, { displayMode: el.hasAttribute("block"), throwOnError: false });
    }
    el.setAttribute("data-ready", "");
  }

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

  function upgradeAll() {
    var pending = document.querySelectorAll("d-code:not([data-ready]), d-math:not([data-ready])");
    Array.prototype.forEach.call(pending, function (el) {
      if (el.localName === "d-math") upgradeMath(el);
      else upgradeCode(el);
    });
    wireToggles();
    // Without KaTeX the maths is still raw TeX, so say so instead of claiming "done".
    document.documentElement.dataset.typeset = window.katex ? "done" : "failed";
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", upgradeAll);
  } else {
    upgradeAll();
  }
})();
