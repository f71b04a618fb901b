/* The long article's own behaviour, on top of the Distill runtime:
 *   1. a scroll-spy that marks the d-contents link of the section being read "active";
 *   2. listeners on every d-figure's ready / onscreen / offscreen events;
 *   3. three HTML fragments fetched one after another after the load event, each holding a
 *      chart that is drawn here and highlights what the pointer is over.
 * No clocks are read and nothing random is used: the page depends only on scroll and pointer.
 * When every fragment is in, <html> gets data-fragments="done".
 */
(function () {
  'use strict';

  /* ---------------------------------------------------------------- 1. scroll-spy */
  var toc = document.querySelector('d-contents');
  var links = toc ? Array.prototype.slice.call(toc.querySelectorAll('a[href^="#"]')) : [];
  var targets = links.map(function (a) { return document.getElementById(a.getAttribute('href').slice(1)); });
  var activeIndex = -1;

  function keepVisible(link) {
    // the sticky contents column scrolls on its own when it is taller than the window
    if (!toc || toc.scrollHeight <= toc.clientHeight) return;
    var top = link.getBoundingClientRect().top - toc.getBoundingClientRect().top + toc.scrollTop;
    if (top < toc.scrollTop || top + link.offsetHeight > toc.scrollTop + toc.clientHeight) {
      toc.scrollTop = Math.max(0, top - toc.clientHeight / 3);
    }
  }

  function spy() {
    var current = 0;
    for (var i = 0; i < targets.length; i++) {
      if (targets[i] && targets[i].getBoundingClientRect().top <= 120) current = i;
    }
    if (current === activeIndex) return;
    activeIndex = current;
    for (var j = 0; j < links.length; j++) links[j].classList.toggle('active', j === current);
    keepVisible(links[current]);
  }

  if (links.length) {
    window.addEventListener('scroll', spy, { passive: true });
    window.addEventListener('resize', spy);
    window.addEventListener('load', spy);
    spy();
  }

  /* ---------------------------------------------------------------- 2. d-figure events */
  Array.prototype.forEach.call(document.querySelectorAll('d-figure'), function (figure) {
    var state = figure.querySelector('.fig-state');
    var shown = 0;
    function say(text) { if (state) state.textContent = text; }
    figure.addEventListener('ready', function () {
      figure.setAttribute('data-ready', '');
    });
    figure.addEventListener('onscreen', function () {
      shown += 1;
      figure.classList.add('is-onscreen');
      say('on screen (' + shown + (shown === 1 ? ' time)' : ' times)'));
    });
    figure.addEventListener('offscreen', function () {
      figure.classList.remove('is-onscreen');
      say('off screen');
    });
  });

  /* ---------------------------------------------------------------- 3. fragments and charts */
  var SVG = 'http://www.w3.org/2000/svg';

  function node(name, attrs, parent, text) {
    var el = document.createElementNS(SVG, name);
    for (var k in attrs) el.setAttribute(k, attrs[k]);
    if (text !== undefined) el.textContent = text;
    if (parent) parent.appendChild(el);
    return el;
  }

  function nums(text) { return text.split(',').map(Number); }

  function hover(items, readout, idle) {
    items.forEach(function (item) {
      item.el.addEventListener('mouseenter', function () {
        items.forEach(function (other) { other.el.classList.toggle('hot', other === item); });
        readout.textContent = item.say;
      });
      item.el.addEventListener('mouseleave', function () {
        item.el.classList.remove('hot');
        readout.textContent = idle;
      });
    });
  }

  function barChart(fig, svg, readout, idle) {
    var labels = fig.dataset.labels.split('|');
    var values = nums(fig.dataset.values);
    var unit = fig.dataset.unit;
    var max = Number(fig.dataset.max);
    var W = 640, H = 260, left = 52, top = 12, bottom = 36;
    var y = function (v) { return top + (H - top - bottom) * (1 - v / max); };
    var slot = (W - left - 12) / values.length;
    node('line', { x1: left, y1: y(0), x2: W - 6, y2: y(0), 'class': 'axis' }, svg);
    for (var t = 0; t <= 4; t++) {
      node('text', { x: left - 8, y: y(max * t / 4) + 4, 'text-anchor': 'end', 'class': 'tick' }, svg, String(max * t / 4));
    }
    if (fig.dataset.limit) {
      node('line', { x1: left, y1: y(+fig.dataset.limit), x2: W - 6, y2: y(+fig.dataset.limit), 'class': 'limit' }, svg);
    }
    var items = values.map(function (v, i) {
      var x = left + i * slot + slot * 0.18;
      var bar = node('rect', { x: x, y: y(v), width: slot * 0.64, height: y(0) - y(v), 'class': 'mark' }, svg);
      node('text', { x: x + slot * 0.32, y: H - 12, 'text-anchor': 'middle', 'class': 'tick' }, svg, labels[i]);
      return { el: bar, say: labels[i] + ': ' + v + ' ' + unit };
    });
    hover(items, readout, idle);
  }

  function lineChart(fig, svg, readout, idle) {
    var xs = nums(fig.dataset.x);
    var series = fig.dataset.series.split(';').map(function (s) {
      var parts = s.split(':');
      return { name: parts[0], values: nums(parts[1]) };
    });
    var max = Number(fig.dataset.max);
    var W = 640, H = 260, left = 52, top = 12, bottom = 36, right = 90;
    var x = function (i) { return left + (W - left - right) * i / (xs.length - 1); };
    var y = function (v) { return top + (H - top - bottom) * (1 - v / max); };
    node('line', { x1: left, y1: y(0), x2: W - right, y2: y(0), 'class': 'axis' }, svg);
    xs.forEach(function (v, i) {
      node('text', { x: x(i), y: H - 12, 'text-anchor': 'middle', 'class': 'tick' }, svg, String(v));
    });
    for (var t = 0; t <= 4; t++) {
      node('text', { x: left - 8, y: y(max * t / 4) + 4, 'text-anchor': 'end', 'class': 'tick' }, svg, (max * t / 4).toFixed(2));
    }
    // end-of-line labels, pushed apart so that close curves stay readable
    var labelY = series.map(function (s) { return y(s.values[s.values.length - 1]) + 4; });
    var order = labelY.map(function (v, i) { return i; }).sort(function (a, b) { return labelY[b] - labelY[a]; });
    for (var n = 1; n < order.length; n++) {
      labelY[order[n]] = Math.min(labelY[order[n]], labelY[order[n - 1]] - 14);
    }
    var items = series.map(function (s, k) {
      var points = s.values.map(function (v, i) { return x(i).toFixed(1) + ',' + y(v).toFixed(1); }).join(' ');
      var g = node('g', { 'class': 'series series-' + k }, svg);
      node('polyline', { points: points, 'class': 'mark-line' }, g);
      s.values.forEach(function (v, i) { node('circle', { cx: x(i), cy: y(v), r: 4, 'class': 'mark-dot' }, g); });
      node('text', { x: W - right + 8, y: labelY[k], 'class': 'tick' }, g, s.name);
      return { el: g, say: s.name + ': ' + s.values.map(function (v) { return v.toFixed(2); }).join(', ') };
    });
    hover(items, readout, idle);
  }

  function gridChart(fig, svg, readout, idle) {
    var rows = fig.dataset.rows.split('|');
    var cols = fig.dataset.cols.split('|');
    var cells = nums(fig.dataset.cells);
    var top_ = Math.log(1 + Math.max.apply(null, cells));
    var unit = fig.dataset.unit;
    var W = 640, left = 120, top = 28, cw = (W - left - 8) / cols.length, ch = 34;
    cols.forEach(function (c, j) {
      node('text', { x: left + cw * (j + 0.5), y: 18, 'text-anchor': 'middle', 'class': 'tick' }, svg, c);
    });
    var items = [];
    rows.forEach(function (r, i) {
      node('text', { x: left - 10, y: top + ch * (i + 0.5) + 4, 'text-anchor': 'end', 'class': 'tick' }, svg, r);
      cols.forEach(function (c, j) {
        var v = cells[i * cols.length + j];
        var shade = Math.round(235 - 150 * Math.log(1 + v) / top_);  // log scale: values span decades
        var cell = node('rect', {
          x: left + cw * j + 1, y: top + ch * i + 1, width: cw - 2, height: ch - 2,
          fill: 'rgb(' + shade + ',' + (shade + 10) + ',245)', 'class': 'mark-cell'
        }, svg);
        items.push({ el: cell, say: r + ', ' + c + ': ' + v + ' ' + unit });
      });
    });
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + (top + ch * rows.length + 8));
    hover(items, readout, idle);
  }

  var DRAW = { bar: barChart, line: lineChart, grid: gridChart };

  function draw(fig) {
    var area = fig.querySelector('.lchart-area');
    var readout = fig.querySelector('.lchart-readout');
    var idle = readout.textContent;
    var svg = node('svg', { viewBox: '0 0 640 260', role: 'img', 'aria-label': fig.dataset.title || 'chart' });
    area.appendChild(svg);
    DRAW[fig.dataset.kind](fig, svg, readout, idle);
  }

  function later(ms) { return new Promise(function (done) { setTimeout(done, ms); }); }

  function place(slot) {
    return fetch(slot.dataset.src).then(function (response) {
      if (!response.ok) throw new Error(slot.dataset.src + ': HTTP ' + response.status);
      return response.text();
    }).then(function (html) {
      slot.innerHTML = html;
      slot.classList.add('filled');
      Array.prototype.forEach.call(slot.querySelectorAll('.lchart'), draw);
    });
  }

  window.addEventListener('load', function () {
    var slots = Array.prototype.slice.call(document.querySelectorAll('.fragment-slot[data-src]'));
    var chain = later(400);
    slots.forEach(function (slot, i) {
      chain = chain.then(function () { return place(slot); }).then(function () {
        return i < slots.length - 1 ? later(250) : null;
      });
    });
    chain.then(function () {
      document.documentElement.setAttribute('data-fragments', 'done');
    });
  });
})();
