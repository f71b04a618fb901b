"""`theme capture`: write <out>/<page>/<viewport>-<scheme>/{page.png, <region-key>/<name>.png, fingerprint.json}.

One line per variant on stdout, progress on stderr. `--explain`, for an article that misbehaves, captures
every variant twice and says what the engine waited for and pinned, and which elements differed (to `mask`).
A variant whose inputs did not change since its baselines were written (theme/check/inputs.py) is not
rendered: its baselines are that render's images, and are copied (`--rerender` renders every variant).
"""

from __future__ import annotations

import json
import shutil
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import click

from ..capture import Capture, open_session, variants
from ..capture.model import JsonObject, Progress, Renderer
from ..capture.naming import Variant
from ..check import inputs, pipeline
from ..core.config import VisualConfig, keep_tile_height
from ..core.errors import ConfigError
from ..core.fsutil import atomic_write_text
from ..pixels.images import write_png
from . import LoadConfig, main, project_options

# zlib level 1: these are throw-away artifacts, so encoding speed beats file size
# (measured: benchmarks/README.md).
PNG_LEVEL = 1


def _write(capture: Capture, folder: Path) -> int:
    """Write one variant's images under `folder`; remove PNGs a previous run left that this one did not write."""
    written = set()
    for rel, pixels in capture.images():
        target = folder / rel
        write_png(target, pixels, level=PNG_LEVEL)
        written.add(target)
    atomic_write_text(folder / "fingerprint.json", json.dumps(capture.fingerprint, indent=2, sort_keys=True) + "\n")
    if folder.is_dir():
        for old in folder.rglob("*.png"):
            if old not in written:
                old.unlink()
    return len(written)


def _copy(visual: VisualConfig, same: inputs.Unchanged, folder: Path) -> int:
    """Copy an unchanged variant's baselines (the recorded render's images) under `folder`, with
    the environment they were made in; remove PNGs a previous run left that this one did not write."""
    from ..baselines.store import Store

    store, source = Store(visual.snapshots), same.variant.folder.as_posix()
    written = set()
    for rel in same.keys:
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(store.path(f"{source}/{rel}"), target)
        written.add(target)
    env = store.recorded_fingerprint(f"{source}/{same.keys[0]}") or {}
    atomic_write_text(folder / "fingerprint.json", json.dumps(env, indent=2, sort_keys=True) + "\n")
    for old in folder.rglob("*.png"):
        if old not in written:
            old.unlink()
    return len(written)


def _line(capture: Capture, count: int, seconds: float) -> str:
    h, w = capture.image.shape[:2]
    aborted = len(capture.aborted)
    return (f"{capture.variant.folder}: {count} images, {w}×{h} px, {seconds:.1f} s, "
            f"{aborted} aborted request{'s' if aborted != 1 else ''}")


@main.command()
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the images (default: <artifacts>/capture, i.e. .theme-artifacts/capture).")
@click.option("--explain", is_flag=True,
              help="Capture twice and say what the engine waited for, saw and pinned, "
                   "and what changed between the two.")
@click.option("--rerender", is_flag=True,
              help="Render every variant, also those whose inputs did not change since their baselines "
                   "were written (which are otherwise copied: skip_unchanged in [tool.theme.visual]).")
@project_options
def capture(load_config: LoadConfig, out: Path | None, explain: bool, rerender: bool) -> None:
    """Capture every page × viewport × colour scheme of [tool.theme.visual] as PNG files."""
    cfg = load_config()
    if cfg.visual is None:
        raise ConfigError(f"{cfg.source}: no [tool.theme.visual] table; add one to capture (see README)")
    from ..baselines.store import Store

    # Taken as its baselines were (config.keep_tile_height), so that they compare with them.
    visual, note = keep_tile_height(cfg.visual, Store(cfg.visual.snapshots).recorded_tile_height())
    if note:
        click.echo(f"note: {note}", err=True)
    out = out if out is not None else visual.artifacts / "capture"
    todo = variants(visual)
    progress = lambda msg: click.echo(f"… {msg}", err=True)  # noqa: E731
    # PNG encoding (zlib, which releases the GIL) runs in a writer thread, so the
    # browser keeps taking the next variant's tiles while this one is written.
    with (open_session(visual, source=cfg.source) as session,
          ThreadPoolExecutor(1, thread_name_prefix="theme-write") as pool):
        if not (rerender or explain) and visual.skip_unchanged:  # --explain needs two renders
            todo = _copy_unchanged(visual, todo, session.fingerprint, out)
        writing = None
        firsts: list[Capture] = []
        for number, cap in enumerate(pipeline.capture(session, todo, progress=progress), start=1):
            if explain:
                firsts.append(cap)
            job = (number, cap, time.perf_counter(), pool.submit(_write, cap, out / cap.variant.folder))
            if writing is not None:
                _report(*writing, total=len(todo), progress=progress)
            writing = job
        if writing is not None:
            _report(*writing, total=len(todo), progress=progress)
        if explain:
            _explain(session, firsts, progress)
    for note in session.notes:  # browser endpoints that refused or went away
        click.echo(f"note: {note}")


def _copy_unchanged(visual: VisualConfig, todo: list[Variant], fingerprint: JsonObject, out: Path) -> list[Variant]:
    """Copy the images of the variants whose inputs did not change, one line each; the rest, to render."""
    from ..baselines.store import Store

    found = inputs.unchanged(Store(visual.snapshots), visual, todo, fingerprint)
    for same in found:
        count = _copy(visual, same, out / same.variant.folder)
        click.echo(f"{same.variant.folder}: {count} images, {inputs.MESSAGE}, copied from its baselines")
        for url in same.aborted:
            click.echo(f"  aborted: {url}")
    return [v for v in todo if v not in {u.variant for u in found}]


def _report(number: int, cap: Capture, started: float, written: Future[int], *, total: int,
            progress: Progress) -> None:
    """Wait for one variant's files, then print its line (in variant order)."""
    count = written.result()
    progress(f"[{number}/{total}] {cap.variant.folder} written")
    click.echo(_line(cap, count, cap.seconds + time.perf_counter() - started))
    for url in cap.aborted:
        click.echo(f"  aborted: {url}")


def _explain(session: Renderer, firsts: list[Capture], progress: Progress) -> None:
    """Capture every variant again and print what --explain promises, variant by variant."""
    from ..pixels.diff import compare

    progress("capturing every variant a second time, to see what changes between two captures")
    seconds = pipeline.capture(session, [c.variant for c in firsts], progress=progress)
    for first, second in zip(firsts, seconds, strict=True):
        changed: list[str] = []
        if first.image.shape != second.image.shape:
            changed.append(f"the page is {first.image.shape[1]}×{first.image.shape[0]} px, then "
                           f"{second.image.shape[1]}×{second.image.shape[0]} px: something changes its height")
        else:
            result = compare(first.image, second.image, diff_image=False)
            if result.diff_pixels:
                boxes = result.boxes[:10]
                # a state's page is the one its steps left: a fresh page would not show it
                at = [None] * len(boxes) if first.variant.state else session.elements_at(first.variant, boxes)
                for box, selector in zip(boxes, at, strict=True):
                    x, y, w, h = box
                    changed.append(f"{w}×{h} px at ({x}, {y}): {selector or '(no single element holds it)'}")
        for line in explain_lines(first, changed):
            click.echo(line)


def explain_lines(cap: Capture, changed: list[str]) -> list[str]:
    """The --explain report of one variant (pure: a capture and the changes found in)."""
    e = cap.explain
    out = [f"{cap.variant.folder}:"]
    waits = [f"{name.replace('_', ' ')} {e[name]['seconds']:.2f} s"
             + ("" if e[name]["quiet"] else " (the DOM never went quiet; left to the stability check)")
             for name in ("load", "read_through_settle") if name in e]
    status = e.get("load", {}).get("status", {})
    out.append("  waited for: requests to 127.0.0.1 and routes, custom elements, "
               f"{status.get('maths', 0)} d-math, {len(status.get('images', [])) or 'all'} images decoded, fonts; "
               + "; ".join(waits))
    if cap.timings.get("switched"):
        out.append("  reader's view: the other scheme's page, its emulated scheme switched (its scripts never read it)")
    elif "read_through" in e:
        r = e["read_through"]
        out.append(f"  reader's view: scrolled through {r['screens']} screens and back in {r['seconds']:.2f} s, "
                   f"{e.get('frozen', {}).get('observers', 0)} IntersectionObserver(s) then disconnected")
    else:
        out.append("  reader's view: nothing observes scrolling; not scrolled")
    tags = e.get("undefined_tags", [])
    out.append(f"  undefined tags (plain markup, never waited for): {', '.join(tags) if tags else 'none'}")
    for what in ("routed", "aborted"):
        urls = e.get(what, [])
        out.append(f"  {what}: {len(urls)} request(s)" + "".join(f"\n    {u}" for u in urls[:20]))
    pinned = e.get("frozen", {}).get("pinned", [])
    out.append(f"  fixed and sticky, pinned where they sit at scroll 0: {len(pinned)}"
               + "".join(f"\n    {name} ({how}, y={y})" for name, how, y in pinned))
    if "pinned_width" in e:
        out.append(f"  held at its width for the tiles: <html> and {e['pinned_width']} media condition(s) on the "
                   "viewport's size, each set to what it is now")
    frozen = e.get("frozen", {}).get("frozen", [])
    out.append(f"  animated images shown at their first frame: {len(frozen)}" + "".join(f"\n    {u}" for u in frozen))
    out += _state_lines(e)
    if changed:
        out.append(f"  changed between two captures ({len(changed)} area(s)); mask them if they are not yours to fix:")
        out += [f"    {c}" for c in changed]
    else:
        out.append("  two captures are identical")
    return out


def _state_lines(e: JsonObject) -> list[str]:
    """A reader state's steps, each with its time and what settled after it, and its contrast."""
    if "steps" not in e:
        return []
    out = [f"  state page: {e['page']}"] if "page" in e else []
    out.append(f"  state steps ({len(e['steps'])}), each from the page the one before left:")
    for number, step in enumerate(e["steps"], 1):
        settled = step["settled"]
        status = settled["status"]
        quiet = "quiet" if settled["quiet"] else "never quiet (left to the stability check)"
        out.append(f"    {number}. {step['step']}: {step['seconds']:.2f} s, then settled in "
                   f"{settled['seconds']:.2f} s, {quiet}; {status.get('mathsPending', 0)} maths pending, "
                   f"fonts {status.get('fonts', '?')}")
    contrast = e.get("contrast")
    if contrast and contrast.get("worst"):
        w = contrast["worst"]
        out.append(f"  contrast: lowest {w['ratio']:.2f}:1 (minimum {contrast['minimum']:g}:1) of "
                   f"{contrast['measured']} measured: {w['what']}, {w['colour']} on {w['background']}")
    return out
