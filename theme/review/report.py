"""Outcomes → a review folder: `index.html`, `report.json`, `summary.md`, and the images.

Pure except write(). Self-contained (no CDN, CSS and JS inline, images under images/<key stem>.*): a region's
images are copied whole, a page's changed bands cropped with an overview (theme/review/bands.py); its
full-size images stay in the artefacts folder, where `theme accept` looks for them (theme/review/accept.py).
"""

from __future__ import annotations

import html
import json
import os
import shutil
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..fsutil import atomic_write_text
from ..status import ORDER as STATUS_ORDER
from ..status import REVIEW as REVIEW_STATUSES
from ..check.entry import ARTEFACT_KINDS, Entry, cause_groups, group_json
from ..status import Status, unused_baselines

FORMAT = 1  # report.json's "format"
@dataclass(frozen=True)
class Report:
    entries: tuple[Entry, ...]
    environment: Mapping[str, Any] = field(default_factory=dict)
    drift: str | None = None  # one banner for the run, when baselines came from elsewhere
    collected: tuple[str, ...] = ()  # every key the run checked: merging shards finds unused ones
    pages: tuple[str, ...] = ()  # page folders the config owns
    unchecked: tuple[str, ...] = ()  # variant folders whose render failed: their baselines are not unused

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for e in self.entries:
            out[e.status] = out.get(e.status, 0) + 1
        return out

    def to_review(self) -> list[Entry]:
        return [e for e in self.entries if e.status in REVIEW_STATUSES]

    def needs_review(self) -> bool:
        return bool(self.to_review()) or any(e.status == Status.UNUSED for e in self.entries)


# ---------------------------------------------------------------- writing


def write(folder: Path, report: Report) -> Path:
    """Write the whole review folder; returns the path of index.html."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    entries = [_copy_images(folder, e) for e in sorted(report.entries, key=_order)]
    final = replace(report, entries=tuple(entries))
    atomic_write_text(folder / "report.json", to_json(final))
    atomic_write_text(folder / "summary.md", to_markdown(final))
    atomic_write_text(folder / "index.html", to_html(final))
    return folder / "index.html"


def append_step_summary(report: Report, env: Mapping[str, str] = os.environ) -> bool:
    """Append the Markdown summary to $GITHUB_STEP_SUMMARY when running in GitHub Actions."""
    target = env.get("GITHUB_STEP_SUMMARY")
    if not target:
        return False
    with open(target, "a", encoding="utf-8") as f:
        f.write(to_markdown(report))
    return True


def _order(e: Entry) -> tuple:
    rank = {s: i for i, s in enumerate(STATUS_ORDER)}
    return (rank.get(e.status, len(rank)), e.key)


def _copy_images(folder: Path, e: Entry) -> Entry:
    """Copy artefacts into images/ and rewrite paths relative to the report folder; a page's
    full-size images are cropped into bands instead (or, from another report, its bands copied)."""
    if e.bands or e.overview:
        return _copy_bands(folder, e)
    if e.is_page and ("actual" in e.images or "expected" in e.images):
        from . import bands  # numpy, Pillow: only when there is a page to crop

        full = {kind: _source(folder, src) for kind, src in e.images.items()}
        fields = bands.page_fields(folder, e.key[:-len(".png")],
                                           {k: p for k, p in full.items() if p is not None})
        return replace(e, images={}, **fields)
    copied = {}
    for kind, src in sorted(e.images.items()):
        src_path = Path(src)
        if src_path.is_absolute() or not (folder / src_path).exists():
            rel = Path("images") / f"{e.key[:-len('.png')]}.{kind}.png"
            if src_path.is_file():
                (folder / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src_path, folder / rel)
                copied[kind] = rel.as_posix()
        else:
            copied[kind] = src_path.as_posix()
    return Entry(**{**asdict(e), "images": copied})


def _source(folder: Path, src: str) -> Path | None:
    path = Path(src) if Path(src).is_absolute() else folder / src
    return path if path.is_file() else None


def _copy_bands(folder: Path, e: Entry) -> Entry:
    """Bands and overview of a report being merged (absolute paths) copied into `folder`."""
    def copy(src: str) -> str:
        path = Path(src)
        if not path.is_absolute():
            return src
        rel = Path("images") / Path(e.key).parent / path.name
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, folder / rel)
        return rel.as_posix()

    bands = tuple({**b, "images": {k: copy(v) for k, v in b["images"].items()}} for b in e.bands)
    overview = {**e.overview, "image": copy(e.overview["image"])} if e.overview else None
    patch = {**e.patch, "image": copy(e.patch["image"])} if e.patch and e.patch.get("image") else e.patch
    return replace(e, bands=bands, overview=overview, patch=patch)


# ---------------------------------------------------------------- formats


def to_json(report: Report) -> str:
    data = {
        "format": FORMAT,
        "counts": report.counts(),
        "environment": dict(report.environment),
        "drift": report.drift,
        "collected": list(report.collected),
        "pages": list(report.pages),
        "unchecked": list(report.unchecked),
        "entries": [asdict(e) for e in report.entries],
        "groups": [group_json(g) for g in cause_groups(report.entries)],  # failures by cause
    }
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def from_json(text: str) -> Report:
    data = json.loads(text)
    if data.get("format") != FORMAT:
        raise ValueError(f"unknown report format {data.get('format')!r}")
    return Report(tuple(Entry.from_json(e) for e in data["entries"]), data.get("environment", {}),
                  data.get("drift"), tuple(data.get("collected", ())), tuple(data.get("pages", ())),
                  tuple(data.get("unchecked", ())))


def _numbers(e: Entry) -> str:
    d = e.diff or {}
    if not d:
        return ""
    parts = [f"{d.get('diff_pixels', 0):,} px ({100 * d.get('ratio', 0):.3f} %)"]
    if d.get("size_mismatch"):
        parts.append(f"size {_size(d.get('expected_size'))} → {_size(d.get('actual_size'))}")
    return ", ".join(parts)


def _size(s: Any) -> str:
    return f"{s[0]}×{s[1]}" if s else "?"


def _where(e: Entry) -> str:
    if e.attribution:
        return "; ".join(e.attribution[:3]) + (f"; +{len(e.attribution) - 3} more" if len(e.attribution) > 3 else "")
    if not e.region_key:
        return "whole page"
    return f"{e.region_key} in “{e.heading}”" if e.heading else e.region_key


def to_markdown(report: Report) -> str:
    """Counts, then one row per image to review; usable as a step summary or PR comment."""
    counts = report.counts()
    line = " · ".join(f"**{counts[s]}** {s}" for s in STATUS_ORDER if counts.get(s))
    out = ["## Visual check", "", line or "no images checked", ""]
    realigned = sum(1 for e in report.entries if e.realigned)
    if realigned:
        out += [f"{realigned} matched only at their baseline's sub-pixel position: content above them "
                "moved by a fraction of a pixel, and they were re-rendered where their baselines were.", ""]
    if report.drift:
        out += [f"> ⚠️ {report.drift}", ""]
    out += _groups_md(report)
    review = report.to_review()
    if review:
        out += ["| status | image | where | difference | files |", "|---|---|---|---|---|"]
        for e in review:
            files = " · ".join(f"`{e.images[k]}`" for k in ARTEFACT_KINDS if k in e.images) or _band_files(e)
            rule = (e.diff or {}).get("failed_rule") or _numbers(e)
            out.append(f"| {e.status} | `{e.key}` | {_md(_where(e))} | {_md(rule)} | {files} |")
        out.append("")
    unused = [e.key for e in report.entries if e.status == Status.UNUSED]
    if unused:
        out += ["Unused baselines:", *[f"- `{k}`" for k in unused], ""]
    return "\n".join(out) + "\n"


def _groups_md(report: Report) -> list[str]:
    """The failures grouped by cause, first: one story per change, however many images it reached."""
    groups = cause_groups(report.entries)
    if not groups:
        return []
    out = ["**Failures by cause**", ""]
    for g in groups:
        more = f" and {g.count - 3} more" if g.count > 3 else ""
        ids = ", ".join(f"`{i}`" for i in g.ids[:3])
        out.append(f"{g.number}. {_md(g.summary)}  \n   {ids}{more}")
    return out + [""]


def _band_files(e: Entry) -> str:
    """A page's files: its band crops; the full-size images are in the artefacts folder."""
    if not e.bands:
        return f"`{e.overview['image']}`" if e.overview else ""
    return f"{len(e.bands)} changed band(s): " + " · ".join(f"`{b['images']['diff']}`" for b in e.bands[:3]
                                                              if "diff" in b["images"])


def _md(text: str) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ")


def to_html(report: Report) -> str:
    # "<" written as \u003c: a message holding "</script>" or "<!--" cannot end the script early
    data = json.dumps(json.loads(to_json(report)), sort_keys=True).replace("<", "\\u003c")
    # the title first: a "{{TITLE}}" inside the data must stay as it was written
    return _PAGE.replace("{{TITLE}}", html.escape(_title(report))).replace("/*DATA*/null", data)


def _title(report: Report) -> str:
    counts = report.counts()
    extra = "".join(f", {counts[s]} {s}" for s in ("added", "removed") if counts.get(s))
    return f"Visual check: {counts.get('failed', 0)} failed, {counts.get('created', 0)} created, " \
           f"{counts.get('updated', 0)} updated{extra}"


def merge(reports: Iterable[Report], baselines: Iterable[str] | None = None) -> Report:
    """One report from several shards: entries by key (a later shard wins), first environment.

    With `baselines` (every key in snapshots/), baselines under the shards' pages
    that no shard checked are added as "unused": only the merged view can know.
    """
    by_key: dict[str, Entry] = {}
    env: Mapping[str, Any] = {}
    drift = None
    collected: set[str] = set()
    pages: set[str] = set()
    unchecked: set[str] = set()
    for r in reports:
        env = env or r.environment
        drift = drift or r.drift
        collected |= set(r.collected)
        pages |= set(r.pages)
        unchecked |= set(r.unchecked)
        for e in r.entries:
            by_key[e.key] = e
    for key in unused_baselines(baselines or (), pages, collected | set(by_key), unchecked):
        by_key[key] = Entry(key=key, status=Status.UNUSED.value)
    return Report(tuple(by_key.values()), env, drift, tuple(sorted(collected)), tuple(sorted(pages)),
                  tuple(sorted(unchecked)))


_PAGE = r"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{TITLE}}</title>
<style>
:root { color-scheme: light dark; --bg:#fafafa; --fg:#1d1d1f; --muted:#666; --card:#fff; --line:#ddd;
  --failed:#c62828; --created:#2e7d32; --updated:#ef6c00; --unused:#6a1b9a; --matched:#607d8b;
  --added:#00838f; --removed:#4e342e; }
@media (prefers-color-scheme: dark) { :root { --bg:#16171a; --fg:#e8e8ea; --muted:#9a9aa0; --card:#202226; --line:#34363b; } }
* { box-sizing: border-box; }
body { margin:0; font: 14px/1.45 system-ui, sans-serif; background:var(--bg); color:var(--fg); }
header { position:sticky; top:0; z-index:2; background:var(--card); border-bottom:1px solid var(--line); padding:10px 16px; }
h1 { font-size:17px; margin:0 0 6px; }
.counts span { margin-right:14px; font-weight:600; }
.filters { display:flex; flex-wrap:wrap; gap:8px; margin-top:6px; }
.filters label { font-size:12px; color:var(--muted); display:flex; flex-direction:column; }
select { font:inherit; padding:2px 4px; }
.banner { background:#fff3cd; color:#5c4400; padding:8px 16px; border-bottom:1px solid #e0c97a; }
main { padding:16px; display:grid; gap:16px; grid-template-columns:minmax(0, 1fr); } /* wide images scroll in their stage, never widen the page */
.card { background:var(--card); border:1px solid var(--line); border-left:5px solid var(--matched); border-radius:6px; padding:12px; }
.card[data-status=failed] { border-left-color:var(--failed); } .card[data-status=created] { border-left-color:var(--created); }
.card[data-status=updated] { border-left-color:var(--updated); } .card[data-status=unused] { border-left-color:var(--unused); }
.card[data-status=added] { border-left-color:var(--added); } .card[data-status=removed] { border-left-color:var(--removed); }
.card h2 { font-size:14px; margin:0; font-family: ui-monospace, monospace; word-break:break-all; }
.meta { color:var(--muted); margin:4px 0 8px; }
.status { text-transform:uppercase; font-size:11px; font-weight:700; letter-spacing:.04em; margin-right:8px; }
.views button { font:inherit; font-size:12px; padding:2px 8px; border:1px solid var(--line); background:transparent; color:inherit; border-radius:4px; cursor:pointer; }
.views button[aria-pressed=true] { background:var(--fg); color:var(--bg); }
.stage { margin-top:8px; overflow:auto; max-height:80vh; border:1px solid var(--line); background:repeating-conic-gradient(#ccc 0 25%, #fff 0 50%) 0 0/16px 16px; }
.stage img { display:block; image-rendering:pixelated; transform-origin:0 0; }
.side { display:flex; gap:8px; align-items:flex-start; transform-origin:0 0; width:max-content; } .side figure { margin:0; } .side figcaption { font-size:11px; color:var(--muted); background:var(--card); }
.slider { position:relative; display:inline-block; transform-origin:0 0; } .slider .top { position:absolute; left:0; top:0; overflow:hidden; border-right:2px solid var(--failed); }
.slider input { width:100%; }
.page { display:flex; gap:12px; align-items:flex-start; margin-top:8px; } .bands { flex:1; min-width:0; display:grid; grid-template-columns:minmax(0, 1fr); gap:10px; }
.overview { flex:none; max-height:80vh; overflow:auto; border:1px solid var(--line); } .map { position:relative; line-height:0; }
.map img { display:block; } .mark { position:absolute; left:0; right:0; min-height:3px; background:rgba(198,40,40,.45); outline:1px solid var(--failed); }
.mark.unshown { background:rgba(198,40,40,.15); outline-style:dotted; }
pre.msg { white-space:pre-wrap; font-size:12px; background:var(--bg); padding:6px; border-radius:4px; margin:8px 0 0; }
.hidden { display:none !important; }
.card.current { outline:2px solid var(--fg); outline-offset:2px; }
.card { scroll-margin-top:130px; }
.review { margin-top:8px; } .review button, .decide button { font:inherit; font-size:12px; padding:2px 8px; border:1px solid var(--line); background:transparent; color:inherit; border-radius:4px; cursor:pointer; }
.decide { margin:6px 0; display:flex; gap:6px; flex-wrap:wrap; align-items:center; }
.card[data-decision=accepted] { border-left-color:var(--created); } .card[data-decision=rejected] { border-left-color:var(--muted); opacity:.75; }  /* j/k bring a card below the sticky header */
</style></head>
<body>
<header>
  <h1>{{TITLE}}</h1>
  <div class="counts" id="counts"></div>
  <div class="meta hidden" id="revisions"></div>
  <div class="meta hidden" id="realigned"></div>
  <div class="filters" id="filters"></div>
  <div class="review hidden" id="review"><span id="progress"></span>
    <button type="button" id="accept-shown">Accept all shown</button> <button type="button" id="reject-shown">Reject all shown</button>
    <button type="button" id="undo">Undo</button> <span class="meta" id="review-error"></span>
    <div class="meta hidden" id="commit">Then: <code></code></div></div>
</header>
<div class="banner hidden" id="drift"></div>
<main id="cards"></main>
<script>
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

function where(e) { return e.region_key ? `${e.region_key} in “${e.heading || "top"}”${e.selector ? " — " + e.selector : ""}` : "whole page"; }

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
  for (const line of e.attribution || []) c.append(el("div", {class: "meta", text: "in: " + line}));
  if (e.diff && e.diff.shifts && e.diff.shifts.length) c.append(el("div", {class: "meta", text: "shifts: " + e.diff.shifts.map(s => typeof s === "string" ? s : (s.text || JSON.stringify(s))).join("; ")}));
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
  const main = document.getElementById("cards");
  if (!entries.length) main.append(el("p", {text: "Nothing to review: every image matched its baseline."}));
  for (const e of entries) main.append(card(e));
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
</script>
</body></html>
"""
