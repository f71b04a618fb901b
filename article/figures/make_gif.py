#!/usr/bin/env python3
"""Write the specimen's animated GIF into article/dist/assets/images/.

    python article/figures/make_gif.py           # write
    python article/figures/make_gif.py --check   # exit 1 if the committed GIF is stale

The animation is a ring all-reduce over four GPUs, the collective the data-parallel
section prices: each card's gradient is cut into four chunks, three reduce-scatter
steps leave every card with one fully summed chunk, and three all-gather steps hand
the summed chunks round the ring until every card has all of them. One frame per
step plus the starting state; the darker a chunk, the more cards' gradients it holds.

WHY it is deterministic: frames are drawn in palette mode with a fixed palette and no
anti-aliasing, there is no text (so no font), and the GIF is written with fixed frame
durations and no optimisation, so the same Pillow writes the same bytes on every run.
Output is a pure function of this file.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent
ARTICLE = HERE.parent
REPO = ARTICLE.parent
IMAGES = ARTICLE / "dist" / "assets" / "images"
sys.path.insert(0, str(REPO))
from theme.core.fsutil import atomic_write_bytes  # noqa: E402

NAME = "ring-all-reduce.gif"
WIDTH, HEIGHT = 680, 300
CARDS = 4
FRAME_MS = 900
LAST_FRAME_MS = 1800

# Palette indices. 2..5: a chunk holding 1..4 cards' contributions (light to dark).
PAPER, TRACK, SUM1, SUM2, SUM3, SUM4, ACCENT, INK, IDLE = range(9)
PALETTE = [
    (255, 255, 255),  # paper
    (208, 215, 222),  # ring track and card outlines
    (221, 232, 246),  # one contribution
    (167, 196, 232),  # two
    (104, 152, 210),  # three
    (31, 95, 191),    # four: fully summed
    (217, 130, 43),   # the chunks moving in this step, and the lit arrows
    (31, 35, 40),     # card frames
    (236, 239, 242),  # progress dots not reached yet
]

# Cards clockwise round the ring: top left, top right, bottom right, bottom left.
CARD_W, CARD_H = 196, 84
CARD_XY = [(70, 28), (414, 28), (414, 170), (70, 170)]
CELL_W, CELL_H, CELL_GAP = 38, 52, 8


def steps() -> list[tuple[list[list[int]], list[tuple[int, int]]]]:
    """(contributions per card and chunk, [(sender, chunk) moved in this step]) for each frame.

    Reduce-scatter step s: card i sends chunk (i - s) mod d to card i + 1, which adds it to
    its own. All-gather step s: card i sends its finished chunk (i + 1 - s) mod d on, and the
    receiver keeps it as is.
    """
    d = CARDS
    held = [[1] * d for _ in range(d)]
    frames = [([row[:] for row in held], [])]
    for s in range(d - 1):
        moves = [(i, (i - s) % d) for i in range(d)]
        sent = [held[i][c] for i, c in moves]
        for (i, c), value in zip(moves, sent):
            held[(i + 1) % d][c] += value
        frames.append(([row[:] for row in held], moves))
    for s in range(d - 1):
        moves = [(i, (i + 1 - s) % d) for i in range(d)]
        sent = [held[i][c] for i, c in moves]
        for (i, c), value in zip(moves, sent):
            held[(i + 1) % d][c] = value
        frames.append(([row[:] for row in held], moves))
    return frames


def _arrow(draw: ImageDraw.ImageDraw, start: tuple[int, int], end: tuple[int, int], fill: int) -> None:
    (x0, y0), (x1, y1) = start, end
    draw.line((x0, y0, x1, y1), fill=fill, width=5)
    if x0 == x1:  # vertical
        sign = 1 if y1 > y0 else -1
        draw.polygon([(x1 - 10, y1 - 14 * sign), (x1 + 10, y1 - 14 * sign), (x1, y1 + 2 * sign)], fill=fill)
    else:
        sign = 1 if x1 > x0 else -1
        draw.polygon([(x1 - 14 * sign, y1 - 10), (x1 - 14 * sign, y1 + 10), (x1 + 2 * sign, y1)], fill=fill)


def _links() -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Arrow from card i to card i + 1, between the facing card edges."""
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = CARD_XY
    mid_y_top, mid_y_bottom = ay + CARD_H // 2, cy + CARD_H // 2
    mid_x_left, mid_x_right = ax + CARD_W // 2, bx + CARD_W // 2
    return [
        ((ax + CARD_W + 12, mid_y_top), (bx - 14, mid_y_top)),            # 0 -> 1
        ((mid_x_right, by + CARD_H + 10), (mid_x_right, cy - 12)),        # 1 -> 2
        ((cx - 12, mid_y_bottom), (dx + CARD_W + 14, mid_y_bottom)),      # 2 -> 3
        ((mid_x_left, dy - 10), (mid_x_left, ay + CARD_H + 12)),          # 3 -> 0
    ]


def frame(held: list[list[int]], moves: list[tuple[int, int]], index: int, total: int) -> Image.Image:
    img = Image.new("P", (WIDTH, HEIGHT), PAPER)
    flat = [c for rgb in PALETTE for c in rgb]
    img.putpalette(flat + [0] * (768 - len(flat)))
    draw = ImageDraw.Draw(img)
    lit = {sender for sender, _ in moves}
    for i, (start, end) in enumerate(_links()):
        _arrow(draw, start, end, ACCENT if i in lit else TRACK)
    moving = {((sender + 1) % CARDS, chunk) for sender, chunk in moves}
    for i, (x, y) in enumerate(CARD_XY):
        draw.rectangle((x, y, x + CARD_W, y + CARD_H), outline=INK, width=2)
        left = x + (CARD_W - (CARDS * CELL_W + (CARDS - 1) * CELL_GAP)) // 2
        top = y + (CARD_H - CELL_H) // 2
        for c in range(CARDS):
            cx = left + c * (CELL_W + CELL_GAP)
            draw.rectangle((cx, top, cx + CELL_W, top + CELL_H), fill=SUM1 + held[i][c] - 1,
                           outline=ACCENT if (i, c) in moving else TRACK, width=4 if (i, c) in moving else 1)
    # progress: one dot per frame after the first, reduce-scatter then all-gather
    dots = total - 1
    spacing = 26
    x0 = WIDTH // 2 - (dots - 1) * spacing // 2
    for k in range(dots):
        x = x0 + k * spacing + (8 if k >= dots // 2 else -8)
        fill = ACCENT if k == index - 1 else (SUM4 if k < index - 1 else IDLE)
        draw.ellipse((x - 6, HEIGHT // 2 - 6, x + 6, HEIGHT // 2 + 6), fill=fill)
    return img


def render_gif() -> bytes:
    plan = steps()
    frames = [frame(held, moves, k, len(plan)) for k, (held, moves) in enumerate(plan)]
    durations = [FRAME_MS] * (len(frames) - 1) + [LAST_FRAME_MS]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], duration=durations,
                   loop=0, disposal=1, optimize=False)
    return out.getvalue()


def render_all() -> dict[str, bytes]:
    return {NAME: render_gif()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="write the specimen's animated GIF")
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed GIF is stale")
    args = parser.parse_args(argv)
    stale = []
    for name, content in render_all().items():
        path = IMAGES / name
        if args.check:
            if not path.exists() or path.read_bytes() != content:
                stale.append(name)
        else:
            atomic_write_bytes(path, content)
    for name in stale:
        print(f"stale: {IMAGES / name}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
