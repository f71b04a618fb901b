"""WCAG contrast of every text a rendered page shows, shadow roots included.

In the browser: each visible text node, its colour, and the composed-tree chain of elements
above it (backgrounds, filters, opacity). Here: that chain painted as Chromium paints it
(each element's background, its content on top, then its filter and opacity), once with the
text and once without, so `filter: invert(1) hue-rotate(180deg)` on d-math counts.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from theme.stylesheet.contrast import contrast_ratio, parse_colour

# Text nodes in the composed tree (light DOM, shadow roots, slotted content), each with
# its chain from the text's element up to <html>; `scope` limits it to one subtree.
COLLECT_JS = r"""
(scope) => {
  const skip = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'TITLE', 'NOSCRIPT', 'HEAD']);
  const up = el => el.assignedSlot || el.parentElement || (el.getRootNode().host ?? null);
  const name = el => el.localName + (el.id ? '#' + el.id : '') +
                     (el.classList.length ? '.' + [...el.classList].join('.') : '');
  const out = [];
  const visit = root => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.currentNode; node; node = walker.nextNode()) {
      if (node.nodeType === Node.ELEMENT_NODE) {
        if (node.shadowRoot) visit(node.shadowRoot);
        continue;
      }
      const parent = node.assignedSlot || node.parentElement;
      if (!parent || skip.has(parent.tagName) || !node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const rect = [...range.getClientRects()].find(r => r.width > 0 && r.height > 0);
      const style = getComputedStyle(parent);
      if (!rect || style.visibility !== 'visible') continue;
      const cx = rect.left + rect.width / 2, cy = rect.top + rect.height / 2;
      const chain = [];
      let inScope = !scope, clipped = false;
      for (let el = parent; el; el = up(el)) {
        if (scope && el.localName === scope) inScope = true;
        const s = getComputedStyle(el);
        const box = el.getBoundingClientRect();
        // Screen-reader text (KaTeX's MathML): clipped to a 1px box, never painted.
        const clips = s.clip !== 'auto' || s.clipPath !== 'none' || s.overflow !== 'visible';
        clipped ||= clips && (box.width <= 1 || box.height <= 1);
        chain.push({
          name: name(el), background: s.backgroundColor, image: s.backgroundImage,
          filter: s.filter, opacity: s.opacity,
          // A positioned box (a hover box) is not over its ancestors' backgrounds.
          behind: box.left <= cx && cx <= box.right && box.top <= cy && cy <= box.bottom,
        });
      }
      if (!inScope || clipped) continue;
      out.push({text: node.textContent.trim().slice(0, 60), color: style.color,
                size: parseFloat(style.fontSize), weight: parseInt(style.fontWeight, 10),
                rect: [rect.left + scrollX, rect.top + scrollY, rect.width, rect.height], chain});
    }
  };
  visit(document.documentElement);
  return out;
}
"""

RGBA = tuple[float, float, float, float]


@dataclass(frozen=True)
class TextContrast:
    text: str
    where: str  # the chain's element names, innermost first
    foreground: tuple[float, float, float]
    background: tuple[float, float, float]
    ratio: float
    rect: tuple[float, float, float, float]  # page px: x, y, width, height
    chain: tuple[str, ...]  # every element above the text, innermost first

    def within(self, tag: str) -> bool:
        return any(name == tag or name.startswith((tag + ".", tag + "#")) for name in self.chain)

    def __str__(self) -> str:
        hexes = ["#" + "".join(f"{round(c * 255):02x}" for c in rgb) for rgb in (self.foreground, self.background)]
        return f"{self.ratio:.2f}:1 {hexes[0]} on {hexes[1]} {self.text!r} in {self.where}"


def measure(found: list[dict]) -> list[TextContrast]:
    """The contrast of each text COLLECT_JS returned."""
    out = []
    for item in found:
        fg, bg = painted(item["chain"], _colour(item["color"])), painted(item["chain"], None)
        where = " < ".join(c["name"] for c in item["chain"][:4])
        out.append(TextContrast(item["text"], where, fg, bg, contrast_ratio(fg, bg), tuple(item["rect"]),
                                tuple(c["name"] for c in item["chain"])))
    return out


def painted(chain: list[dict], text: RGBA | None) -> tuple[float, float, float]:
    """What the eye gets at the text: innermost element first, each group filtered, on white."""
    layer: RGBA = text if text is not None else (0.0, 0.0, 0.0, 0.0)
    for element in chain:
        if element["image"] not in ("none", ""):
            raise ValueError(f"{element['name']} has a background image; this measure reads colours only")
        own = _colour(element["background"]) if element["behind"] else (0.0, 0.0, 0.0, 0.0)
        layer = _over(layer, own)
        layer = apply_filter(element["filter"], layer)
        r, g, b, a = layer
        layer = (r, g, b, a * float(element["opacity"]))
    r, g, b, _ = _over(layer, (1.0, 1.0, 1.0, 1.0))  # the canvas
    return (r, g, b)


def apply_filter(value: str, rgba: RGBA) -> RGBA:
    """CSS filter functions as the Filter Effects spec defines them, on one sRGB colour."""
    r, g, b, a = rgba
    for fn, arg in re.findall(r"([\w-]+)\(([^)]*)\)", value if value != "none" else ""):
        amount = _amount(arg)
        if fn == "invert":
            r, g, b = (amount + c * (1 - 2 * amount) for c in (r, g, b))
        elif fn == "brightness":
            r, g, b = (c * amount for c in (r, g, b))
        elif fn == "opacity":
            a *= amount
        elif fn == "hue-rotate":
            r, g, b = _hue_rotate((r, g, b), _degrees(arg))
        else:
            raise ValueError(f"filter {fn}() is not modelled here; add it")
        r, g, b = (min(1.0, max(0.0, c)) for c in (r, g, b))
    return (r, g, b, a)


def _hue_rotate(rgb, degrees: float):
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    m = [[0.213 + c * 0.787 - s * 0.213, 0.715 - c * 0.715 - s * 0.715, 0.072 - c * 0.072 + s * 0.928],
         [0.213 - c * 0.213 + s * 0.143, 0.715 + c * 0.285 + s * 0.140, 0.072 - c * 0.072 - s * 0.283],
         [0.213 - c * 0.213 - s * 0.787, 0.715 - c * 0.715 + s * 0.715, 0.072 + c * 0.928 + s * 0.072]]
    return tuple(sum(m[i][j] * rgb[j] for j in range(3)) for i in range(3))


def _amount(arg: str) -> float:
    arg = arg.strip()
    if not arg:
        return 1.0
    return float(arg[:-1]) / 100 if arg.endswith("%") else float(re.sub(r"[a-z]+$", "", arg))


def _degrees(arg: str) -> float:
    arg = arg.strip()
    units = {"deg": 1.0, "turn": 360.0, "rad": 180 / math.pi, "grad": 0.9}
    for unit, factor in units.items():
        if arg.endswith(unit):
            return float(arg[: -len(unit)]) * factor
    return float(arg or 0)


def _colour(value: str) -> RGBA:
    parsed = parse_colour(value)
    if parsed is None:
        raise ValueError(f"cannot read the colour {value!r}")
    return parsed


def _over(top: RGBA, under: RGBA) -> RGBA:
    """Source-over of two non-premultiplied colours."""
    ta, ua = top[3], under[3]
    a = ta + ua * (1 - ta)
    if a == 0:
        return (0.0, 0.0, 0.0, 0.0)
    rgb = ((tc * ta + uc * ua * (1 - ta)) / a for tc, uc in zip(top[:3], under[:3], strict=True))
    return (*rgb, a)  # type: ignore[return-value]
