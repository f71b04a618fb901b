"""`[tool.theme]` of pyproject.toml, read into frozen dataclasses.

Each key is a dataclass field whose `metadata["doc"]` says what it means, for users: the
configuration reference (docs/reference/configuration.md) is generated from these fields,
their types and the defaults `parse` gives an empty table (scripts/gen_docs.py). A field that
is no key a user writes says so with `metadata["key"] = False`.
Unknown keys are errors naming key and file; relative paths resolve against the folder of the
pyproject.toml, so `theme -C DIR` and pytest from any folder agree.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import Field, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

from .errors import ConfigError

PYPROJECT = "pyproject.toml"

# The values a choice key takes; the reader and the reference both read them from here.
STYLES = ("expanded", "compressed")
COMPILERS = ("libsass", "dart")
COLOR_SCHEMES = ("light", "dark", "light-attr", "dark-attr")
CONTRAST_KINDS = ("none", "text", "focus")


@dataclass(frozen=True)
class Tolerance:
    """How different two images may be and still match (pixelmatch semantics)."""

    threshold: float = field(default=0.1, metadata={
        "doc": "Per-pixel colour distance (YIQ, 0 to 1) below which two pixels count as equal; "
               "pixelmatch's default."})
    include_aa: bool = field(default=False, metadata={
        "doc": "Count anti-aliased pixels as differences too (pixelmatch's `includeAA`)."})
    max_diff_pixels: int = field(default=0, metadata={
        "doc": "How many pixels may differ and the image still match."})
    max_diff_ratio: float = field(default=0.0, metadata={
        "doc": "What share of the pixels (0 to 1) may differ and the image still match."})


@dataclass(frozen=True)
class BuildConfig:
    """`[tool.theme]`: how `theme build` makes style.css."""

    entry: Path = field(metadata={"doc": "The SCSS entry file."})
    outputs: tuple[Path, ...] = field(metadata={
        "doc": "Every place the article keeps a copy of the compiled CSS; each gets the same bytes."})
    style: str = field(default="expanded", metadata={"doc": "The CSS output style.", "choices": STYLES})
    source_map: bool = field(default=False, metadata={"doc": "Write `style.css.map` beside each output."})
    include_paths: tuple[Path, ...] = field(default=(), metadata={
        "doc": "Extra folders `@import` searches, before the theme library theme installs."})
    compiler: str = field(default="libsass", metadata={
        "doc": "`libsass` (pinned: it makes the committed CSS) or `dart` (Dart Sass, "
               "`pip install -e '.[dart]'`).", "choices": COMPILERS})


@dataclass(frozen=True)
class BrowserConfig:
    """`[tool.theme.visual.browser]`: where pages are rendered."""

    endpoints: tuple[str, ...] = field(default=(), metadata={
        "doc": "Playwright browser servers (`theme browser serve` prints one) to render on instead of a "
               "local launch; `THEME_BROWSER_ENDPOINTS` (comma-separated) overrides the list."})
    lanes: int = field(default=1, metadata={"doc": "How many pages each endpoint renders at once."})


# What a state's step does (theme/capture/states.py), and the other keys each may have.
STEP_ACTIONS: Mapping[str, tuple[str, ...]] = {
    "hover": (), "focus": (), "click": (), "fill": ("text",), "press": ("on", "times"), "select": ("value",),
    "scroll_into_view": (), "wait_for": (), "type": ("on",),
}
# What each key of a step means, for the reference: every action and option above has a line.
STEP_DOCS: Mapping[str, str] = {
    "hover": "Move the pointer over the element the selector matches.",
    "focus": "Focus the element the selector matches.",
    "click": "Click the element the selector matches.",
    "fill": "Fill the field the selector matches with `text`.",
    "press": "Press the key it names (`\"Enter\"`, `\"Backspace\"`) on the element `on` matches, else "
             "wherever focus is.",
    "select": "Choose the option `value` in the `<select>` the selector matches.",
    "scroll_into_view": "Scroll the element the selector matches to the middle of the viewport.",
    "wait_for": "Wait until the selector matches a visible element; written `{ condition = \"…\" }`, until "
                "that JavaScript expression is true (`window.ready === true`).",
    "type": "Type the text it gives key by key, as a reader types (the page's key handlers see each key), "
            "into the element `on` matches, else wherever focus is.",
    "text": "The text `fill` puts in the field.",
    "value": "The value of the option `select` chooses.",
    "on": "The element (a selector) that gets the keys.",
    "times": "How many times the key is pressed, 1 to 100 (Backspace until a field is empty).",
}
VIEWPORT = ":viewport"  # a state's capture value that takes the whole viewport


@dataclass(frozen=True)
class Step:
    """One thing a reader does: `action` on `target` (a Playwright selector; for `press` the
    key, for a `wait_for` condition a JavaScript expression), with the action's own options.
    Written as an inline table with one action key (STEP_ACTIONS, STEP_DOCS)."""

    action: str
    target: str
    options: Mapping[str, str] = field(default_factory=dict)  # text, value, on, condition = "true"

    def describe(self) -> str:
        extra = "".join(f" {k}={v!r}" for k, v in sorted(self.options.items()))
        return f"{self.action} {self.target!r}{extra}"


@dataclass(frozen=True)
class StateConfig:
    """`[[tool.theme.visual.states]]`: a state a reader reaches (a hover box open, a link
    focused, a figure after an input), captured after its steps in every viewport and scheme."""

    name: str = field(metadata={
        "doc": "The state's name: lower-case letters, digits and `-`. It names the baselines' folder "
               "(`state/<name>/`) and the items (`-k <name>` selects them)."})
    steps: tuple[Step, ...] = field(metadata={
        "doc": "What the reader does, in order: inline tables of one action each, such as "
               "`{ hover = \"d-cite\" }`. Not needed when `after` names a state."})
    capture: Mapping[str, str] = field(metadata={
        "doc": "Region key → the Playwright selector of the elements to capture after the steps, "
               f"or `\"{VIEWPORT}\"` for the whole viewport."})
    pages: tuple[str, ...] = field(default=(), metadata={
        "doc": "The pages (as written in `pages`) the state applies to; empty: every page."})
    padding: int = field(default=8, metadata={
        "doc": "Pixels kept around each captured element (a hover box's shadow)."})
    contrast: str = field(default="none", metadata={
        "doc": "`text`: every text in the captured elements must reach 4.5:1 against the background behind "
               "it (WCAG 1.4.3); `focus`: the focused element's outline or box-shadow must reach 3:1 against "
               "what is behind it (WCAG 1.4.11).", "choices": CONTRAST_KINDS})
    after: str | None = field(default=None, metadata={
        "doc": "Another state whose steps run first, on the same page: a chain on purpose."})
    # A figure a script animates until a reader interacts with it is masked on the page, not in its state.
    mask: tuple[str, ...] | None = field(default=None, metadata={
        "doc": "Selectors painted over before the capture, instead of the page's `mask`; unset: the page's."})


# The tile height's figures (benchmarks/README.md, "Figures the capture code relies on"): fewer
# calls is what makes tall pages fast (each costs a full relayout); taller than 32 768 px a call
# drops rows, and the clip height can change pixels. 16 384 keeps Chromium's compositor under
# ~400 MB on a 1 280 px page, where 32 768 took ~700 MB, for 4-9 % more time.
MAX_TILE_HEIGHT = 32768


@dataclass(frozen=True)
class VisualConfig:
    """`[tool.theme.visual]`: what the visual checks render and how they compare it."""

    root: Path = field(metadata={"doc": "The folder served on 127.0.0.1, the pages' root."})
    pages: tuple[str, ...] = field(default=("index.html",), metadata={"doc": "The pages, as paths under `root`."})
    viewports: Mapping[str, tuple[int, int]] = field(
        default_factory=lambda: {"mobile": (390, 844), "desktop": (1280, 800)},
        metadata={"doc": "Viewport name → `[width, height]` in CSS px; every page is checked at each."})
    color_schemes: tuple[str, ...] = field(default=("light", "dark"), metadata={
        "doc": "The colour schemes every page is checked in. `light-attr` and `dark-attr` force "
               "`data-theme` against the opposite media preference.", "choices": COLOR_SCHEMES})
    full_page: bool = field(default=True, metadata={"doc": "Check the whole-page image as well as the regions."})
    regions: Mapping[str, str] = field(default_factory=dict, metadata={
        "doc": "Region key → CSS selector. Each match is cropped from the page image and checked as "
               "`<key>/<slug of the nearest heading before it>[-k]`; before the article's first heading, "
               "`<key>/<its id, its caption or the d-title heading>[-k]`."})
    mask: tuple[str, ...] = field(default=(), metadata={
        "doc": "Selectors painted a solid colour before the capture: what no capture can hold still."})
    style: Path | None = field(default=None, metadata={
        "doc": "A CSS file added to every page for the screenshots only."})
    offline: bool = field(default=True, metadata={
        "doc": "Abort every request that is neither to 127.0.0.1 nor routed."})
    route: Mapping[str, Path] = field(default_factory=dict, metadata={
        "doc": "URL prefix → local folder (serves every URL under the prefix), or URL → local file (serves "
               "that address only, with any query)."})
    snapshots: Path = field(default=Path("snapshots"), metadata={"doc": "The committed baselines."})
    artifacts: Path = field(default=Path(".theme-artifacts"), metadata={
        "doc": "Images of failed checks (git-ignored): a region's expected, actual and diff, a page's "
               "full-size actual with its bands, overview and patch. `theme accept` and `theme review` "
               "take page images from here."})
    report: Path = field(default=Path("visual-report"), metadata={
        "doc": "The review report's folder (HTML, `report.json`, `summary.md`)."})
    tile_height: int = field(default=16384, metadata={
        "doc": f"Pixels of page per capture call when stitching a tall page up to 1 280 px wide (at most "
               f"{MAX_TILE_HEIGHT}: taller calls silently drop rows; {MAX_TILE_HEIGHT} is 4–9 % faster on a "
               "130 000 px page but holds ~300 MB more in Chromium's compositor); a wider page gets the "
               "largest power of two with the same area. Unset, baselines keep the tile height they were "
               "made with."})
    # Whether [tool.theme.visual] set tile_height. When it did not, baselines keep the
    # tile height they were made with (keep_tile_height): a new default is no drift.
    tile_height_configured: bool = field(default=False, metadata={"key": False})
    # theme/capture/schedule.py, plan
    switch_schemes: bool = field(default=True, metadata={
        "doc": "Take a dark variant from its light page by switching the emulated scheme, when the page's "
               "scripts never read the scheme: the same pixels, one load less. `false` loads every variant "
               "afresh."})
    # theme/capture/chain.py
    chain_states: bool = field(default=True, metadata={
        "doc": "Take a variant's next reader state on the page the state before it used, reset, when that "
               "page is exactly as the first state found it: the same pixels, one load less. `false` loads "
               "every state afresh, in its own browser context."})
    # theme/capture/readiness.py, wait_quiet
    settle_timeout: int = field(default=30, metadata={
        "doc": "Seconds a page may take, after its load event, until its requests to 127.0.0.1 and routes, "
               "custom-element definitions, maths, images and fonts are done; past it the variant fails "
               "naming what was still pending."})
    allow_blocked: tuple[str, ...] = field(default=(), metadata={
        "doc": "URL prefixes (or paths under `root`) of scripts, stylesheets and fonts that may fail to "
               "load on purpose. Any other that is blocked or fails makes its variant fail: the render is "
               "not the page its author published."})
    allow_overflow: tuple[str, ...] = field(default=(), metadata={
        "doc": "Pages (as written in `pages`) that may be wider than their viewport. Elsewhere a horizontal "
               "overflow fails the variant, naming the widest elements."})
    # theme/capture/js/seeded.js
    seed: int = field(default=0, metadata={
        "doc": "`Math.random`, `crypto.getRandomValues` and `crypto.randomUUID` draw from a generator seeded "
               "with this and the page's path: a figure drawn from random numbers is the same on every run, "
               "machine and worker. A whole number from 0 to `2**53 - 1`."})
    # theme/capture/pagetime.py
    page_time: int = field(default=30, metadata={
        "doc": "Seconds of page time a page may use after its load and after its read-through (2 s after "
               "each reader-state step): its `Date`, `performance.now`, timers and `requestAnimationFrame` "
               "move only while a timer is due within it, then stay paused. A loop is captured at a fixed "
               "phase; an animation that ends within it, at its end."})
    real_time: tuple[str, ...] = field(default=(), metadata={
        "doc": "Pages (as written in `pages`) rendered in real time, without page time or seeded random "
               "numbers: for a page that misbehaves under them."})
    max_page_pixels: int = field(default=300_000_000, metadata={
        "doc": "The largest page image (width × height) a variant may have; 300 M px is 1.2 GB of RGBA. "
               "Past it the variant fails before its tiles are taken, saying its size and the memory it "
               "would need."})
    # theme/check/inputs.py
    skip_unchanged: bool = field(default=True, metadata={
        "doc": "Pass a variant without rendering when nothing its last written render depended on changed "
               "and its baselines are that render. `false` (or `--rerender`) renders every variant."})
    tolerance: Tolerance = field(default=Tolerance(), metadata={
        "doc": "The default tolerance of every image."})
    region_tolerance: Mapping[str, Tolerance] = field(default_factory=dict, metadata={
        "key": False, "doc": "A region key's own tolerance, as a table inside `tolerance`; the keys it leaves "
                             "out are the default tolerance's."})
    browser: BrowserConfig = field(default=BrowserConfig(), metadata={"doc": "Where pages are rendered."})
    states: tuple[StateConfig, ...] = field(default=(), metadata={
        "doc": "Reader states, each checked after the page's own images."})

    def states_of(self, page: str) -> list[StateConfig]:
        """The states that apply to `page`, in config order."""
        return [s for s in self.states if not s.pages or page in s.pages]

    def steps_of(self, state: StateConfig) -> list[Step]:
        """`state`'s steps after those of the states it is chained after (`after`)."""
        before = next(s for s in self.states if s.name == state.after) if state.after else None
        return (self.steps_of(before) if before else []) + list(state.steps)

    def tolerance_for(self, region_key: str | None) -> Tolerance:
        """The tolerance of a region key, falling back to the default one."""
        return self.region_tolerance.get(region_key or "", self.tolerance)


@dataclass(frozen=True)
class Config:
    project_dir: Path  # folder of the pyproject.toml; relative paths start here
    source: Path  # the file the config was read from, for error messages
    build: BuildConfig
    visual: VisualConfig | None = None


def keys(table: type) -> list[Field[Any]]:
    """The fields of a config dataclass that are keys a user writes, in order: all but those
    marked `"key": False` (filled in by the reader, or written as part of another key)."""
    return [f for f in fields(table) if f.metadata.get("key", True)]


# ---------------------------------------------------------------- loading


def find_pyproject(start: Path) -> Path:
    """The nearest pyproject.toml at or above `start` that has a [tool.theme] table."""
    start = start.resolve()
    for folder in (start, *start.parents):
        candidate = folder / PYPROJECT
        if candidate.is_file() and "[tool.theme" in candidate.read_text(encoding="utf-8"):
            return candidate
    raise ConfigError(
        f"{start}: no pyproject.toml with a [tool.theme] table here or above; "
        "add one or pass --config FILE"
    )


def load(path: Path | None = None, *, cwd: Path | None = None) -> Config:
    """Read the config from `path`, or from the nearest pyproject.toml above `cwd`."""
    source = Path(path) if path else find_pyproject(cwd or Path.cwd())
    source = source.resolve()
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"{source}: cannot read config: {err.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{source}: {err}; fix the TOML syntax") from None
    table = data.get("tool", {}).get("theme")
    if table is None:
        raise ConfigError(f"{source}: no [tool.theme] table; add one (see theme's configuration reference)")
    return parse(table, source=source, text=text)


def parse(table: Mapping[str, Any], *, source: Path, text: str = "") -> Config:
    """Turn the [tool.theme] mapping into a Config; `text` is only for error positions."""
    reader = _Reader(source, text)
    project_dir = source.parent
    table = dict(table)
    visual_table = table.pop("visual", None)
    build = _build_config(reader, table, project_dir)
    visual = None
    if visual_table is not None:
        visual = _visual_config(reader, reader.table(visual_table, "visual"), project_dir)
    return Config(project_dir=project_dir, source=source, build=build, visual=visual)


def _build_config(r: "_Reader", t: Mapping[str, Any], base: Path) -> BuildConfig:
    r.no_unknown(t, BuildConfig, "tool.theme")
    style = r.choice(t, "style", STYLES, "expanded")
    return BuildConfig(
        entry=base / r.string(t, "entry", "scss/style.scss"),
        outputs=tuple(
            base / p
            for p in r.strings(t, "outputs", ["article/src/style.css", "article/dist/style.css"])
        ),
        style=style,
        source_map=r.boolean(t, "source_map", False),
        include_paths=tuple(base / p for p in r.strings(t, "include_paths", [])),
        compiler=r.choice(t, "compiler", COMPILERS, "libsass"),
    )


def _visual_config(r: "_Reader", t: Mapping[str, Any], base: Path) -> VisualConfig:
    r.no_unknown(t, VisualConfig, "tool.theme.visual")
    defaults = VisualConfig(root=Path())
    tolerance_table = dict(r.table(t.get("tolerance", {}), "visual.tolerance"))
    per_region = {
        k: r.table(tolerance_table.pop(k), f"visual.tolerance.{k}")
        for k in list(tolerance_table)
        if isinstance(tolerance_table[k], dict)
    }
    default_tolerance = _tolerance(r, tolerance_table, Tolerance(), "visual.tolerance")
    style = t.get("style")
    pages = tuple(r.strings(t, "pages", list(defaults.pages)))
    for key in ("allow_overflow", "real_time"):
        for page in r.strings(t, key, []):
            if page not in pages:
                raise r.error(key, f"{key} names {page!r}, which is not one of pages "
                                   f"({', '.join(pages)}); list pages as they are written in pages")
    seed = t.get("seed", defaults.seed)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**53:
        raise r.error("seed", f"seed must be a whole number from 0 to 2**53 - 1, got {seed!r}")
    return VisualConfig(
        root=base / r.string(t, "root", "article/dist"),
        pages=pages,
        viewports=_viewports(r, t.get("viewports", defaults.viewports)),
        color_schemes=tuple(
            r.choices(t, "color_schemes", COLOR_SCHEMES, list(defaults.color_schemes))
        ),
        full_page=r.boolean(t, "full_page", True),
        regions=dict(r.table(t.get("regions", {}), "visual.regions")),
        mask=tuple(r.strings(t, "mask", [])),
        style=base / r.string(t, "style", "") if style else None,
        offline=r.boolean(t, "offline", True),
        route={k: base / v for k, v in r.table(t.get("route", {}), "visual.route").items()},
        snapshots=base / r.string(t, "snapshots", "snapshots"),
        artifacts=base / r.string(t, "artifacts", ".theme-artifacts"),
        report=base / r.string(t, "report", "visual-report"),
        tile_height=_tile_height(r, t, defaults.tile_height),
        tile_height_configured="tile_height" in t,
        switch_schemes=r.boolean(t, "switch_schemes", True),
        chain_states=r.boolean(t, "chain_states", True),
        settle_timeout=r.positive_int(t, "settle_timeout", defaults.settle_timeout),
        allow_blocked=tuple(r.strings(t, "allow_blocked", [])),
        allow_overflow=tuple(r.strings(t, "allow_overflow", [])),
        seed=seed,
        page_time=r.positive_int(t, "page_time", defaults.page_time),
        real_time=tuple(r.strings(t, "real_time", [])),
        max_page_pixels=r.positive_int(t, "max_page_pixels", defaults.max_page_pixels),
        skip_unchanged=r.boolean(t, "skip_unchanged", True),
        tolerance=default_tolerance,
        region_tolerance={
            k: _tolerance(r, v, default_tolerance, f"visual.tolerance.{k}")
            for k, v in per_region.items()
        },
        browser=_browser(r, r.table(t.get("browser", {}), "visual.browser")),
        states=_states(r, t.get("states", []), pages),
    )


_STATE_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def _states(r: "_Reader", value: Any, pages: tuple[str, ...]) -> tuple[StateConfig, ...]:
    """[[tool.theme.visual.states]], checked whole: names unique, chains known and acyclic."""
    if not isinstance(value, list):
        raise r.error("states", "states must be an array of tables: [[tool.theme.visual.states]]")
    out: list[StateConfig] = []
    for t in value:
        state = _state(r, r.table(t, "visual.states"), pages)
        if any(s.name == state.name for s in out):
            raise r.error("name", f"two states are named {state.name!r}; give each state its own name")
        out.append(state)
    names = {s.name for s in out}
    for s in out:
        seen = {s.name}
        link = s.after
        while link is not None:
            if link not in names:
                raise r.error("after", f"state {s.name!r}: after = {link!r} names no state; "
                                       f"known: {', '.join(sorted(names))}")
            if link in seen:
                raise r.error("after", f"state {s.name!r}: its after chain comes back to {link!r}; break the loop")
            seen.add(link)
            link = next(o.after for o in out if o.name == link)
    return tuple(out)


def _state(r: "_Reader", t: Mapping[str, Any], pages: tuple[str, ...]) -> StateConfig:
    r.no_unknown(t, StateConfig, "tool.theme.visual.states")
    if "name" not in t:
        raise r.error("states", "a state needs a name, e.g. name = \"cite-hover\"")
    name = r.string(t, "name", "")
    if not _STATE_NAME.match(name):
        raise r.error("name", f"state name {name!r} must be lower-case letters, digits and '-' (it names a folder)")
    for page in r.strings(t, "pages", []):
        if page not in pages:
            raise r.error("pages", f"state {name!r} names page {page!r}, which is not one of pages "
                                   f"({', '.join(pages)})")
    steps = t.get("steps", [])
    if not isinstance(steps, list) or not steps and "after" not in t:
        raise r.error("steps", f"state {name!r}: steps must be a non-empty array of tables, "
                               "e.g. steps = [{ hover = \"d-cite\" }]")
    capture = t.get("capture")
    if not isinstance(capture, dict) or not capture or not all(isinstance(v, str) and v for v in capture.values()):
        raise r.error("capture" if "capture" in t else "name",
                      f"state {name!r}: capture must be a table of region key -> selector "
                      f"(or \"{VIEWPORT}\"), e.g. capture = {{ hover-box = \"d-cite d-hover-box .panel\" }}")
    padding = t.get("padding", 8)
    if not isinstance(padding, int) or isinstance(padding, bool) or padding < 0:
        raise r.error("padding", f"state {name!r}: padding must be a whole number of px >= 0, got {padding!r}")
    after = t.get("after")
    if after is not None and not (isinstance(after, str) and after):
        raise r.error("after", f"state {name!r}: after must name another state, got {after!r}")
    return StateConfig(name=name, steps=tuple(_step(r, s, name, i) for i, s in enumerate(steps, 1)),
                       capture=dict(capture), pages=tuple(r.strings(t, "pages", [])), padding=padding,
                       contrast=r.choice(t, "contrast", CONTRAST_KINDS, "none"), after=after,
                       mask=tuple(r.strings(t, "mask", [])) if "mask" in t else None)


def _step(r: "_Reader", t: Any, state: str, number: int) -> Step:
    where = f"state {state!r}, step {number}"
    example = "e.g. { hover = \"d-cite\" } or { fill = \"#input\", text = \"cat\" }"
    if not isinstance(t, dict):
        raise r.error("steps", f"{where}: a step is an inline table, {example}; got {t!r}")
    actions = [k for k in t if k in STEP_ACTIONS]
    if len(actions) != 1:
        raise r.error("steps", f"{where}: a step has exactly one of {', '.join(STEP_ACTIONS)}, {example}; "
                               f"got {', '.join(t) or 'none'}")
    action = actions[0]
    target = t[action]
    options: dict[str, str] = {}
    if action == "wait_for" and isinstance(target, dict):  # { wait_for = { condition = "js" } }
        condition = target.get("condition")
        if set(target) != {"condition"} or not isinstance(condition, str) or not condition:
            raise r.error("steps", f"{where}: wait_for takes a selector or {{ condition = \"<JavaScript>\" }}")
        target, options["condition"] = condition, "true"
    if not isinstance(target, str) or not target:
        raise r.error("steps", f"{where}: {action} needs a non-empty string, {example}")
    for key, val in t.items():
        if key == action:
            continue
        if key not in STEP_ACTIONS[action]:
            raise r.error("steps", f"{where}: {action} does not take {key!r}"
                                   + (f"; it takes {', '.join(STEP_ACTIONS[action])}" if STEP_ACTIONS[action] else ""))
        if key == "times":  # a key pressed again and again: Backspace until a field is empty
            if not isinstance(val, int) or isinstance(val, bool) or not 1 <= val <= 100:
                raise r.error("steps", f"{where}: times must be a whole number from 1 to 100, got {val!r}")
            val = str(val)
        if not isinstance(val, str):
            raise r.error("steps", f"{where}: {key} must be a string, got {val!r}")
        options[key] = val
    for needed in {"fill": "text", "select": "value"}.items():
        if action == needed[0] and needed[1] not in options:
            raise r.error("steps", f"{where}: {action} needs {needed[1]} = \"…\"")
    return Step(action, target, options)


def _browser(r: "_Reader", t: Mapping[str, Any]) -> BrowserConfig:
    r.no_unknown(t, BrowserConfig, "tool.theme.visual.browser")
    return BrowserConfig(endpoints=tuple(r.strings(t, "endpoints", [])),
                         lanes=r.positive_int(t, "lanes", BrowserConfig.lanes))


def _tile_height(r: "_Reader", t: Mapping[str, Any], default: int) -> int:
    value = r.positive_int(t, "tile_height", default)
    if value > MAX_TILE_HEIGHT:
        raise r.error("tile_height", f"tile_height {value} is above {MAX_TILE_HEIGHT}: taller capture calls "
                                     "silently drop rows; use at most 32768")
    return value


def keep_tile_height(visual: VisualConfig, recorded: int | None) -> tuple[VisualConfig, str | None]:
    """`visual` with the tile height its baselines were made with (`recorded`, from the
    manifest), when the config does not set one; and a note when that is not theme's default.

    The tile height is part of a baseline's environment, since it can move pixels, so
    taking baselines of one tile height with another would be drift. Keeping what they
    were made with lets theme's default change without every baseline set reporting drift;
    setting tile_height and running --update-snapshots=all once moves a set to another."""
    if visual.tile_height_configured or recorded is None or recorded == visual.tile_height:
        return visual, None
    if not 0 < recorded <= MAX_TILE_HEIGHT:
        return visual, None  # not a height theme could have used: the manifest's drift check says so
    note = (f"tile_height: the baselines were made with {recorded}-px tiles, so this run takes its pages that way; "
            f"theme's default is {visual.tile_height} (less browser memory): to move to it, set tile_height = "
            f"{visual.tile_height} in [tool.theme.visual] and run pytest --update-snapshots=all once")
    return replace(visual, tile_height=recorded), note


def _tolerance(r: "_Reader", t: Mapping[str, Any], base: Tolerance, where: str) -> Tolerance:
    r.no_unknown(t, Tolerance, f"tool.theme.{where}")
    values = {}
    for f in fields(Tolerance):
        if f.name in t:
            values[f.name] = r.number(t, f.name, where, kind=type(getattr(base, f.name)))
    return Tolerance(**{**base.__dict__, **values})


def _viewports(r: "_Reader", value: Any) -> dict[str, tuple[int, int]]:
    table = r.table(value, "visual.viewports")
    out = {}
    for name, size in table.items():
        ok = (
            isinstance(size, (list, tuple))
            and len(size) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)
        )
        if not ok:
            raise r.error(name, f"viewport {name!r} must be two positive integers [width, height], got {size!r}")
        out[name] = (size[0], size[1])
    if not out:
        raise r.error("viewports", "viewports is empty; name at least one, e.g. desktop = [1280, 800]")
    return out


def key_position(source: Path, key: str, *, text: str | None = None, table: str | None = None,
                 shown: str | None = None) -> str:
    """Where `key` is set in the config file, for messages: `file:line:col`.

    The first line anywhere that sets it, else just `file`; with `table`, only
    inside `[table]`, else that table's header (`file:1:1` without one). `text`: the
    file's text if the caller has it (else read; unreadable: `file`); `shown`: how
    the file is named (default: `source`)."""
    shown = str(source) if shown is None else shown
    if text is None:
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError:
            return shown
    header, found = _find_key(text.splitlines(), key, table)
    if found is not None:
        return f"{shown}:{found[0]}:{found[1]}"
    return shown if table is None else f"{shown}:{header or 1}:1"


def _find_key(lines: list[str], key: str, table: str | None) -> tuple[int | None, tuple[int, int] | None]:
    """(line of `[table]`'s header, (line, column) of the first assignment of `key` in it)."""
    k = re.escape(key)
    pattern = re.compile(rf'^\s*(?P<key>"{k}"|{k})\s*=|[{{,]\s*(?P<inline>{k})\s*=')
    header = None
    for number, line in enumerate(lines, start=1):
        if table is not None:
            stripped = line.strip()
            if stripped == f"[{table}]":
                header = number
                continue
            if header is None:
                continue
            if stripped.startswith("["):
                break
        m = pattern.search(line)
        if m:
            group = "key" if m.group("key") is not None else "inline"
            return header, (number, m.start(group) + 1)
    return header, None


class _Reader:
    """Typed access to a TOML table with errors that point into the file."""

    def __init__(self, source: Path, text: str):
        self.source = source
        self.text = text

    def error(self, key: str, message: str) -> ConfigError:
        return ConfigError(f"{key_position(self.source, key, text=self.text)}: {message}")

    def no_unknown(self, t: Mapping[str, Any], table: type, where: str) -> None:
        names = {f.name for f in keys(table)}
        for key in t:
            if key not in names:
                hint = ", ".join(sorted(names))
                raise self.error(key, f"unknown key {key!r} in [{where}]; known keys: {hint}")

    def table(self, value: Any, where: str) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self.error(where.split(".")[-1], f"[tool.theme.{where}] must be a table, got {value!r}")
        return value

    def string(self, t: Mapping[str, Any], key: str, default: str) -> str:
        value = t.get(key, default)
        if not isinstance(value, str) or (key in t and not value):
            raise self.error(key, f"{key} must be a non-empty string, got {value!r}")
        return value

    def strings(self, t: Mapping[str, Any], key: str, default: list[str]) -> list[str]:
        value = t.get(key, default)
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.error(key, f"{key} must be a list of non-empty strings, got {value!r}")
        return value

    def choice(self, t: Mapping[str, Any], key: str, allowed: tuple[str, ...], default: str) -> str:
        value = t.get(key, default)
        if value not in allowed:
            raise self.error(key, f"{key} must be one of {', '.join(allowed)}; got {value!r}")
        return str(value)

    def choices(self, t: Mapping[str, Any], key: str, allowed: tuple[str, ...], default: list[str]) -> list[str]:
        values = self.strings(t, key, default)
        for value in values:
            if value not in allowed:
                raise self.error(key, f"{key}: {value!r} is not one of {', '.join(allowed)}")
        return values

    def boolean(self, t: Mapping[str, Any], key: str, default: bool) -> bool:
        value = t.get(key, default)
        if not isinstance(value, bool):
            raise self.error(key, f"{key} must be true or false, got {value!r}")
        return value

    def positive_int(self, t: Mapping[str, Any], key: str, default: int) -> int:
        value = t.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise self.error(key, f"{key} must be a positive integer, got {value!r}")
        return value

    def number(self, t: Mapping[str, Any], key: str, where: str, kind: type) -> Any:
        value = t[key]
        if kind is bool:
            if not isinstance(value, bool):
                raise self.error(key, f"{where}.{key} must be true or false, got {value!r}")
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise self.error(key, f"{where}.{key} must be a number >= 0, got {value!r}")
        if kind is int and not isinstance(value, int):
            raise self.error(key, f"{where}.{key} must be a whole number, got {value!r}")
        if key in ("threshold", "max_diff_ratio") and value > 1:
            raise self.error(key, f"{where}.{key} must be between 0 and 1, got {value!r}")
        return kind(value)
