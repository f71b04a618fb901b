"""Pages that hold still (issue 48): a page's random numbers are seeded and its clock moves only
when the capture moves it, so figures drawn from Math.random or animated by timers are captured,
the same pixels on every load, in every Session and process."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from theme.capture import Session, Variant, readiness
from theme.core.config import VisualConfig
from theme.core.errors import CaptureError

pytestmark = pytest.mark.browser

PAGES = Path(__file__).resolve().parent / "pages"
DESKTOP = ("desktop", 800, 600, "light")
# Maths that is typeset only when a two-minute timer fires: under page time, past the budget.
WAITS = textwrap.dedent("""\
    <!doctype html><html data-typeset="pending"><head><meta charset="utf-8"></head><body>
    <p>typeset in two minutes</p>
    <script>setTimeout(() => { document.documentElement.dataset.typeset = 'done'; }, 120000);</script>
    </body></html>""")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("still") / "site"
    root.mkdir()
    shutil.copy(PAGES / "moving-parts.html", root / "index.html")
    (root / "waits.html").write_text(WAITS)
    return root


def visual(root: Path, **kw) -> VisualConfig:
    return VisualConfig(root=root, pages=("index.html", "waits.html"), viewports={"desktop": DESKTOP[1:3]},
                        color_schemes=("light",), regions={"figure": "figure"}, **kw)


def printed(session: Session, page: str) -> dict[str, str]:
    """What the page's scripts wrote, once settled as the capture settles it."""
    with session.loaded(Variant(page, *DESKTOP)) as job:
        readiness.settle(job.page, job.lane, readiness.CAPTURE, timeout_s=30,
                         page_time_ms=session.visual.page_time * 1000)
        return job.page.evaluate("""() => Object.fromEntries(['counter', 'now', 'bytes', 'uuid', 'steps']
            .map((id) => [id, document.getElementById(id).textContent]))""")


@pytest.mark.slow
def test_moving_parts_give_the_same_pixels_on_every_load_and_in_every_session(site):
    at = Variant("index.html", *DESKTOP)
    with Session(visual(site)) as session:
        first, second = session.capture_all([at, at])
    with Session(visual(site)) as session:
        [third] = session.capture_all([at])
    assert np.array_equal(first.image, second.image) and np.array_equal(first.image, third.image)
    assert [r.key for r in first.regions] == ["figure", "figure"]  # both figures captured, nothing masked
    for a, b in zip(first.regions, third.regions, strict=True):
        assert np.array_equal(first.crop(a), third.crop(b))


def test_page_time_starts_at_one_instant_and_ends_a_finite_animation_at_its_last_frame(site):
    with Session(visual(site)) as session:
        seen = printed(session, "index.html")
        again = printed(session, "index.html")
    assert seen == again
    assert seen["now"] == "2026-01-01T00:00:00.000Z"
    assert seen["steps"] == "120"  # 120 frames, then it stops: captured at its end
    assert seen["counter"] == str(30_000 // 250)  # a loop runs the whole budget, then holds still
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", seen["uuid"])


@pytest.mark.slow
def test_the_seed_and_the_budget_are_the_users_to_set(site):
    with Session(visual(site, seed=7, page_time=2)) as session:
        seen = printed(session, "index.html")
    with Session(visual(site)) as session:
        default = printed(session, "index.html")
    assert seen["bytes"] != default["bytes"] and seen["uuid"] != default["uuid"]
    assert seen["counter"] == str(2_000 // 250)
    assert seen["steps"] == "120"  # 120 frames of 16 ms end within 2 s


@pytest.mark.slow
def test_a_real_time_page_draws_anew_on_each_load(site):
    with Session(visual(site, real_time=("index.html",))) as session:
        seen = printed(session, "index.html")
        again = printed(session, "index.html")
    assert seen["now"] != "2026-01-01T00:00:00.000Z"
    assert seen["bytes"] != again["bytes"] and seen["uuid"] != again["uuid"]


@pytest.mark.slow
def test_a_page_that_waits_past_the_budget_names_its_timer_and_the_ways_out(site):
    with Session(visual(site, page_time=5, settle_timeout=2)) as session:
        with pytest.raises(CaptureError) as err:
            list(session.capture_all([Variant("waits.html", *DESKTOP)]))
    message = str(err.value)
    assert "\n" not in message
    assert "<html data-typeset> to be 'done'" in message
    assert "1 timer(s) pending after 0 s of page time (a setTimeout due in 120.0 s)" in message
    assert "raise page_time" in message and "list 'waits.html' in real_time" in message


@pytest.mark.slow
def test_two_processes_capture_the_same_bytes(site, tmp_path):
    """Nothing of the seed or the page clock depends on the process, worker or machine."""
    project = tmp_path / "project"
    shutil.copytree(site, project / "site")
    (project / "pyproject.toml").write_text(textwrap.dedent("""\
        [tool.theme.visual]
        root = "site"
        pages = ["index.html"]
        viewports = { desktop = [800, 600] }
        color_schemes = ["light"]
        regions = { figure = "figure" }
        """))
    outs = []
    for n in (1, 2):
        done = subprocess.run([sys.executable, "-m", "theme", "capture", "--out", f"out{n}"], cwd=project,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        outs.append(sorted((p.relative_to(project / f"out{n}").as_posix(), p.read_bytes())
                           for p in (project / f"out{n}").rglob("*.png")))
    assert [name for name, _ in outs[0]] == ["index/desktop-light/figure/moving-parts-2.png",
                                            "index/desktop-light/figure/moving-parts.png",
                                            "index/desktop-light/page.png"]
    assert outs[0] == outs[1]
