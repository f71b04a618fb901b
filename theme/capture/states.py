"""Reader states (config `states`): what a page shows after a reader does something, a
hover box open, a link focused, a figure after an input.

Each state is captured from a fresh page of its variant, loaded and settled like the page's
own capture (frozen: transitions off, animations finished), so no state sees another's
changes. Its steps are done as a reader does them, through Playwright's pointer and
keyboard; after each one the page settles again. Then the page must be still twice in a
row, the viewport is taken (a hover box lives in the viewport, under the pointer: taking
the whole page would grow the view, move the page under the pointer and close the box),
and each captured element is cropped from it, named like the page's regions."""

from __future__ import annotations

import base64
import math
import time
from typing import TYPE_CHECKING, Any, Sequence

from ..core.config import VIEWPORT, StateConfig, Step
from ..core.errors import RenderError
from ..stylesheet.contrast import composite, contrast_ratio, parse_colour
from . import bounded, scripts, shoot
from .bounded import evaluate, screenshot
from .config_checks import config_position
from .lanes import Pending
from .model import Capture, JsonObject, PageStyles, Progress, Region, label, mark
from .naming import element_names
from .readiness import Readiness, Shots, paint_masks, wait_loaded, wait_stable
from .server import LocalServer
from .shoot import page_fingerprint
from .tiles import decode_png

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Locator, Page

TEXT_RATIO = 4.5  # WCAG 2 1.4.3, normal text
FOCUS_RATIO = 3.0  # WCAG 2 1.4.11, a focus indicator against what is next to it
WHITE = (1.0, 1.0, 1.0)  # sRGB channels 0..1, as theme.stylesheet.contrast works


class StateError(RenderError):
    """A state that could not be reached or fails its contrast: that state's item fails."""

    def __init__(self, message: str, kind: str = "state"):
        super().__init__(message, kind=kind)


# What a state starts from (start_look): the page's state_start.js string, its layout hash and
# its first screen's hash. Equal looks: the same document, laid out and painted the same.
StartLook = tuple[str, list[int], str]


def start_look(job: Pending, readiness: Readiness) -> StartLook:
    """The look `job`'s page has before a state's steps (see StartLook), the config's masks left
    out: painted over for the first screen, as the page's capture paints them (what a script
    keeps changing is masked), and lifted again before the steps, which may act on them."""
    page, at, masks = job.page, label(job.variant), readiness.visual.mask
    shots = Shots(job.lane.cdp, readiness.answer_s, at)
    if masks:
        paint_masks(page, shots, at, masks, readiness.mask_at)
    layout, first_screen = wait_stable(page, shots, at, masks, readiness.mask_at)
    assert first_screen is not None  # wait_stable with pixels
    if masks:
        evaluate(page, scripts.UNMASK)
    return evaluate(page, scripts.STATE_START, list(masks)), layout, first_screen


def settle_fresh(job: Pending, readiness: Readiness, say: Progress) -> None:
    """`job`'s page, just opened for a state variant, loaded and settled (as the page's own capture is)."""
    at = label(job.variant)
    say(f"{at}: loading")
    t = time.perf_counter()
    wait_loaded(job.page, job.url, at)
    readiness.settle(job.lane, job.variant, at, job.explain)
    mark(job.timings, "settle", t)


def reset(job: Pending, readiness: Readiness) -> None:
    """Undo what a reader does between two states: the pointer leaves the page, the focused
    element is blurred, the page scrolls back to the top; then wait for quiet (a hover box's
    hiding timer). Whether that brought back the start is for start_look to say."""
    at = label(job.variant)
    bounded.send(job.lane.cdp, "Input.dispatchMouseEvent", {"type": "mouseMoved", "x": -1, "y": -1},
                 seconds=readiness.answer_s, unanswered=f"{at}: the page did not take the pointer leaving it")
    evaluate(job.page, scripts.UNMASK)  # the last state's masks
    evaluate(job.page, "() => { document.activeElement?.blur(); getSelection()?.removeAllRanges(); "
                       "window.scrollTo(0, 0); }")
    readiness.wait_quiet(job.lane, job.variant, at, job.explain, "reset")


def capture_state(job: Pending, readiness: Readiness, state: StateConfig, fingerprint: JsonObject,
                  server: LocalServer, say: Progress) -> Capture:
    """`job`'s page, settled (settle_fresh, or reset after an earlier state of its variant),
    `state`'s steps done, captured; `fingerprint`: the session's, which the capture's extends
    with the fonts its page used."""
    variant, page, timings, explain = job.variant, job.page, job.timings, job.explain
    visual, source = readiness.visual, readiness.source
    at = label(variant)
    t = time.perf_counter()
    written_at = _at(source, state)  # the config file, read once for every message below
    done: list[JsonObject] = []
    explain["steps"] = done
    for number, step in enumerate(visual.steps_of(state), 1):
        where = f"{at}: step {number} ({step.describe()})"
        _do(page, step, where, visual.settle_timeout, written_at)
        after: JsonObject = {}
        readiness.wait_quiet(job.lane, variant, at, after, "settle")
        evaluate(page, scripts.STOP_ANIMATIONS)  # an animation a step started ends now, as a reader sees it at rest
        t1 = time.perf_counter()
        done.append({"step": step.describe(), "seconds": round(t1 - t, 3), "settled": after["settle"]})
        t = mark(timings, f"step {number}", t)
    shots = Shots(job.lane.cdp, readiness.answer_s, at)
    masks = visual.mask if state.mask is None else state.mask
    if masks:
        paint_masks(page, shots, at, masks, readiness.mask_at)
    wait_stable(page, shots, at, masks, readiness.mask_at)
    t = mark(timings, "stable", t)
    data = screenshot(job.lane.cdp, {"format": "png", "fromSurface": True}, readiness.answer_s, f"{at}: the viewport")
    image = decode_png(base64.b64decode(data), what=f"{at} viewport")
    found = _regions(page, state, variant.width, variant.height, at, written_at)
    fonts = evaluate(page, _FONTS)  # as the page's own capture reads them: the same environment
    fingerprint = page_fingerprint(fingerprint, fonts, server, visual)
    styles = (_style_records(page, found, masks, shoot.DrawnFiles(server, visual.route))
              if shoot.RECORD_STYLES else {})
    t = mark(timings, "regions", t)
    if state.contrast != "none":
        explain["contrast"] = check_contrast(page, state, found, at, written_at)
    mark(timings, "contrast", t)
    say(f"{at}: captured {len(found)} region(s) after {len(done)} step(s)")
    return Capture(variant=variant, image=image, regions=[r for r, _ in found], aborted=sorted(job.aborted),
                   styles=styles,
                   fingerprint=fingerprint, seconds=time.perf_counter() - job.opened, full_page=False,
                   timings=timings, explain={**explain, "routed": sorted(job.lane.routed)},
                   loaded=job.lane.loaded())


_FONTS = (f"() => ({{fonts: ({scripts.FONT_FAMILIES})(), "
          "resources: (window.__themeReal || window).performance.getEntriesByType('resource')"
          ".map((e) => e.name)})")  # the browser's own performance: page time's lists no entries


def _at(source: Path | None, state: StateConfig) -> str:
    """Where the state is written in the config, for messages: its `name = "…"` line."""
    if source is None:
        return "[[tool.theme.visual.states]]"
    try:
        lines = source.read_text(encoding="utf-8").splitlines()
    except OSError:
        return str(source)
    for number, line in enumerate(lines, 1):
        stripped = line.replace(" ", "")
        if stripped.startswith(f'name="{state.name}"') or f'name="{state.name}"' in stripped and "{" in stripped:
            return f"{source}:{number}:{line.index('name') + 1}"
    return config_position(source, "states")


def _visible(page: Page, selector: str, where: str, timeout_s: int, at: str) -> Locator:
    """The first visible element `selector` matches (Playwright selectors pierce open shadow
    roots). Matching nothing fails at once, naming the selector; matching only hidden
    elements fails once none has become visible within `timeout_s`."""
    from playwright.sync_api import Error as PlaywrightError

    count = page.locator(selector).count()
    if count == 0:
        raise StateError(f"{where}: {selector!r} matches nothing on the page; fix the selector in the state at {at}")
    first = page.locator(f"{selector} >> visible=true").first
    try:
        first.wait_for(state="visible", timeout=timeout_s * 1000)
    except PlaywrightError:
        raise StateError(f"{where}: {selector!r} matches {count} element(s), none visible after {timeout_s} s; "
                         f"add a step that shows it first, or fix the selector at {at}") from None
    return first


def _do(page: Page, step: Step, where: str, timeout_s: int, at: str) -> None:
    """One step, as a reader does it. The element is scrolled to the middle of the viewport
    first, so what it opens (a hover box below it) is on screen, at the same place each run."""
    from playwright.sync_api import Error as PlaywrightError

    timeout = timeout_s * 1000
    try:
        if step.action == "wait_for":
            if step.options.get("condition"):
                page.wait_for_function(step.target, timeout=timeout)
            else:
                _visible(page, step.target, where, timeout_s, at)
            return
        if step.action == "press" and "on" not in step.options:  # wherever focus is
            with bounded.watched(page, f"pressing {step.target}"):
                for _ in range(int(step.options.get("times", "1"))):
                    page.keyboard.press(step.target)
            return
        if step.action == "type" and "on" not in step.options:
            with bounded.watched(page, f"typing {step.target!r}"):
                page.keyboard.type(step.target)
            return
        selector = step.options.get("on", step.target)
        target = _visible(page, selector, where, timeout_s, at)
        with bounded.watched(page, f"scrolling {selector} into view"):  # timeout= finds it
            target.evaluate("(e) => e.scrollIntoView({block: 'center', inline: 'nearest'})", timeout=timeout)
        if step.action == "hover":
            target.hover(timeout=timeout)
        elif step.action == "focus":
            target.focus(timeout=timeout)
        elif step.action == "click":
            target.click(timeout=timeout)
        elif step.action == "fill":
            target.fill(step.options["text"], timeout=timeout)
        elif step.action == "press":
            for _ in range(int(step.options.get("times", "1"))):
                target.press(step.target, timeout=timeout)
        elif step.action == "type":  # key by key, as a reader types: the page's key handlers see each
            target.press_sequentially(step.target, timeout=timeout)
        elif step.action == "select":
            target.select_option(step.options["value"], timeout=timeout)
    except PlaywrightError as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise StateError(f"{where}: the browser could not do it ({first}); fix the step at {at}") from None


def _regions(page: Page, state: StateConfig, width: int, height: int, where: str,
             at: str) -> list[tuple[Region, Any]]:
    """Each captured element as a Region of the viewport image (with `padding` around it),
    and the element (a handle; None for the viewport). Every visible match is captured; one that is not
    wholly inside the viewport fails the state rather than be cut."""
    out: list[tuple[Region, Any]] = []
    for key, selector in state.capture.items():
        if selector == VIEWPORT:
            out.append((Region(key, "viewport", (0, 0, width, height), "", VIEWPORT), None))
            continue
        visible = page.locator(f"{selector} >> visible=true")
        with bounded.watched(page, f"finding capture {key}"):
            got: JsonObject = visible.evaluate_all(scripts.STATE_REGIONS)
        boxes = [b for b in got["found"] if b["width"] > 0 and b["height"] > 0]
        if not boxes:
            raise StateError(f"{where}: capture {key} = {selector!r} matches nothing visible after the steps; "
                             f"fix the selector or the steps at {at}")
        # named as the page's regions are: never after the byline's "DOI" (naming.element_names)
        named = element_names(boxes, got["headings"], got.get("placed"), got.get("title"))
        for b, (name, by) in zip(boxes, named, strict=True):
            x0, y0 = math.floor(b["x"]) - state.padding, math.floor(b["y"]) - state.padding
            x1, y1 = math.ceil(b["x"] + b["width"]) + state.padding, math.ceil(b["y"] + b["height"]) + state.padding
            if b["x"] < 0 or b["y"] < 0 or b["x"] + b["width"] > width or b["y"] + b["height"] > height:
                raise StateError(
                    f"{where}: capture {key} = {selector!r} is not wholly inside the {width}×{height} viewport "
                    f"after the steps (x {b['x']:.0f}, y {b['y']:.0f}, {b['width']:.0f}×{b['height']:.0f} px); "
                    f"capture a smaller element, or add a scroll_into_view step, at {at}")
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
            box = (x0, y0, x1 - x0, y1 - y0)
            css = (float(b["x"]), float(b["y"]), float(b["width"]), float(b["height"]))
            heading = got["headings"][by] if by is not None else (got.get("title") or "")  # as regions.regions
            path = str(b.get("path") or selector)  # where it is in the page, as a page region's selector says
            out.append((Region(key, name, box, heading, path, css), visible.nth(b["index"]).element_handle()))
    return out


def _style_records(page: Page, found: list[tuple[Region, Any]], masks: Sequence[str],
                   files: shoot.DrawnFiles) -> dict[str, PageStyles]:
    """Region path -> its style record, as the page's regions have theirs (shoot.style_records),
    read on the elements the state's selectors found: a failed hover box then says which
    colour or size changed."""
    asked = [{"key": r.path.as_posix(), "element": element} for r, element in found if element is not None]
    if not asked:
        return {}
    return shoot.read_records(page, asked, masks, files)


def check_contrast(page: Page, state: StateConfig, found: list[tuple[Region, Any]], where: str,
                   at: str) -> JsonObject:
    """The state's contrast, measured on the rendered page; below the WCAG minimum fails the
    state, naming both colours and the ratio. Returns what was measured, for --explain."""
    if state.contrast == "focus":
        got: JsonObject = evaluate(page, scripts.STATE_CONTRAST, {"elements": [], "kind": "focus"})
        minimum = FOCUS_RATIO
        if got["focused"] is None:
            raise StateError(f"{where}: no element has focus after the steps, so there is no focus indicator "
                             f"to measure; add a focus step, at {at}", kind="contrast")
        if got.get("ring") == "auto":  # the browser's own two-tone ring: visible on any background
            return {"minimum": minimum, "measured": [], "ring": "the browser's own (outline-style: auto)"}
        if not got["found"]:
            raise StateError(f"{where}: {got['focused']} has focus but no outline nor box-shadow: a keyboard "
                             f"reader cannot see where focus is; give :focus-visible an outline", kind="contrast")
    else:
        minimum = TEXT_RATIO
        elements = [element for _, element in found if element is not None]
        with bounded.watched(page, "measuring the text's contrast"):
            got = page.evaluate(f"(els) => ({scripts.STATE_CONTRAST})({{elements: els, kind: 'text'}})", elements)
    canvas = _solid(got["canvas"])
    measured = []
    for item in got["found"]:
        under = _behind(item["under"], canvas)
        top = parse_colour(item["colour"]) or (0.0, 0.0, 0.0, 1.0)
        fg = composite(top, under)
        ratio = contrast_ratio(fg, under)
        measured.append({"what": item["what"], "colour": _hex(fg), "background": _hex(under),
                         "ratio": round(ratio, 2)})
    if not measured:
        return {"minimum": minimum, "measured": []}
    worst = min(measured, key=lambda m: m["ratio"])
    if worst["ratio"] < minimum:
        what = "focus indicator" if state.contrast == "focus" else "text"
        raise StateError(
            f"{where}: {what} {worst['what']} is {worst['colour']} on {worst['background']}, contrast "
            f"{worst['ratio']:.2f}:1, below {minimum:g}:1; change the colours, or set contrast = \"none\" "
            f"on the state at {at}", kind="contrast")
    return {"minimum": minimum, "worst": worst, "measured": len(measured)}


def _solid(value: str) -> tuple[float, float, float]:
    """The page's canvas: the root's background, over white when it is (partly) transparent."""
    colour = parse_colour(value)
    return WHITE if colour is None else composite(colour, WHITE)


def _behind(stack: list[str], canvas: tuple[float, float, float]) -> tuple[float, float, float]:
    """What a reader sees behind an element: its background colours composited from the root up."""
    under = canvas
    for value in reversed(stack):
        colour = parse_colour(value)
        if colour is not None:
            under = composite(colour, under)
    return under


def _hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(c * 255):02x}" for c in rgb)
