"""The unicode-range of the library's "Theme Emoji" face, from Unicode's emoji properties.

    python scripts/emoji_range.py            # print the Sass variable
    python scripts/emoji_range.py --write    # replace it in theme/stylesheet/scss/theme/_font-face.scss

Emoji drawn as emoji by default (Emoji_Presentation) and the joiners of emoji sequences
(emoji components that are not emoji themselves: ZWJ, VS16, the keycap mark, tags). Digits,
#, * and ©, also emoji but text by default, stay with the text fonts.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import regex  # the stdlib's unicodedata has no emoji properties

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from theme.core.fsutil import atomic_write_text  # noqa: E402

PARTIAL = REPO / "theme/stylesheet/scss/theme/_font-face.scss"
START, END = "// emoji-range:start", "// emoji-range:end"
EMOJI_ONLY = regex.compile(r"[\p{Emoji_Presentation}[\p{Emoji_Component}--\p{Emoji}]]", regex.V1)
VARIABLE = "$theme-emoji-unicode-range"
WIDTH = 96


def code_points() -> list[int]:
    return [c for c in range(0x110000) if EMOJI_ONLY.match(chr(c))]


def ranges(points: list[int]) -> list[str]:
    """Runs of consecutive code points as CSS unicode-range terms (U+1F4DD, U+231A-231B)."""
    out: list[list[int]] = []
    for c in points:
        if out and c == out[-1][1] + 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return [f"U+{a:X}" if a == b else f"U+{a:X}-{b:X}" for a, b in out]


def sass() -> str:
    """The Sass variable, wrapped at WIDTH columns, between the markers."""
    lines, line = [], f"{VARIABLE}:"
    for term in ranges(code_points()):
        if len(line) + len(term) + 2 > WIDTH:
            lines.append(line)
            line = " "
        line += f" {term},"
    lines.append(line[:-1] + ";")
    return "\n".join([START, *lines, END])


def main() -> None:
    text = sass()
    if "--write" not in sys.argv:
        print(text)
        return
    current = PARTIAL.read_text()
    block = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
    atomic_write_text(PARTIAL, block.sub(lambda _: text, current, count=1))


if __name__ == "__main__":
    main()
