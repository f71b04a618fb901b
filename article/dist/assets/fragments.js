/* fragments.js: content the specimen fetches after its load event, as real articles do.
 *
 * Every element with data-fragment="URL" is filled with the HTML at URL, one after the
 * other in document order, once the page has loaded; the element then gets
 * data-fragment-state="done" (or "failed"), and when all are in, <html data-fragments="done">.
 * A fragment holding <figure class="ledger-chart" data-chart="model-state"> is drawn here as
 * an interactive SVG bar chart: model state per card for each ZeRO stage, with buttons that
 * switch the data-parallel degree and bars that report their value when hovered or focused.
 * Deterministic on purpose: no clock, no randomness, no timers; the chart is a pure
 * function of the numbers in its fragment and the width of the column it is drawn in
 * (read once, so that its text keeps its size on a phone).
 */
(function () {
  "use strict";

  var SVG = "http://www.w3.org/2000/svg";
  var H = 300, LEFT = 56, RIGHT = 16, TOP = 24, BOTTOM = 44;

  function el(name, attrs, parent) {
    var node = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (key) { node.setAttribute(key, String(attrs[key])); });
    if (parent) parent.appendChild(node);
    return node;
  }

  // Bytes per parameter on each card for the four layouts of the ZeRO section.
  function stages(degree) {
    return [
      { label: "No sharding", bytes: 16 },
      { label: "Stage 1", bytes: 4 + 12 / degree },
      { label: "Stage 2", bytes: 2 + 14 / degree },
      { label: "Stage 3", bytes: 16 / degree }
    ];
  }

  function drawChart(figure) {
    var params = Number(figure.getAttribute("data-params"));
    var limit = Number(figure.getAttribute("data-limit"));
    var max = Number(figure.getAttribute("data-max"));
    var area = figure.querySelector(".chart-area");
    var readout = figure.querySelector(".chart-readout");
    var buttons = Array.prototype.slice.call(figure.querySelectorAll("button[data-degree]"));
    var W = Math.max(320, Math.min(680, Math.round(area.getBoundingClientRect().width)));
    var plotH = H - TOP - BOTTOM;
    var y = function (gb) { return TOP + plotH * (1 - Math.min(gb, max) / max); };
    var svg = el("svg", { viewBox: "0 0 " + W + " " + H, role: "img",
                          "aria-label": "Bar chart of model state per card in gigabytes" });
    for (var t = 0; t <= max; t += 20) {
      el("line", { x1: LEFT, y1: y(t), x2: W - RIGHT, y2: y(t), "class": "chart-grid" }, svg);
      el("text", { x: LEFT - 8, y: y(t) + 4, "text-anchor": "end", "class": "chart-tick" }, svg).textContent = String(t);
    }
    el("text", { x: 14, y: TOP + plotH / 2, "text-anchor": "middle", "class": "chart-tick",
                 transform: "rotate(-90 14 " + (TOP + plotH / 2) + ")" }, svg).textContent = "GB per card";
    var slot = (W - LEFT - RIGHT) / 4;
    var bars = [], values = [], labels = [];
    stages(1).forEach(function (stage, i) {
      var x = LEFT + i * slot + slot * 0.22;
      var bar = el("rect", { x: x, y: y(0), width: slot * 0.56, height: 0, "class": "chart-bar", tabindex: 0 }, svg);
      var value = el("text", { x: x + slot * 0.28, y: y(0) - 6, "text-anchor": "middle", "class": "chart-value" }, svg);
      el("text", { x: x + slot * 0.28, y: H - BOTTOM + 22, "text-anchor": "middle", "class": "chart-label" }, svg)
        .textContent = stage.label;
      bars.push(bar);
      values.push(value);
      labels.push(stage.label);
    });
    el("line", { x1: LEFT, y1: y(limit), x2: W - RIGHT, y2: y(limit), "class": "chart-limit" }, svg);
    el("text", { x: W - RIGHT, y: y(limit) - 6, "text-anchor": "end", "class": "chart-limit-label" }, svg)
      .textContent = limit + " GB card";
    el("line", { x1: LEFT, y1: y(0), x2: W - RIGHT, y2: y(0), "class": "chart-axis" }, svg);
    area.appendChild(svg);

    var degree = 0, sizes = [];
    var idle = "Hover or focus a bar to read its value.";

    function show(degreeNow) {
      degree = degreeNow;
      sizes = stages(degree).map(function (stage) { return stage.bytes * params / 1e9; });
      sizes.forEach(function (gb, i) {
        bars[i].setAttribute("y", y(gb));
        bars[i].setAttribute("height", y(0) - y(gb));
        bars[i].classList.toggle("is-over", gb > limit);
        values[i].setAttribute("y", y(gb) - 6);
        values[i].textContent = gb.toFixed(1);
      });
      buttons.forEach(function (button) {
        button.setAttribute("aria-pressed", Number(button.getAttribute("data-degree")) === degree ? "true" : "false");
      });
      readout.textContent = idle;
    }

    bars.forEach(function (bar, i) {
      var on = function () {
        bars.forEach(function (other) { other.classList.toggle("is-hot", other === bar); });
        readout.textContent = labels[i] + " with d = " + degree + ": " + sizes[i].toFixed(1) + " GB of model state per card" +
          (sizes[i] > limit ? ", more than the card holds." : ".");
      };
      var off = function () {
        bar.classList.remove("is-hot");
        readout.textContent = idle;
      };
      bar.addEventListener("mouseenter", on);
      bar.addEventListener("focus", on);
      bar.addEventListener("mouseleave", off);
      bar.addEventListener("blur", off);
    });
    buttons.forEach(function (button) {
      button.addEventListener("click", function () { show(Number(button.getAttribute("data-degree"))); });
    });
    show(Number(figure.getAttribute("data-degree")));
  }

  function fill(slot) {
    var url = slot.getAttribute("data-fragment");
    return fetch(url).then(function (response) {
      if (!response.ok) throw new Error(url + ": HTTP " + response.status);
      return response.text();
    }).then(function (html) {
      slot.innerHTML = html;
      Array.prototype.forEach.call(slot.querySelectorAll('.ledger-chart[data-chart="model-state"]'), drawChart);
      slot.setAttribute("data-fragment-state", "done");
    }, function (error) {
      slot.setAttribute("data-fragment-state", "failed");
      throw error;
    });
  }

  window.addEventListener("load", function () {
    var slots = Array.prototype.slice.call(document.querySelectorAll("[data-fragment]"));
    slots.reduce(function (chain, slot) {
      return chain.then(function () { return fill(slot); });
    }, Promise.resolve()).then(function () {
      document.documentElement.setAttribute("data-fragments", "done");
    }, function (error) {
      document.documentElement.setAttribute("data-fragments", "failed");
      console.error(error);
    });
  });
})();
