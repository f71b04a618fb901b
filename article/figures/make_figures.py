#!/usr/bin/env python3
"""Write the specimen's three SVG figures into article/dist/assets/images/.

    python article/figures/make_figures.py           # write
    python article/figures/make_figures.py --check   # exit 1 if the committed SVGs are stale

WHY a generator: the figures are charts whose coordinates follow from the numbers
in the article (the ZeRO memory budget, the pipeline schedules, the bubble formula),
so computing them keeps text and picture in agreement.

WHY the font is embedded: an SVG shown through <img> is a sealed document. It cannot
load the page's web fonts or any URL, so its <text> would fall back to whatever the
machine has installed and differ between machines. A data: URL is the one source it
may use, so the vendored Source Sans 3 woff2 bytes are inlined, and every label renders
the same everywhere. Output is a pure function of this file and those font bytes.
"""

from __future__ import annotations

import argparse
import base64
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ARTICLE = HERE.parent
REPO = ARTICLE.parent
FONTS = ARTICLE / "dist" / "assets" / "fonts"
IMAGES = ARTICLE / "dist" / "assets" / "images"
sys.path.insert(0, str(REPO))
from theme.core.fsutil import atomic_write_text  # noqa: E402

INK = "#1f2328"
MUTED = "#57606a"
GRID = "#d8dee4"
PAPER = "#ffffff"
BLUE = "#3b6ea8"
ORANGE = "#d9822b"
GREEN = "#3f8f5a"
PURPLE = "#7b5ea7"
IDLE = "#eceff2"


def font_css() -> str:
    rules = []
    for weight in (400, 600):
        data = (FONTS / f"source-sans-3-latin-{weight}-normal.woff2").read_bytes()
        b64 = base64.b64encode(data).decode("ascii")
        rules.append(
            "@font-face{font-family:'Source Sans 3';font-weight:%d;font-style:normal;"
            "src:url(data:font/woff2;base64,%s) format('woff2');}" % (weight, b64)
        )
    rules.append("text{font-family:'Source Sans 3',sans-serif;fill:%s;}" % INK)
    return "".join(rules)


def svg(width: int, height: int, title: str, body: list[str]) -> str:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img">\n'
        f"<title>{title}</title>\n"
        f"<style>{font_css()}</style>\n"
        f'<rect x="0" y="0" width="{width}" height="{height}" rx="6" fill="{PAPER}"/>\n'
    )
    return head + "\n".join(body) + "\n</svg>\n"


def text(x: float, y: float, label: str, size: int = 13, anchor: str = "start",
         weight: int = 400, fill: str = INK) -> str:
    return (f'<text x="{x:g}" y="{y:g}" font-size="{size}" font-weight="{weight}" '
            f'text-anchor="{anchor}" style="fill:{fill}">{label}</text>')


def rect(x: float, y: float, w: float, h: float, fill: str, stroke: str = "none") -> str:
    return f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" fill="{fill}" stroke="{stroke}"/>'


def line(x1: float, y1: float, x2: float, y2: float, stroke: str, width: float = 1,
         dash: str = "") -> str:
    extra = f' stroke-dasharray="{dash}"' if dash else ""
    return (f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{stroke}" '
            f'stroke-width="{width:g}"{extra}/>')


# --- Figure 1: bytes per GPU for a 7B model under data parallelism and ZeRO stages --------

def zero_budget(params_b: float = 7.0, gpus: int = 8) -> list[tuple[str, float, float, float]]:
    """(label, weights GB, gradients GB, optimizer GB) per GPU.

    Mixed precision with Adam: 2 bytes bf16 weights, 2 bytes bf16 gradients, 12 bytes
    of fp32 master weights + two moments (Rajbhandari et al. 2020, ZeRO, section 3.1).
    """
    w, g, o = 2 * params_b, 2 * params_b, 12 * params_b
    return [
        ("Plain DP", w, g, o),
        ("ZeRO-1", w, g, o / gpus),
        ("ZeRO-2", w, g / gpus, o / gpus),
        ("ZeRO-3", w / gpus, g / gpus, o / gpus),
    ]


def figure_zero() -> str:
    width, height = 680, 380
    left, right, top, bottom = 70, 180, 40, 320
    ymax = 120.0
    scale = (bottom - top) / ymax
    body = [text(left, 24, "Memory per GPU, 7B parameters, 8 GPUs (GB)", 15, weight=600)]
    for tick in range(0, 121, 20):
        y = bottom - tick * scale
        body.append(line(left, y, width - right, y, GRID))
        body.append(text(left - 8, y + 4, str(tick), 12, "end", fill=MUTED))
    limit = bottom - 80 * scale
    body.append(line(left, limit, width - right, limit, ORANGE, 1.5, "6 4"))
    body.append(text(width - right - 4, limit - 6, "one 80 GB card", 12, "end", 600, ORANGE))
    bars = zero_budget()
    slot = (width - right - left) / len(bars)
    for i, (label, w, g, o) in enumerate(bars):
        x = left + i * slot + slot * 0.2
        bw = slot * 0.6
        y = bottom
        for value, colour in ((w, BLUE), (g, GREEN), (o, PURPLE)):
            h = value * scale
            body.append(rect(x, y - h, bw, h, colour))
            y -= h
        body.append(text(x + bw / 2, y - 6, f"{w + g + o:.1f}", 12, "middle", 600))
        body.append(text(x + bw / 2, bottom + 18, label, 13, "middle"))
    legend = [("bf16 weights", BLUE), ("bf16 gradients", GREEN), ("fp32 Adam state", PURPLE)]
    for i, (label, colour) in enumerate(legend):
        y = top + 130 + i * 24
        body.append(rect(width - right + 20, y - 11, 14, 14, colour))
        body.append(text(width - right + 40, y, label, 12))
    body.append(line(left, bottom, width - right, bottom, INK))
    return svg(width, height, "Memory per GPU under data parallelism and ZeRO", body)


# --- Figure 2: GPipe and 1F1B schedules, 4 stages, 4 micro-batches ------------------------

def schedule(stages: int, micro: int, one_f_one_b: bool, tf: int = 1, tb: int = 2):
    """List of (stage, kind, micro-batch, start, duration) from a tiny list scheduler.

    Each stage runs its ops in a fixed order, each op starting when the stage is free and
    its input has arrived: F(s, i) after F(s-1, i); B(s, i) after B(s+1, i) (the last
    stage's B after its own F). Backward takes twice a forward, the usual rule of thumb.
    """
    orders = []
    for s in range(stages):
        if one_f_one_b:
            warm = min(stages - 1 - s, micro)
            ops = [("F", i) for i in range(warm)]
            f, b = warm, 0
            while b < micro:
                if f < micro:
                    ops.append(("F", f))
                    f += 1
                ops.append(("B", b))
                b += 1
        else:
            ops = [("F", i) for i in range(micro)] + [("B", i) for i in range(micro)]
        orders.append(ops)
    done: dict[tuple[int, str, int], int] = {}
    free = [0] * stages
    cursor = [0] * stages
    out = []
    while any(cursor[s] < len(orders[s]) for s in range(stages)):
        progressed = False
        for s in range(stages):
            if cursor[s] >= len(orders[s]):
                continue
            kind, i = orders[s][cursor[s]]
            if kind == "F":
                dep = (s - 1, "F", i) if s > 0 else None
            else:
                dep = (s + 1, "B", i) if s < stages - 1 else (s, "F", i)
            if dep is not None and dep not in done:
                continue
            start = max(free[s], done[dep] if dep else 0)
            dur = tf if kind == "F" else tb
            done[(s, kind, i)] = start + dur
            free[s] = start + dur
            out.append((s, kind, i, start, dur))
            cursor[s] += 1
            progressed = True
        if not progressed:
            raise RuntimeError("schedule deadlocked")
    return out


def draw_schedule(body: list[str], ops, top: float, left: float, unit: float, row: float,
                  stages: int, title: str) -> None:
    end = max(start + dur for _, _, _, start, dur in ops)
    body.append(text(left, top - 10, title, 14, weight=600))
    for s in range(stages):
        y = top + s * row
        body.append(rect(left, y, end * unit, row - 4, IDLE))
        body.append(text(left - 10, y + row / 2 + 2, f"GPU {s}", 12, "end", fill=MUTED))
    for s, kind, i, start, dur in ops:
        y = top + s * row
        colour = BLUE if kind == "F" else GREEN
        body.append(rect(left + start * unit + 1, y, dur * unit - 2, row - 4, colour))
        body.append(text(left + (start + dur / 2) * unit, y + row / 2 + 2, str(i + 1), 12,
                         "middle", 600, PAPER))


def figure_pipeline() -> str:
    width, height = 680, 360
    stages, micro = 4, 4
    unit, row, left = 24, 26, 64
    body = []
    draw_schedule(body, schedule(stages, micro, False), 40, left, unit, row, stages,
                  "All forwards, then all backwards (GPipe)")
    draw_schedule(body, schedule(stages, micro, True), 200, left, unit, row, stages,
                  "One forward, one backward (1F1B)")
    legend_y = 330
    for j, (label, colour) in enumerate((("forward", BLUE), ("backward", GREEN), ("idle", IDLE))):
        x = left + j * 120
        body.append(rect(x, legend_y - 11, 14, 14, colour, GRID))
        body.append(text(x + 20, legend_y, label, 12))
    return svg(width, height, "Pipeline schedules with four stages", body)


# --- Figure 3: bubble fraction against the number of micro-batches ------------------------

def bubble_fraction(p: int, m: int) -> float:
    """Idle share of a stage's time: (p - 1) / (m + p - 1) (Huang et al. 2019, GPipe)."""
    return (p - 1) / (m + p - 1)


def figure_bubble() -> str:
    width, height = 680, 360
    left, right, top, bottom = 70, 130, 40, 300
    ms = [1, 2, 4, 8, 16, 32, 64]
    xstep = (width - right - left) / (len(ms) - 1)
    body = [text(left, 24, "Idle share of each GPU against micro-batches per step", 15, weight=600)]
    for k in range(0, 11, 2):
        frac = k / 10
        y = bottom - frac * (bottom - top)
        body.append(line(left, y, width - right, y, GRID))
        body.append(text(left - 8, y + 4, f"{k * 10}%", 12, "end", fill=MUTED))
    for j, m in enumerate(ms):
        x = left + j * xstep
        body.append(text(x, bottom + 18, str(m), 12, "middle", fill=MUTED))
    body.append(text((left + width - right) / 2, bottom + 40, "micro-batches m (log scale)", 13, "middle"))
    label_y = bottom + 4.0  # end labels are stacked upwards, at least 15 px apart
    for p, colour in ((2, GREEN), (4, BLUE), (8, PURPLE), (16, ORANGE)):
        points = []
        for j, m in enumerate(ms):
            points.append((left + j * xstep, bottom - bubble_fraction(p, m) * (bottom - top)))
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        body.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2.5"/>')
        for x, y in points:
            body.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{colour}"/>')
        label_y = min(points[-1][1] + 4, label_y - 15)
        body.append(text(width - right + 10, label_y, f"p = {p}", 12, weight=600, fill=colour))
    body.append(line(left, bottom, width - right, bottom, INK))
    return svg(width, height, "Pipeline bubble fraction", body)


FIGURES = {
    "zero-memory.svg": figure_zero,
    "pipeline-schedules.svg": figure_pipeline,
    "bubble-fraction.svg": figure_bubble,
}


def render_all() -> dict[str, str]:
    return {name: make() for name, make in FIGURES.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="write the specimen's SVG figures")
    parser.add_argument("--check", action="store_true", help="exit 1 when a committed SVG is stale")
    args = parser.parse_args(argv)
    stale = []
    for name, content in render_all().items():
        path = IMAGES / name
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != content:
                stale.append(name)
        else:
            atomic_write_text(path, content)
    for name in stale:
        print(f"stale: {IMAGES / name}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
