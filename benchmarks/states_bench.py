"""Reader states benchmark: the engine's state captures against a bare Playwright script doing
the same interactions, in the same browser, in one run; prints a ratio line.

    python benchmarks/states_bench.py [--rounds 2]

The specimen's states (pyproject.toml: the first citation's and footnote's hover boxes, the
focus ring of the first link) in its four variants. The engine: a fresh page per state,
loaded, settled and frozen, the steps, settled and still twice, the viewport taken and each
element cropped (theme/capture/states.py). The peer: what a Playwright test does for the same
images: a new page routed like the config, goto + networkidle, the same step on the first
visible match, and the element's own screenshot; nothing settled, frozen or checked. Both
are timed with the browser already running. Each side's images are compared between its
rounds too: the engine's must be identical.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

from theme.capture import Session, Variant, variants
from theme.capture.model import Capture
from theme.capture.tiles import decode_png
from theme.core import config

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from capture_bench import serve_from  # noqa: E402


def engine(session: Session, todo: list[Variant]) -> tuple[float, dict[str, np.ndarray]]:
    t = time.perf_counter()
    shots = [s for s in session.capture_all(todo) if isinstance(s, Capture)]
    spent = time.perf_counter() - t
    return spent, {f"{s.variant.folder}/{rel}": np.array(img) for s in shots for rel, img in s.images()}


def bare(session: Session, visual: config.VisualConfig, todo: list[Variant]) -> tuple[float, dict[str, np.ndarray]]:
    """The same states as a plain Playwright script takes them."""
    browser, server = session._browser, session.server
    assert browser is not None and server is not None
    images: dict[str, np.ndarray] = {}
    t = time.perf_counter()
    for v in todo:
        state = next(s for s in visual.states if s.name == v.state)
        with browser.new_context(viewport={"width": v.width, "height": v.height}, color_scheme=v.media_scheme) as ctx:
            page = ctx.new_page()
            for prefix, folder in visual.route.items():
                page.route(prefix + "**", serve_from(prefix, Path(folder)))
            page.goto(server.url(v.page), wait_until="load")
            page.wait_for_load_state("networkidle")
            for step in state.steps:
                target = page.locator(f"{step.target} >> visible=true").first
                getattr(target, step.action)()  # hover / focus: the specimen's steps
            for key, selector in state.capture.items():
                png = page.locator(f"{selector} >> visible=true").first.screenshot()
                images[f"{v.folder}/{key}"] = decode_png(png)
    return time.perf_counter() - t, images


def differing(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> int:
    """Images of `a` that differ from `b`'s (in size or in any pixel)."""
    return sum(1 for k in a if k not in b or a[k].shape != b[k].shape or not np.array_equal(a[k], b[k]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="engine/peer pairs measured back to back; best of each")
    args = parser.parse_args()
    cfg = config.load(REPO / "pyproject.toml")
    visual = cfg.visual
    assert visual is not None and visual.states, "the specimen's config has no states"
    todo = [v for v in variants(visual) if v.state]
    ours: list[float] = []
    theirs: list[float] = []
    runs: list[tuple[dict[str, np.ndarray], dict[str, np.ndarray]]] = []
    with Session(dataclasses.replace(visual), source=cfg.source) as session:
        for _ in range(args.rounds):
            e, e_images = engine(session, todo)
            b, b_images = bare(session, visual, todo)
            ours.append(e)
            theirs.append(b)
            runs.append((e_images, b_images))
    first = runs[0]
    print(f"specimen: {len(todo)} state variants ({len(visual.states)} states x {len(todo) // len(visual.states)} "
          f"variants), {len(first[0])} images")
    print("    rounds (engine s / bare s): " + ", ".join(f"{e:.2f}/{b:.2f}" for e, b in zip(ours, theirs, strict=True)))
    print(f"    images differing from the first round: engine "
          f"{[differing(r[0], first[0]) for r in runs[1:]]}, bare {[differing(r[1], first[1]) for r in runs[1:]]}")
    print(f"RATIO states engine (fresh page, settled, frozen, steps, still twice, cropped) / bare Playwright "
          f"(goto + networkidle, step, element screenshot) = {min(ours) / min(theirs):.2f}x "
          f"({min(ours):.2f} s vs {min(theirs):.2f} s, best of {args.rounds} each)")


if __name__ == "__main__":
    main()
