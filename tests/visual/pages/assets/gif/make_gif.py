#!/usr/bin/env python3
"""Write small looping animated GIFs, deterministically, with Pillow.

    python tests/visual/pages/assets/gif/make_gif.py            # writes spinner.gif beside this file
    python tests/visual/pages/assets/gif/make_gif.py OUT.gif --kind dot --color 2

Every frame is drawn in palette mode with a fixed palette and no anti-aliasing, so the same
Pillow writes the same bytes on every run. Frames are 100 ms each and the animation loops
forever. Each kind makes all of its frames visibly different from one another:

- ``bar``: a bar turning around the centre in steps of 45 degrees, with one of eight ticks lit;
- ``dot``: a dot travelling round a square track, one corner or edge midpoint per frame;
- ``bars``: eight columns, one taller than the others, the tall one moving left to right.

``generate(path, kind=..., color=...)`` is the importable entry point (the long article's
generator uses it for its own GIFs).
"""
from __future__ import annotations

import argparse
import math
from pathlib import Path

from PIL import Image, ImageDraw

SIZE = 120
FRAMES = 8
FRAME_MS = 100

# index 0 background, 1 track, 2-5 accents
PALETTE = [
    (255, 255, 255),
    (214, 219, 226),
    (31, 95, 191),
    (194, 65, 12),
    (29, 107, 53),
    (111, 66, 193),
]
KINDS = ("bar", "dot", "bars")


def _blank() -> Image.Image:
    img = Image.new("P", (SIZE, SIZE), 0)
    flat = [c for rgb in PALETTE for c in rgb]
    img.putpalette(flat + [0] * (768 - len(flat)))
    return img


def _bar(i: int, color: int) -> Image.Image:
    img = _blank()
    d = ImageDraw.Draw(img)
    c = SIZE // 2
    d.ellipse((10, 10, SIZE - 10, SIZE - 10), outline=1, width=4)
    for k in range(FRAMES):
        a = 2 * math.pi * k / FRAMES - math.pi / 2
        x, y = c + 52 * math.cos(a), c + 52 * math.sin(a)
        d.ellipse((x - 4, y - 4, x + 4, y + 4), fill=color if k == i else 1)
    a = 2 * math.pi * i / FRAMES - math.pi / 2
    x, y = round(c + 40 * math.cos(a)), round(c + 40 * math.sin(a))
    d.line((c, c, x, y), fill=color, width=9)
    d.ellipse((c - 8, c - 8, c + 8, c + 8), fill=color)
    return img


def _dot(i: int, color: int) -> Image.Image:
    img = _blank()
    d = ImageDraw.Draw(img)
    lo, hi, mid = 24, SIZE - 24, SIZE // 2
    d.rectangle((lo, lo, hi, hi), outline=1, width=4)
    spots = [(lo, lo), (mid, lo), (hi, lo), (hi, mid), (hi, hi), (mid, hi), (lo, hi), (lo, mid)]
    x, y = spots[i % len(spots)]
    d.ellipse((x - 14, y - 14, x + 14, y + 14), fill=color)
    return img


def _bars(i: int, color: int) -> Image.Image:
    img = _blank()
    d = ImageDraw.Draw(img)
    base = SIZE - 16
    d.line((8, base + 4, SIZE - 8, base + 4), fill=1, width=3)
    for k in range(FRAMES):
        x0 = 12 + k * 12
        top = 24 if k == i else 76
        d.rectangle((x0, top, x0 + 8, base), fill=color if k == i else 1)
    return img


DRAW = {"bar": _bar, "dot": _dot, "bars": _bars}


def frames(kind: str = "bar", color: int = 2) -> list[Image.Image]:
    if kind not in DRAW:
        raise ValueError(f"unknown kind {kind!r}; choose one of {', '.join(KINDS)}")
    if not 2 <= color < len(PALETTE):
        raise ValueError(f"color must be an accent index 2..{len(PALETTE) - 1}")
    return [DRAW[kind](i, color) for i in range(FRAMES)]


def generate(path: Path, kind: str = "bar", color: int = 2) -> Path:
    """Write one looping GIF of FRAMES frames, FRAME_MS each, to ``path``; return ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    imgs = frames(kind, color)
    imgs[0].save(path, format="GIF", save_all=True, append_images=imgs[1:],
                 duration=FRAME_MS, loop=0, disposal=1, optimize=False)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=Path(__file__).with_name("spinner.gif"))
    parser.add_argument("--kind", choices=KINDS, default="bar")
    parser.add_argument("--color", type=int, default=2, help="accent palette index, 2-5")
    args = parser.parse_args(argv)
    print(generate(args.out, args.kind, args.color))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
