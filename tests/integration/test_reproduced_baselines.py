"""No baseline that was never reproduced (issue 48, item 2), end to end: real pytest subprocesses
and a real Chromium. An update renders a variant it would write twice; a page whose two renders
differ is refused, named, and nothing of it is written; a page that holds still is written,
recorded as reproduced, and then skipped by a check while its inputs stay the same."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from test_unchanged_inputs import CONFTEST, rendered
from theme.baselines.store import Store
from tiny_article import outcomes, run

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Points and a word drawn from Math.random once per load: still within a load, new on the next.
DRAWS = textwrap.dedent("""\
    <!doctype html><html><head><meta charset="utf-8">
    <style>body { margin: 0; font: 16px sans-serif; } figure { margin: 10px; }</style></head><body>
    <h2>Draws</h2>
    <figure id="scatter"><svg width="200" height="80"></svg><figcaption id="word">-</figcaption></figure>
    <script>
    const svg = document.querySelector('svg');
    for (let i = 0; i < 12; i++) {
      const c = document.createElementNS('http://www.w3.org/2000/svg', 'circle');
      c.setAttribute('cx', Math.random() * 200); c.setAttribute('cy', Math.random() * 80); c.setAttribute('r', 5);
      svg.appendChild(c);
    }
    document.getElementById('word').textContent = 'draw ' + Math.random().toFixed(4);
    </script></body></html>""")

PYPROJECT = """
[tool.theme.visual]
root = "site"
pages = ["index.html"]
viewports = { desktop = [480, 360] }
color_schemes = ["light"]
regions = { figure = "figure" }
"""


def project(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text(DRAWS)
    (tmp_path / "pyproject.toml").write_text(PYPROJECT + extra)
    (tmp_path / "conftest.py").write_text(CONFTEST)  # notes which variants a run renders
    return tmp_path


def test_an_update_refuses_a_page_whose_two_renders_differ_and_writes_nothing(tmp_path):
    root = project(tmp_path, 'real_time = ["index.html"]\n')  # no seed, no page time: draws anew
    done = run(root, "--update-snapshots")
    assert done.returncode == 1, done.stdout[-3000:]
    assert "index (desktop-light): does not hold still between two renders of the same page (not your change): " \
           "figure draws (figure#scatter): drawing: circle cx cy changed; `figcaption` text “draw " in done.stdout
    assert 'as the last resort, mask = ["figure#scatter"] in ' in done.stdout
    assert "only moved" not in done.stdout and "a canvas or a font file" not in done.stdout
    assert not (root / "snapshots").exists() or not list((root / "snapshots").rglob("*.png"))


def test_a_page_that_holds_still_is_written_once_reproduced_and_then_skipped(tmp_path):
    root = project(tmp_path)  # the defaults: seeded random numbers, page time
    done = run(root, "--update-snapshots")
    assert done.returncode == 0, done.stdout[-3000:]
    assert set(outcomes(done).values()) == {"PASSED"}
    record = Store(root / "snapshots").read_manifest()["inputs"]["index/desktop-light"]
    assert record["reproduced"] is True
    pixels = {p: p.read_bytes() for p in (root / "snapshots").rglob("*.png")}
    seen, check = rendered(root)
    assert check.returncode == 0, check.stdout[-3000:]
    assert seen == set()  # reproduced and unchanged: not rendered
    rerendered = run(root, "--rerender")
    assert rerendered.returncode == 0, rerendered.stdout[-3000:]
    assert {p: p.read_bytes() for p in (root / "snapshots").rglob("*.png")} == pixels


def test_a_record_never_reproduced_is_rendered_again(tmp_path):
    """A record that does not say its render was reproduced (one written before reproduction was
    recorded) does not let a check skip its variant: it is rendered, until an update records it."""
    root = project(tmp_path)
    assert run(root, "--update-snapshots").returncode == 0
    manifest_path = root / "snapshots" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    record = manifest["inputs"]["index/desktop-light"]
    record.pop("reproduced")
    from theme.check.inputs import _sealed

    record["digest"] = _sealed(record)
    manifest_path.write_text(json.dumps(manifest, indent=1))
    seen, check = rendered(root)
    assert check.returncode == 0, check.stdout[-3000:]
    assert seen == {"index"}


# The port the run's server was given: the same for both renders of one run, another the next run.
PORT_PAGE = textwrap.dedent("""\
    <!doctype html><html><head><meta charset="utf-8">
    <style>body { margin: 0; font: 16px sans-serif; } figure { margin: 10px; }</style></head><body>
    <h2>Served</h2>
    <figure id="served"><p id="port">-</p><figcaption>Where this page was served from</figcaption></figure>
    <script>document.getElementById('port').textContent = 'port ' + location.port;</script>
    </body></html>""")


def test_a_rerender_of_unchanged_inputs_that_differs_is_said_not_to_hold_still(tmp_path):
    """Issue 48, item 4: rendered again from the very inputs its baselines were, a page whose
    pixels differ does not hold still; that is what its images and their one group say, never
    "only moved" or "an image, a canvas or a font file"."""
    root = project(tmp_path)
    (root / "site" / "index.html").write_text(PORT_PAGE)
    done = run(root, "--update-snapshots")
    assert done.returncode == 0, done.stdout[-3000:]
    check = run(root, "--rerender")
    assert check.returncode == 1, check.stdout[-3000:]
    words = ("does not hold still between two renders of the same page (not your change): it was rendered "
             "from the very inputs its baselines were")
    assert f"1. 2 images (1 figure, 1 whole page): {words}" in check.stdout  # one group
    assert f"why: figure in “Served”: {words}" in check.stdout
    assert "only moved" not in check.stdout and "a canvas or a font file" not in check.stdout


# Seeded on the page, the points hold still; the worker's number does not (nothing reaches it).
WORKER_PAGE = DRAWS.replace("document.getElementById('word').textContent = 'draw ' + Math.random().toFixed(4);", """\
    new Worker(URL.createObjectURL(new Blob(['postMessage(Math.random().toFixed(6))'],
      { type: 'text/javascript' }))).onmessage = (e) => { document.getElementById('word').textContent = e.data; };""")


def test_a_worker_that_draws_its_own_numbers_is_named_in_the_refusal(tmp_path):
    """Issue 48: page time and the seeded generator do not reach a Web Worker; an update whose
    two renders differ because of one says so, naming the worker, in its one line."""
    assert WORKER_PAGE != DRAWS
    root = project(tmp_path)
    (root / "site" / "index.html").write_text(WORKER_PAGE)
    done = run(root, "--update-snapshots")
    assert done.returncode == 1, done.stdout[-3000:]
    assert ("which do not reach a Web Worker (a blob: script) that it started: make what runs there hold still"
            in done.stdout)
    assert "drawing:" not in done.stdout  # the seeded circles agree; the caption's words do not


SECONDS_NOTED = """
from pathlib import Path

from theme.check import steady

_second = steady.second_renders


def _noting(seconds, firsts, *args, **kwargs):
    with open(Path(__file__).with_name("second.txt"), "a") as out:
        out.writelines(f"{folder.as_posix()}\\n" for folder in firsts)
    return _second(seconds, firsts, *args, **kwargs)


steady.second_renders = _noting
"""
HOVERED = """
[[tool.theme.visual.states]]
name = "hovered"
steps = [{ hover = "h2" }]
capture = { heading = "h2" }
"""


def test_an_update_renders_again_only_what_is_not_already_its_baseline(tmp_path):
    """A second render reproduces what an update would write. A page that is already its
    baseline, pixel for pixel, is reproduced by it; so is a reader state's variant (it has no
    page image) whose every image is its baseline: the second update renders nothing twice."""
    root = project(tmp_path, HOVERED)
    (root / "conftest.py").write_text(SECONDS_NOTED)
    noted = root / "second.txt"
    first = run(root, "--update-snapshots")
    assert first.returncode == 0, first.stdout[-3000:]
    assert sorted(noted.read_text().split()) == ["index/desktop-light", "index/desktop-light/state/hovered"]
    pixels = {p: p.read_bytes() for p in (root / "snapshots").rglob("*.png")}
    noted.unlink()
    again = run(root, "--update-snapshots")
    assert again.returncode == 0, again.stdout[-3000:]
    assert not noted.exists() or noted.read_text().split() == []
    assert {p: p.read_bytes() for p in (root / "snapshots").rglob("*.png")} == pixels


def test_k_renders_no_variant_whose_every_item_it_deselects(tmp_path):
    """`-k "not state"` selects no item of a reader state's variant (each is named
    `index[desktop-light]::state/hovered/…`): that variant is not rendered, its page is, and
    the run is partial (no baseline is called unused). `-k hovered` cannot rule the page's
    variant out before it is rendered (a region of it could be named so): both render."""
    root = project(tmp_path, HOVERED)
    assert run(root, "--update-snapshots").returncode == 0
    notes = root / "rendered.txt"
    notes.unlink()  # the update's
    pages = run(root, "--rerender", "-k", "not state")
    assert pages.returncode == 0, pages.stdout[-3000:]
    assert notes.read_text().split() == ["index/desktop-light"]
    assert sorted(outcomes(pages)) == ["index[desktop-light]::figure/draws", "index[desktop-light]::page"]
    assert "unused-baseline check skipped: partial run (-k)" in pages.stdout
    notes.unlink()
    states = run(root, "--rerender", "-k", "hovered")
    assert states.returncode == 0, states.stdout[-3000:]
    assert sorted(notes.read_text().split()) == ["index/desktop-light", "index/desktop-light/state/hovered"]
    assert list(outcomes(states)) == ["index[desktop-light]::state/hovered/heading/top"]
