"""Reader states end to end on the specimen (article/dist, copied), in a real Chromium through
pytest: the first citation's and footnote's hover boxes (inside the Distill runtime's shadow
roots) and the focus ring of the first link, in 4 variants, identical twice; a dark hover-box
colour changed fails exactly the dark hover-box items; a state whose selector matches nothing
fails its own items and nothing else; a focus ring at about 2:1 in dark is reported with both
colours and the ratio; `theme capture --explain`'s lines for a state.

The runs are shared by the tests of this module: one baseline run, one check, one run with three
changes (each test reads its own change's failures).
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from subrun import PYTEST
from theme.stylesheet.contrast import contrast_ratio, parse_colour

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
DIST = REPO / "article" / "dist"
BROWSER = os.environ.get("THEME_BROWSER", "/usr/bin/chromium")
STATES = """
[[tool.theme.visual.states]]
name = "cite-hover"
steps = [{ hover = "d-cite" }]
capture = { hover-box = "d-cite d-hover-box .panel" }
contrast = "text"

[[tool.theme.visual.states]]
name = "footnote-hover"
steps = [{ hover = "d-footnote" }]
capture = { hover-box = "d-footnote d-hover-box .panel" }
contrast = "text"

[[tool.theme.visual.states]]
name = "link-focus"
steps = [{ focus = "d-article a" }]
capture = { focused = "d-article a:focus-visible" }
contrast = "focus"
"""
PYPROJECT = """\
[tool.theme.visual]
root = "dist"
pages = ["index.html"]
viewports = { mobile = [390, 844], desktop = [1280, 800] }
color_schemes = ["light", "dark"]
full_page = false
regions = { code = "d-code[block]" }
offline = true
route = { "https://distill.pub/third-party/katex/" = "dist/assets/katex" }
""" + STATES
MISSING = """
[[tool.theme.visual.states]]
name = "nothing-hover"
steps = [{ hover = "d-nothing-here" }]
capture = { box = "d-nothing-here" }
"""
DARK_POPUP = ("--theme-runtime-popup-color: #24292f;", "--theme-runtime-popup-color: #7a1f1f;")
DARK_RING = ("--theme-focus-ring-color: #8ab4f8;", "--theme-focus-ring-color: #4a4f57;")
VARIANTS = ("mobile-light", "mobile-dark", "desktop-light", "desktop-dark")


def pytest_run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    return subprocess.run([*PYTEST, "--visual-only", "-rf", *args],
                          cwd=project, env=env, capture_output=True, text=True)


def entries(project: Path) -> dict[str, dict]:
    rep = json.loads((project / "visual-report" / "report.json").read_text(encoding="utf-8"))
    return {e["key"]: e for e in rep["entries"]}


def failed(project: Path) -> dict[str, dict]:
    return {k: e for k, e in entries(project).items() if e["status"] == "failed"}


def state_images(project: Path) -> dict[str, bytes]:
    return {p.relative_to(project / "snapshots").as_posix(): p.read_bytes()
            for p in sorted((project / "snapshots").rglob("state/**/*.png"))}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The specimen's copy with baselines made (the first run), then checked once (the second)."""
    if not Path(BROWSER).exists():
        pytest.skip(f"no browser at {BROWSER}; set THEME_BROWSER or run `theme setup`")
    root = tmp_path_factory.mktemp("states")
    shutil.copytree(DIST, root / "dist")
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    done = pytest_run(root, "--update-snapshots")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return root


@pytest.fixture(scope="module")
def first_images(project: Path) -> dict[str, bytes]:
    return state_images(project)


@pytest.fixture(scope="module")
def second(project: Path, first_images: dict[str, bytes]) -> subprocess.CompletedProcess[str]:
    return pytest_run(project, "--rerender")  # rendered again, not skipped as unchanged


def changed_run(project: Path, changes: tuple[tuple[str, str], ...] = (), extra: str = "") -> dict[str, dict]:
    """One check with `changes` made to style.css and `extra` added to the config; all undone after."""
    css, config = project / "dist" / "style.css", project / "pyproject.toml"
    original_css, original_config = css.read_text(encoding="utf-8"), config.read_text(encoding="utf-8")
    changed = original_css
    for old, new in changes:
        assert changed.count(old) == 2, "the specimen's dark block moved; update the test"
        changed = changed.replace(old, new)
    css.write_text(changed, encoding="utf-8")
    config.write_text(original_config + extra, encoding="utf-8")
    try:
        done = pytest_run(project)
        assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
        return {**failed(project), "__stdout__": {"text": done.stdout}}
    finally:
        css.write_text(original_css, encoding="utf-8")
        config.write_text(original_config, encoding="utf-8")


@pytest.fixture(scope="module")
def changed(project: Path, second: object) -> dict[str, dict]:
    """One check with three changes, each reaching its own items: the dark hover boxes' colour,
    the dark focus ring's colour, and a state whose selector matches nothing. Each test below
    reads the failures of its own change; test_three_changes_fail_their_own_items_and_nothing_else
    that there are no others (one render of the 16 variants instead of three)."""
    return changed_run(project, (DARK_POPUP, DARK_RING), extra=MISSING)


def of_state(fails: dict[str, dict], *states: str) -> dict[str, dict]:
    return {k: e for k, e in fails.items() if any(f"/state/{s}/" in k for s in states)}


def test_hover_boxes_and_focus_are_captured_in_four_variants(project: Path, first_images: dict[str, bytes]) -> None:
    by_state: dict[str, set[str]] = {}
    for key in first_images:
        page, variant, _, state, *_ = key.split("/")
        assert page == "index"
        by_state.setdefault(state, set()).add(variant)
    assert by_state == {s: set(VARIANTS) for s in ("cite-hover", "footnote-hover", "link-focus")}
    for key in first_images:
        img = np.asarray(Image.open(project / "snapshots" / key).convert("RGB")).astype(int)
        assert img.shape[0] >= 20 and img.shape[1] >= 60, key
        assert np.ptp(img) > 100, f"{key} is one flat colour: the box was not open"
        if "hover-box" in key:  # the runtime's near-white panel, in both schemes
            assert img[img.shape[0] // 2].mean() > 180, key


def test_states_are_identical_on_a_second_run(project: Path, first_images: dict[str, bytes],
                                              second: subprocess.CompletedProcess[str]) -> None:
    assert second.returncode == 0, second.stdout[-3000:]
    states = {k: e for k, e in entries(project).items() if "/state/" in k}
    assert len(states) == 12 and all(e["status"] == "matched" for e in states.values()), states
    assert state_images(project) == first_images
    listed = pytest_run(project, "--collect-only", "-q").stdout
    assert re.search(r"^index\[desktop-dark\]::state/cite-hover/hover-box/[a-z0-9-]+$", listed, re.M), listed[-2000:]


def test_an_unchanged_page_and_its_states_are_not_rendered_again(project: Path, second: object) -> None:
    """The input skip (theme/check/inputs.py) with states: each state variant is skipped on its
    own record, and a page variant is skipped although its folder holds its states' folders."""
    done = pytest_run(project)
    assert done.returncode == 0, done.stdout[-3000:]
    said = next(line for line in done.stdout.splitlines() if line.startswith("theme: "))
    total = re.match(r"theme: (\d+) matched, 0 failed \((\d+) matched with inputs unchanged", said)
    assert total and total.group(1) == total.group(2) and int(total.group(1)) > 12, said
    states = {k: e for k, e in entries(project).items() if "/state/" in k}
    assert len(states) == 12 and all(e.get("unchanged") for e in states.values()), states


def test_three_changes_fail_their_own_items_and_nothing_else(project: Path, changed: dict[str, dict]) -> None:
    fails = {k for k in changed if k != "__stdout__"}
    dark = [v for v in VARIANTS if v.endswith("dark")]
    hover_boxes = {k for k in state_images(project) if "hover" in k and "-dark/" in k}
    assert sorted(fails) == sorted(hover_boxes | {f"index/{v}/state/link-focus/render" for v in dark}
                                   | {f"index/{v}/state/nothing-hover/render" for v in VARIANTS})


def test_a_dark_hover_box_colour_fails_exactly_the_dark_hover_boxes(project: Path, changed: dict[str, dict]) -> None:
    fails = of_state(changed, "cite-hover", "footnote-hover")
    stdout = changed["__stdout__"]["text"]
    assert sorted(fails) == sorted(
        k for k in state_images(project)
        if "hover" in k and "-dark/" in k), sorted(fails)
    assert len(fails) == 4
    assert "state/cite-hover/hover-box/" in stdout and "state/footnote-hover/hover-box/" in stdout
    for entry in fails.values():  # explained in CSS terms, from the hover box's own style record
        assert "color rgb(36, 41, 47) → rgb(122, 31, 31)" in entry["why"], entry["why"]
        # named after the section its element is in, as its file name is, and said so
        assert entry["heading"] and entry["why"].startswith(f"hover-box in “{entry['heading']}”: "), entry
        assert entry["key"].endswith(f"/{entry['region_name']}.png")


def test_a_state_whose_selector_matches_nothing_fails_only_its_own_items(changed: dict[str, dict]) -> None:
    fails = of_state(changed, "nothing-hover")
    assert sorted(fails) == sorted(f"index/{v}/state/nothing-hover/render" for v in VARIANTS)
    for entry in fails.values():
        assert "'d-nothing-here' matches nothing on the page" in entry["message"], entry["message"]
        assert "step 1 (hover 'd-nothing-here')" in entry["message"]
        assert re.search(r"pyproject\.toml:\d+:\d+", entry["message"]), entry["message"]


def test_a_focus_ring_at_two_to_one_in_dark_names_both_colours(changed: dict[str, dict]) -> None:
    fails = of_state(changed, "link-focus")
    assert sorted(fails) == sorted(f"index/{v}/state/link-focus/render" for v in VARIANTS if v.endswith("dark"))
    for entry in fails.values():
        m = re.search(r"is (#[0-9a-f]{6}) on (#[0-9a-f]{6}), contrast (\d+\.\d\d):1, below 3:1", entry["message"])
        assert m, entry["message"]
        ring, under, ratio = m.groups()
        assert ring == "#4a4f57"
        measured = contrast_ratio(parse_colour(ring)[:3], parse_colour(under)[:3])
        assert abs(measured - float(ratio)) < 0.01 and measured < 3


def test_explain_lists_a_states_steps_with_what_settled_after_them(project: Path) -> None:
    """`theme capture --explain`'s lines for a state variant, from a real capture of it."""
    from theme.capture import Session, variants
    from theme.cli.capture import explain_lines
    from theme.core import config

    cfg = config.load(project / "pyproject.toml")
    state = next(v for v in variants(cfg.visual) if v.state == "cite-hover" and v.id == "desktop-dark")
    with Session(cfg.visual, browser=BROWSER, source=cfg.source) as session:
        cap = session.capture(state)
    lines = explain_lines(cap, [])
    assert lines[0] == "index/desktop-dark/state/cite-hover:"
    assert "  state page: a fresh load" in lines
    step = next(line for line in lines if line.startswith("    1. hover 'd-cite': "))
    assert re.search(r"\d+\.\d\d s, then settled in \d+\.\d\d s, quiet; 0 maths pending, fonts loaded$", step), step
    contrast = next(line for line in lines if line.startswith("  contrast: lowest "))
    assert "(minimum 4.5:1)" in contrast and " on #" in contrast, contrast


def test_states_on_one_page_a_variant_are_the_states_on_fresh_loads(project: Path, first_images: dict[str, bytes],
                                                                     second: object) -> None:
    """The baselines were made with each variant's states on one page (the runtime's hover boxes
    shown and hidden again, a link focused and blurred). Rendered again in this process, each
    on a fresh load (`chain_states = false`), every state's image is its baseline, pixel for
    pixel: the 12 state variants a run with that config renders, and not its page variants."""
    from theme.capture import Session, variants
    from theme.core import config

    cfg = config.load(project / "pyproject.toml")
    fresh = dataclasses.replace(cfg.visual, chain_states=False)
    with Session(fresh, browser=BROWSER, source=cfg.source) as session:
        caps = list(session.capture_all([v for v in variants(fresh) if v.state]))
    assert not [c for c in caps if str(c.explain.get("page", "")).startswith("the page of state")]
    got = {f"{c.variant.page_name}/{c.variant.id}/state/{c.variant.state}/{path}": image
           for c in caps for path, image in c.images()}
    assert sorted(got) == sorted(first_images)
    for key, image in got.items():
        baseline = np.asarray(Image.open(io.BytesIO(first_images[key])).convert("RGBA"))
        assert np.array_equal(image, baseline), key
