// The review page's script, put inline in index.html by theme/review/report.py: cards,
// filters, views (side by side, slider, blink, diff) and keys, from REPORT (report.json,
// written in for the DATA mark below); served by `theme review` (theme/review/server.py),
// Accept, Reject and Undo too. Opened as a plain file, it needs no network.
"use strict";
const REPORT = /*DATA*/null;
const FILTERS = [["status","status"],["page","page"],["viewport","viewport"],["scheme","scheme"],["region_key","region"]];
const WHOLE_PAGE = "(whole page)";  // the region filter's name for page images (region_key "")
const facet = (e, field) => field === "region_key" ? (e.region_key || (e.page ? WHOLE_PAGE : "")) : (e[field] || "");
const el = (tag, attrs = {}, ...kids) => { const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) { if (k === "text") n.textContent = v; else n.setAttribute(k, v); }
  for (const k of kids) n.append(k); return n; };

function numbers(e) { const d = e.diff; if (!d) return "";
  let s = `${d.diff_pixels.toLocaleString("en")} px differ (${(100 * d.ratio).toFixed(3)} %)`;
  if (d.size_mismatch) s += `, size ${d.expected_size.join("×")} → ${d.actual_size.join("×")}`;
  return s; }

function where(e) { return e.region_key ? `${e.region_key}${e.heading ? ` in “${e.heading}”` : ""}${e.selector ? " — " + e.selector : ""}` : "whole page"; }

// `im`: kind -> image of one card, or of one changed band of a page; `label` names it in alt texts.
function view(im, label, mode, zoom) {
  const z = `scale(${zoom})`;
  // Zoom scales each image, except in the slider, where the pair is scaled as one so that
  // the top layer's width (a percentage of the pair) still cuts the picture where the range says.
  const img = (k, zoomed = true) => { const i = el("img", {src: im[k], alt: `${k} ${label}`, "data-kind": k}); if (zoomed) i.style.transform = z; return i; };
  // Side by side is scaled as one (so the images stay aligned at any zoom), and fitted to
  // the card's width first (fitSide): a wide pair is shrunk to be seen whole, never cut off.
  if (mode === "side") { const box = el("div", {class: "side"}, ...["expected","actual","diff","band"].filter(k => im[k]).map(k => el("figure", {}, el("figcaption", {text: k}), img(k, false))));
    box.style.transform = z; return box; }
  if (mode === "diff") return im.diff ? img("diff") : el("p", {text: "no diff image"});
  if (mode === "slider") { if (!im.expected || !im.actual) return el("p", {text: "slider needs expected and actual"});
    const wrap = el("div", {class: "slider"}), top = el("div", {class: "top"}), range = el("input", {type: "range", min: "0", max: "100", value: "50", "aria-label": "slider position"});
    top.append(img("expected", false)); wrap.append(img("actual", false), top); wrap.style.transform = z;
    const move = () => { top.style.width = range.value + "%"; }; range.addEventListener("input", move); move();
    return el("div", {}, range, wrap); }
  if (mode === "blink") { if (!im.expected || !im.actual) return el("p", {text: "blink needs expected and actual"});
    const i = img("expected"); let on = false; i.dataset.blink = "1";
    i._timer = setInterval(() => { if (!document.body.contains(i)) return clearInterval(i._timer); on = !on; i.src = on ? im.actual : im.expected; i.dataset.kind = on ? "actual" : "expected"; }, 600);
    return i; }
  return el("span");
}

function fitSide(stage) {
  const box = stage.querySelector(".side"); if (!box) return;
  const imgs = [...box.querySelectorAll("img")], apply = () => {
    const natural = imgs.reduce((sum, i) => sum + i.naturalWidth, 0), room = stage.clientWidth - 8 * imgs.length - 2;
    if (natural && room > 0) box.style.zoom = String(Math.min(1, room / natural)); };
  for (const i of imgs) i.addEventListener("load", apply);
  new ResizeObserver(apply).observe(stage); apply();
}

function card(e) {
  const c = el("section", {class: "card", "data-key": e.key});
  for (const [field] of FILTERS) c.dataset[field] = facet(e, field);
  c.append(el("h2", {}, el("span", {class: "status", text: e.status}), e.key));
  const bands = e.bands || [], page = bands.length > 0 || !!e.overview;
  // The failed rule already says how many pixels differ; the bare numbers are for the rest.
  const meta = [where(e), e.diff && e.diff.failed_rule ? e.diff.failed_rule : numbers(e)].filter(Boolean).join(" · ");
  c.append(el("div", {class: "meta", text: meta}));
  if (e.why) c.append(el("div", {class: "meta why", text: "why: " + e.why}));  // in CSS terms (theme/baselines/style_record.py)
  for (const line of e.attribution || []) if (line !== e.why) c.append(el("div", {class: "meta", text: "in: " + line}));
  const shifts = e.diff && e.diff.shifts ? e.diff.shifts : [];
  if (page && shifts.some(s => typeof s === "object" && s.by)) c.append(shiftTable(e));
  else if (shifts.length) c.append(el("div", {class: "meta", text: "shifts: " + shifts.map(s => typeof s === "string" ? s : (s.text || JSON.stringify(s))).join("; ")}));
  if (!page && !Object.keys(e.images || {}).length) { if (e.message) c.append(el("pre", {class: "msg", text: e.message})); return c; }
  const modes = [["side","side by side"],["slider","slider"],["blink","blink"],["diff","diff only"]];
  const bar = el("div", {class: "views"});
  // A page shows each changed band in its own stage (all in the same view), beside an overview
  // of the whole page with the bands marked; any other image is one stage.
  const shown = page ? bands.map((b, i) => ({im: b.images, label: `${e.key} band ${i + 1}`, stage: el("div", {class: "stage"})}))
                            .filter(s => Object.keys(s.im).length)
                     : [{im: e.images, label: e.key, stage: el("div", {class: "stage"})}];
  let mode = "side", zoom = 1;
  const zoomIn = el("input", {type: "range", min: "0.25", max: "4", step: "0.25", value: "1", "aria-label": "zoom"});
  const render = () => { for (const s of shown) { s.stage.replaceChildren(view(s.im, s.label, mode, zoom)); fitSide(s.stage); }
    for (const b of bar.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.dataset.mode === mode)); };
  c.view = (m) => { mode = m; render(); };  // keys 1-4 (keyboard())
  for (const [m, label] of modes) { const b = el("button", {type: "button", "data-mode": m, text: label}); b.addEventListener("click", () => c.view(m)); bar.append(b); }
  zoomIn.addEventListener("input", () => { zoom = Number(zoomIn.value); render(); });
  bar.append(" zoom ", zoomIn);
  c.append(bar, page ? pageView(e, shown) : shown[0].stage); render();
  if (e.message) c.append(el("pre", {class: "msg", text: e.message}));
  return c;
}

// A page's shifts (theme/pixels/diff/shift.py): where content moved and by how much, drawn on its
// overview (pageView) and listed in a table, each with the group (theme/check/causes.py) of
// the failed region it starts in or just below, on the same page: the likely cause.
const GROUP_OF = new Map();  // key -> its group, filled by init()
const NEAR = 48;  // px below a region's bottom where a shift it caused may start (its margin)
const signed = (v) => (v > 0 ? "+" : "") + v;
function causeOf(e, y) {
  const folder = e.key.split("/").slice(0, 2).join("/") + "/";
  let best = null;
  for (const o of REPORT.entries) {
    const b = o.expected_box || o.box, g = GROUP_OF.get(o.key);
    if (!b || !g || !o.region_key || !o.key.startsWith(folder) || g.cause === "moved" || g.cause === "page") continue;
    // y inside the region (its caption grew) or just below it: the innermost such region.
    if (b[1] <= y + 2 && y - (b[1] + b[3]) <= NEAR && (!best || b[1] > best.top)) best = {top: b[1], g};
  }
  return best ? best.g : null;
}
function moves(e) { return (e.diff && e.diff.shifts || []).filter(s => typeof s === "object" && s.by); }
function shiftTable(e) {
  const rows = moves(e).map(s => { const g = causeOf(e, s.y);
    return el("tr", {}, el("td", {text: String(s.y)}), el("td", {text: `${signed(s.by)} px`}),
      el("td", {}, g ? el("a", {href: `#group-${g.number}`, text: `group ${g.number}`}) : "—")); });
  return el("details", {class: "meta shifts"}, el("summary", {text: `content moved at ${rows.length} ${rows.length === 1 ? "place" : "places"}: where, by how much, and the likely cause`}),
    el("table", {}, el("tr", {}, el("th", {text: "below y"}), el("th", {text: "moved"}), el("th", {text: "likely cause"})), ...rows));
}

// The page's overview (scaled down, a mark per changed band: click to go there) and its bands,
// each captioned with its rows in the actual and the expected page. Bands past the report's
// size budget have no crops: marked dimmer, and counted in one line.
function pageView(e, shown) {
  const o = e.overview, bands = e.bands || [], wrap = el("div", {class: "page"}), list = el("div", {class: "bands"});
  const boxes = {}, stages = new Map(shown.map(s => [s.label, s.stage]));
  bands.forEach((b, i) => { const stage = stages.get(`${e.key} band ${i + 1}`); if (!stage) return;
    const ex = b.expected_rows, text = `band ${i + 1} of ${bands.length}: actual rows ${b.rows[0]}–${b.rows[1]}`
      + (ex ? `, expected rows ${ex[0]}–${ex[1]}` : "") + (b.columns ? `, columns ${b.columns[0]}–${b.columns[1]}` : "");
    boxes[i] = el("div", {class: "band", "data-band": String(i + 1)}, el("div", {class: "meta", text}), stage);
    list.append(boxes[i]); });
  const hidden = bands.length - Object.keys(boxes).length;
  if (hidden) list.append(el("p", {class: "meta more", text: `${hidden} less changed band(s) of ${bands.length} are only marked on the overview: `
    + "the full-size images are in the artefacts folder (config artifacts, or the run's visual-artifacts artefact)"}));
  if (!bands.length) list.append(el("p", {class: "meta", text: "no changed band to show: the full-size images are in the artefacts folder"}));
  if (o) { const map = el("div", {class: "overview"}), pic = el("div", {class: "map"});
    pic.append(el("img", {src: o.image, alt: `overview of ${e.key}`, "data-kind": "overview"}));
    bands.forEach((b, i) => { const m = el("a", {class: boxes[i] ? "mark" : "mark unshown", href: "#", title: `band ${i + 1}: rows ${b.rows[0]}–${b.rows[1]}`});
      m.dataset.band = String(i + 1);
      m.style.top = `${100 * b.rows[0] / o.height}%`; m.style.height = `${100 * (b.rows[1] - b.rows[0]) / o.height}%`;
      m.addEventListener("click", (ev) => { ev.preventDefault(); if (boxes[i]) boxes[i].scrollIntoView({block: "start"}); }); pic.append(m); });
    for (const s of moves(e)) { const g = causeOf(e, s.y);
      const tick = el("span", {class: "shift", title: s.text + (g ? ` (group ${g.number})` : ""), text: signed(s.by) + (g ? ` g${g.number}` : "")});
      tick.style.top = `${100 * s.y / o.height}%`; pic.append(tick); }
    map.append(pic, el("div", {class: "meta", text: `1:${o.scale}`})); wrap.append(map); }
  wrap.append(list); return wrap;
}

function applyFilters() {
  const active = {}; for (const s of document.querySelectorAll("#filters select")) if (s.value) active[s.name] = s.value;
  for (const c of document.querySelectorAll(".card")) c.classList.toggle("hidden", Object.entries(active).some(([k, v]) => c.dataset[k] !== v));
}

function init() {
  const entries = REPORT.entries.filter(e => e.status !== "matched");
  document.getElementById("counts").append(...Object.entries(REPORT.counts).sort().map(([k, v]) => el("span", {text: `${v} ${k}`})));
  const moved = REPORT.entries.filter(e => e.realigned).length;  // theme/check/phase.py
  if (moved) { const m = document.getElementById("realigned"); m.classList.remove("hidden");
    m.textContent = `${moved} matched only at their baseline's sub-pixel position (content above them moved by a fraction of a pixel)`; }
  const revs = (REPORT.environment || {}).revisions;  // written by `theme compare`
  if (revs) { const r = document.getElementById("revisions"); const side = (s) => `${s.ref} (${(s.commit || "").slice(0, 10)})`;
    r.textContent = `base ${side(revs.base)} → head ${side(revs.head)}`; r.classList.remove("hidden"); }
  if (REPORT.drift) { const b = document.getElementById("drift"); b.textContent = "⚠️ " + REPORT.drift; b.classList.remove("hidden"); }
  const f = document.getElementById("filters");
  for (const [field, label] of FILTERS) {
    const values = [...new Set(entries.map(e => facet(e, field)).filter(Boolean))].sort();
    const s = el("select", {name: field}); s.append(el("option", {value: "", text: "all"}), ...values.map(v => el("option", {value: v, text: v})));
    s.addEventListener("change", applyFilters); f.append(el("label", {}, label, s));
  }
  // The story first (issue 49): the first group by cause, the rule most failures follow from.
  const groups = REPORT.groups || [];
  if (groups.length) {
    const story = document.getElementById("story"), more = groups.length - 1;
    story.append(el("a", {href: `#group-${groups[0].number}`, text: `${groups[0].number}. ${groups[0].summary}`}),
                 ...(more ? [el("span", {class: "meta", text: ` and ${more} more group${more > 1 ? "s" : ""} below`})] : []));
    story.classList.remove("hidden");
  }
  const main = document.getElementById("cards");
  if (!entries.length) main.append(el("p", {text: "Nothing to review: every image matched its baseline."}));
  for (const g of REPORT.groups || []) for (const k of g.ids) GROUP_OF.set(k, g);
  // Failures grouped by cause (theme/check/causes.py) first, each heading its cards; then the rest.
  const byKey = new Map(entries.map(e => [e.key, e])), placed = new Set();
  for (const g of REPORT.groups || []) {
    const own = g.ids.filter(k => byKey.has(k) && !placed.has(k));
    if (!own.length) continue;
    const sec = el("section", {class: "group", id: `group-${g.number}`}, el("h2", {text: `${g.number}. ${g.summary}`}));
    sec.dataset.group = String(g.number);
    for (const k of own) { placed.add(k); const c = card(byKey.get(k)); c.dataset.group = String(g.number); sec.append(c); }
    main.append(sec);
  }
  for (const e of entries) if (!placed.has(e.key)) main.append(card(e));
  keyboard();
  reviewMode();
}

// Served by `theme review` (its api answers): Accept / Reject / Undo. Opened as a file: views only.
async function reviewMode() {
  let state;
  try { const r = await fetch("api/state", {cache: "no-store"}); if (!r.ok) return; state = await r.json(); } catch (_) { return; }
  const reviewable = new Set(state.reviewable), error = document.getElementById("review-error");
  const send = async (path, body) => {
    const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body || {})});
    const data = await r.json();
    if (!r.ok) { error.textContent = data.error || r.statusText; return; }
    error.textContent = ""; state = data; paint(); };
  const decide = (keys, verdict) => keys.length && send("api/decide", {keys, verdict});
  const button = (text, act) => { const b = el("button", {type: "button", text}); b.addEventListener("click", act); return b; };
  const cards = () => [...document.querySelectorAll(".card")].filter(c => reviewable.has(c.dataset.key));
  const variantOf = (c) => `${c.dataset.page}[${c.dataset.viewport}-${c.dataset.scheme}]`;
  for (const c of cards()) {
    const key = c.dataset.key, region = c.dataset.region_key, variant = variantOf(c);
    c.decide = (verdict) => decide([key], verdict);
    c.insertBefore(el("div", {class: "decide"},
      button("Accept", () => c.decide("accepted")), button("Reject", () => c.decide("rejected")),
      button(`Accept every ${region}`, () => decide(cards().filter(o => o.dataset.region_key === region).map(o => o.dataset.key), "accepted")),
      button(`Accept all of ${variant}`, () => decide(cards().filter(o => variantOf(o) === variant).map(o => o.dataset.key), "accepted")),
      el("span", {class: "meta decision"})), c.querySelector(".views"));
  }
  for (const sec of document.querySelectorAll(".group")) {
    const n = sec.dataset.group, mine = () => cards().filter(c => c.dataset.group === n).map(c => c.dataset.key);
    sec.insertBefore(el("div", {class: "decide"}, button(`Accept group ${n}`, () => decide(mine(), "accepted")),
      button(`Reject group ${n}`, () => decide(mine(), "rejected"))), sec.querySelector(".card"));
  }
  const shown = () => cards().filter(c => !c.classList.contains("hidden")).map(c => c.dataset.key);
  document.getElementById("accept-shown").addEventListener("click", () => decide(shown(), "accepted"));
  document.getElementById("reject-shown").addEventListener("click", () => decide(shown(), "rejected"));
  document.getElementById("undo").addEventListener("click", () => send("api/undo"));
  const paint = () => {
    for (const c of cards()) { const d = state.decisions[c.dataset.key] || "";
      if (d) c.dataset.decision = d; else delete c.dataset.decision;
      c.querySelector(".decision").textContent = d; }
    document.getElementById("progress").textContent = `${state.reviewed} of ${state.total} reviewed`;
    document.getElementById("undo").disabled = !state.can_undo;
    const commit = document.getElementById("commit");
    commit.classList.toggle("hidden", !(state.commit && state.reviewed === state.total));
    commit.querySelector("code").textContent = state.commit || "";
    if (state.conflict) error.textContent = "accepting is refused: " + state.conflict; };
  document.getElementById("review").classList.remove("hidden");
  paint();
}

// j / k: next and previous card (of those the filters show); 1-4: its views.
function keyboard() {
  const MODES = {"1": "side", "2": "slider", "3": "blink", "4": "diff"};
  let at = -1;
  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ["INPUT", "SELECT", "TEXTAREA"].includes(ev.target.tagName)) return;
    const shown = [...document.querySelectorAll(".card:not(.hidden)")];
    if (!shown.length) return;
    if (ev.key === "j" || ev.key === "k") {
      const current = shown.indexOf(document.querySelector(".card.current"));
      at = Math.max(0, Math.min(shown.length - 1, (current < 0 ? (ev.key === "j" ? -1 : shown.length) : current) + (ev.key === "j" ? 1 : -1)));
      for (const c of document.querySelectorAll(".card.current")) c.classList.remove("current");
      shown[at].classList.add("current"); shown[at].scrollIntoView({block: "start"});
    } else if ((ev.key === "a" || ev.key === "r")) {  // accept / reject, when served by theme review
      const c = document.querySelector(".card.current:not(.hidden)") || shown[0];
      if (c.decide) c.decide(ev.key === "a" ? "accepted" : "rejected");
    } else if (MODES[ev.key]) {
      const c = document.querySelector(".card.current:not(.hidden)") || shown[0];
      if (c.view) c.view(MODES[ev.key]);
    }
  });
}
init();
