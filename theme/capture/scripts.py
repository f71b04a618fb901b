"""The scripts theme runs inside pages, read from the files in theme/capture/js/.

One script a file, named after it (PATH_OF is js/path_of.js), so editors, linters and
`node --check` see real JavaScript (tests/unit/test_page_scripts.py):

- A .js file is a header of `//` lines (what the script does, and why), then ONE
  function expression: `(arg) => {…}` or `async () => {…}`. That is what
  `page.evaluate(SCRIPT, arg)` is given and calls; results are plain JSON. An init
  script (EAGER, SCHEME_PROBE, WATCH, data_theme(): run before any page script, in
  every frame) is the same kind of file, written here as its call, `(<function>)(args);`.
- A script that uses another says so in its header: `// uses: pathOf, STABLE_CSS`. A
  lowerCamel name is a file (pathOf: path_of.js), an UPPER_CASE one a value this module
  gives (as JSON). link() binds each as a parameter of a wrapper that returns the script's
  own function, `((pathOf, STABLE_CSS) => (<function>))(<path_of.js>, "…")`, linking
  the files it names in turn.

Linked, every script stands alone: nothing is installed in a page beforehand, so each one
works on any page, also where the init scripts never ran (`screenshot()` on a user's own
Playwright page), and a page sees no helper object it could read or overwrite. The price
is the helpers' text sent again with each call, a few KB, as when these scripts were
Python strings joined by hand (benchmarks/README.md, "Page scripts as files").

The header is documentation and stays in the file; a page is sent the function alone.
The files are read once, on import, through importlib.resources (they ship as package
data: pyproject.toml).
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib.resources import files

from .naming import CHROME, LIVE_CANVAS, TITLE

_JS = files("theme.capture") / "js"
_USES = re.compile(r"^// uses:(.*)$", re.M)
_VALUE = re.compile(r"^[A-Z][A-Z0-9_]*$")


@cache
def read(name: str) -> str:
    """The text of theme/capture/js/`name`, as the file holds it."""
    return (_JS / name).read_text(encoding="utf-8")


def parts(name: str) -> tuple[str, list[str], str]:
    """(header, names it uses, function) of js/`name`.js: the header is its leading `//` lines."""
    lines = read(f"{name}.js").splitlines(keepends=True)
    n = 0
    while n < len(lines) and lines[n].startswith("//"):
        n += 1
    header = "".join(lines[:n])
    uses = [u.strip() for m in _USES.finditer(header) for u in m.group(1).split(",") if u.strip()]
    return header, uses, "".join(lines[n:]).strip()


def file_of(used: str) -> str:
    """The file name (no .js) of a used lowerCamel name: pathOf -> path_of."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", used).lower()


def link(name: str, **values: object) -> str:
    """js/`name`.js as one expression whose value is its function, with every name its
    `// uses:` line declares bound: files linked in turn, values (UPPER_CASE) as JSON."""
    _, uses, function = parts(name)
    if not uses:
        return function
    bound = []
    for used in uses:
        if _VALUE.match(used):
            if used not in values:
                raise KeyError(f"theme/capture/js/{name}.js uses {used}: give it to link() as {used}=…")
            bound.append(json.dumps(values[used]))
        else:
            bound.append(link(file_of(used), **values))
    # On lines of their own: a function that ends in a // comment must not swallow the ")".
    return "\n".join((f"(({', '.join(uses)}) => (", function, f"))({', '.join(bound)})"))


def init_script(name: str, *args: object) -> str:
    """js/`name`.js called with `args`: the source of a script run as a document starts."""
    return f"({link(name)})({', '.join(json.dumps(a) for a in args)});\n"


# Screenshot-only CSS that removes motion and blinking (its own header says what and why).
STABLE_CSS = read("stable.css")

# A page whose pixels change with the fonts a browser falls back to, their hinting and
# anti-aliasing: its hash stands for a remote browser's fonts (launch.remote_fingerprint).
FONT_PROBE = read("font_probe.html")

_VALUES = {"CHROME": ", ".join(CHROME), "TITLE": TITLE, "STABLE_CSS": STABLE_CSS, "LIVE_CANVAS": LIVE_CANVAS}

# Init scripts, before any page script, in every frame of a lane's context (lanes.py).
KEEP_REAL_TIME = init_script("keep_real_time")  # first: before the page clock replaces the timers
EAGER = init_script("eager")
SCHEME_PROBE = init_script("scheme_probe")
WATCH = init_script("watch")


def seeded(seed: int) -> str:
    """The init script that makes Math.random and crypto's random values draw from `seed`."""
    return init_script("seeded", seed)


def data_theme(theme: str) -> str:
    """The init script that forces <html data-theme="`theme`"> for one navigation."""
    return init_script("data_theme", theme)


# Page functions, for page.evaluate; each file's header says what it does.
ADOPT_CSS = link("adopt_css")
AFTER_TILES = link("after_tiles", **_VALUES)
CHECK_SELECTORS = link("check_selectors")
COMPUTED_STYLES = link("computed_styles")  # the style record of regions (theme/baselines/style_record.py)
FLOW_RECORD = link("flow_record")  # the style record of the page's text flow, by kinds of element
COLLECT = link("collect")  # theme lint (theme/init/lint/render.py)
DECODE_IMAGES = link("decode_images")
ELEMENTS_AT = link("elements_at")
FONT_FAMILIES = link("font_families")
FORGET = link("forget")
FREEZE = link("freeze", **_VALUES)
FREEZE_VIEW = link("freeze_view")
GEOMETRY = link("geometry")
LAYOUT_HASH = link("layout_hash")
LAYOUT_HASH_NEXT_FRAME = link("layout_hash_next_frame")
MASK = link("mask")
MOVING = link("moving")
NEXT_FRAME = link("next_frame")
NUDGE = link("nudge")
OVERFLOW = link("overflow")
PAGE_CLOCK = link("page_clock")  # the page clock moved (pagetime.py)
PATH_OF = link("path_of")
PIN_WIDTH = link("pin_width")
PROBE = link("probe")
READ_THROUGH = link("read_through")
REGIONS = link("regions", **_VALUES)
SCHEME_READ = link("scheme_read")
STATE_CONTRAST = link("state_contrast")  # a reader state's colours (states.py)
STATE_REGIONS = link("state_regions", **_VALUES)  # a reader state's captured elements (states.py)
STATE_START = link("state_start")  # what a reader state starts from (chain.py)
STOP_ANIMATIONS = link("stop_animations")
SURVEY = link("survey", **_VALUES)  # theme init (theme/init/survey.py)
TEXT_LINES = link("text_lines")
UNMASK = link("unmask")
UNMOVED_FOUND = link("unmoved_found")
WHO_ASKED = link("who_asked")
