"""Outcomes → a review folder: `index.html`, `report.json`, `summary.md`, and the images.

Pure except write(). Self-contained (no CDN; the page of theme/review/app/ with its CSS and JS inline; images
under images/<key stem>.*): a region's images are copied whole, a page's changed bands cropped with an overview
(theme/check/bands.py); its full-size images stay in the artefacts folder, where `theme accept` looks for them
(theme/review/accept.py).
"""

from __future__ import annotations

import html
import json
import os
import shutil
from dataclasses import asdict, dataclass, field, replace
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..check.entry import ARTEFACT_KINDS, Entry, cause_groups, group_json, told_in_groups, unrecorded_flow_line
from ..core.fsutil import atomic_write_text, sha256_file
from ..core.status import ORDER as STATUS_ORDER
from ..core.status import REVIEW as REVIEW_STATUSES
from ..core.status import Status, unused_baselines

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


def _order(e: Entry) -> tuple[int, str]:
    rank = {s: i for i, s in enumerate(STATUS_ORDER)}
    return (rank.get(e.status, len(rank)), e.key)


def _copy_images(folder: Path, e: Entry) -> Entry:
    """Copy artefacts into images/ and rewrite paths relative to the report folder; a page's
    full-size images are cropped into bands instead (or, from another report, its bands copied)."""
    if e.is_page and e.overview and set(e.images) == {"actual"}:
        made = _with_overview(folder, e)
        if made is not None:
            return made
        e = replace(e, overview=None)  # its file is gone: made from the actual below
    if e.bands or e.overview:
        return _copy_bands(folder, e)
    if e.is_page and ("actual" in e.images or "expected" in e.images):
        from ..check import bands  # numpy, Pillow: only when there is a page to crop

        full = {kind: _source(folder, src) for kind, src in e.images.items()}
        actual = full.get("actual")
        review = bands.review_of(actual) if actual is not None else None
        if review is not None:  # made by the check from the pixels it held: copied, nothing decoded
            return _copy_bands(folder, replace(e, images={}, **review))
        fields = bands.page_fields(folder, e.key[:-len(".png")], {k: p for k, p in full.items() if p is not None})
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


def _with_overview(folder: Path, e: Entry) -> Entry | None:
    """A new page's entry with the overview its check made (check/bands.py, page_overview) copied into `folder`,
    as page_fields would write it, and its full-size actual left in the artefacts; None when
    either file is gone (_copy_images then has page_fields make it from the actual)."""
    assert e.overview is not None  # the caller's condition
    made, actual = Path(e.overview["image"]), Path(e.images["actual"])
    if not (made.is_absolute() and made.is_file() and actual.is_file()):
        return None
    rel = Path("images") / f"{e.key[:-len('.png')]}.overview.png"
    (folder / rel).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(made, folder / rel)
    return replace(e, images={}, bands=(), overview={**e.overview, "image": rel.as_posix()},
                   actual_sha256=sha256_file(actual))


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
    groups = cause_groups(report.entries)
    data = {
        "format": FORMAT,
        "counts": report.counts(),
        "environment": dict(report.environment),
        "drift": report.drift,
        "collected": list(report.collected),
        "pages": list(report.pages),
        "unchecked": list(report.unchecked),
        "entries": [asdict(e) for e in told_in_groups(report.entries, groups)],
        "groups": [group_json(g) for g in groups],  # failures by cause
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
    if report.drift:  # an environment that differs explains everything below it: said first
        out += [f"> ⚠️ {report.drift}", ""]
    out += _groups_md(report)  # then the story: the rule-level group leads (issue 49)
    realigned = sum(1 for e in report.entries if e.realigned)
    if realigned:
        out += [f"{realigned} matched only at their baseline's sub-pixel position: content above them "
                "moved by a fraction of a pixel, and they were re-rendered where their baselines were.", ""]
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
    if said := unrecorded_flow_line(report.entries):
        out += ["", _md(said)]
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
    return _page().replace("{{TITLE}}", html.escape(_title(report))).replace("/*DATA*/null", data)


@cache
def _page() -> str:
    """The review page (theme/review/app/): index.html with style.css and app.js put inline, so
    that one file works opened as it is, with no server and no network. {{TITLE}} and app.js's
    `/*DATA*/null` (the report) are left for to_html()."""
    app = files("theme.review") / "app"
    page = (app / "index.html").read_text(encoding="utf-8")
    for mark, name in (("{{STYLE}}", "style.css"), ("{{SCRIPT}}", "app.js")):
        page = page.replace(mark, (app / name).read_text(encoding="utf-8"))
    return page


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
        by_key[key] = Entry(key=key, status=Status.UNUSED)
    return Report(tuple(by_key.values()), env, drift, tuple(sorted(collected)), tuple(sorted(pages)),
                  tuple(sorted(unchecked)))
