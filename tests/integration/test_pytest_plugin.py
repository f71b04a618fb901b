"""The pytest plugin end to end, on a tiny article, in real pytest subprocesses with a real Chromium.

Lifecycle: no baseline → fail (nothing written) → --update-snapshots → pass →
change a token and rebuild → fail on exactly the affected regions →
--update-snapshots → pass. Then one test per flag and failure mode.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tiny_article
from subrun import PYTEST
from theme.baselines.store import BASELINE_LEVEL, Store, verify
from theme.pixels import images
from tiny_article import SCSS, outcomes, run, set_box_colour

pytestmark = [pytest.mark.browser, pytest.mark.slow]

IDS = {
    "index[desktop-light]::page",
    "index[desktop-light]::box/alpha",
    "index[desktop-light]::box/beta",
    "index[desktop-light]::box/beta-2",
    "index[desktop-light]::card/alpha",
}


def baselines(project: Path) -> set[str]:
    return {p.relative_to(project / "snapshots").as_posix() for p in (project / "snapshots").rglob("*.png")}


def test_lifecycle(project: Path) -> None:
    first = run(project)
    assert first.returncode == 1, first.stdout
    assert outcomes(first) == {i: "FAILED" for i in IDS}
    assert "no baseline" in first.stdout and "run pytest --update-snapshots" in first.stdout
    assert not (project / "snapshots").exists()  # a plain run never writes baselines
    assert (project / ".theme-artifacts/index/desktop-light/box/alpha.actual.png").is_file()

    created = run(project, "--update-snapshots")
    assert created.returncode == 0, created.stdout
    assert "5 created" in created.stdout
    assert baselines(project) == {"index/desktop-light/page.png", "index/desktop-light/box/alpha.png",
                                  "index/desktop-light/box/beta.png", "index/desktop-light/box/beta-2.png",
                                  "index/desktop-light/card/alpha.png"}

    again = run(project, "--rerender")  # rendered again: the capture repeats its baselines
    assert again.returncode == 0, again.stdout
    assert outcomes(again) == {i: "PASSED" for i in IDS}

    set_box_colour(project, "#cc3333")
    changed = run(project)
    assert changed.returncode == 1
    failed = {i for i, o in outcomes(changed).items() if o == "FAILED"}
    assert failed == IDS - {"index[desktop-light]::card/alpha"}  # the card did not change
    # a 120×41 crop: the 40 px box sits on a fractional y, so its crop takes one more row
    assert "index/desktop-light/box/alpha.png: 4 800 pixels differ (97.56%)" in changed.stdout, changed.stdout
    report = project / "visual-report"
    assert (report / "index.html").is_file()
    data = json.loads((report / "report.json").read_text())
    assert {e["key"] for e in data["entries"] if e["status"] == "failed"} == {
        "index/desktop-light/page.png", "index/desktop-light/box/alpha.png",
        "index/desktop-light/box/beta.png", "index/desktop-light/box/beta-2.png"}
    alpha = next(e for e in data["entries"] if e["key"].endswith("box/alpha.png"))
    assert alpha["heading"] == "Alpha" and alpha["region_key"] == "box"
    whole = next(e for e in data["entries"] if e["key"].endswith("/page.png"))
    assert sorted(whole["attribution"]) == ["box in “Alpha” changed (body > div.box:nth-of-type(1))",
                                            "box in “Beta” changed (body > div.box:nth-of-type(3))",
                                            "box in “Beta” changed (body > div.box:nth-of-type(4))"]

    updated = run(project, "--update-snapshots")
    assert updated.returncode == 0 and "4 updated" in updated.stdout
    assert run(project).returncode == 0


@pytest.fixture(scope="module")
def first_baselines(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny article after its first --update-snapshots run, made once for the module's
    tests that start from there, not once a test: each of them used to begin with this run."""
    project = tiny_article.make(tmp_path_factory.mktemp("accepted"))
    assert run(project, "--update-snapshots").returncode == 0
    return project


@pytest.fixture
def accepted(first_baselines: Path, tmp_path: Path) -> Path:
    """A copy of it for one test to change as it likes."""
    return shutil.copytree(first_baselines, tmp_path / "accepted", symlinks=True)


def test_an_update_interrupted_part_way_records_what_it_wrote(project: Path) -> None:
    """Ctrl-C during an update, before its third image: the two baselines written are on record
    (their manifest entries are kept in memory during a variant and recorded when the run ends
    however it ends), so files and manifest agree; nothing else is written."""
    (project / "conftest.py").write_text(textwrap.dedent("""
        import pytest

        seen = []

        @pytest.hookimpl(tryfirst=True)
        def pytest_runtest_call(item):
            if item.get_closest_marker("visual") is not None:
                seen.append(item.nodeid)
                if len(seen) == 3:
                    raise KeyboardInterrupt
    """), encoding="utf-8")
    done = run(project, "--update-snapshots")
    assert done.returncode == 2, done.stdout  # interrupted
    written = baselines(project)
    assert len(written) == 2, written
    store = Store(project / "snapshots")
    assert verify(store) == []
    assert set(store.read_manifest()["baselines"]) == written


def test_first_baselines_encode_the_page_beside_the_run(project: Path) -> None:
    """An update with no baselines: the page's PNG is encoded once, in the worker thread its
    render handed it to (theme/baselines/store.py Store.prepare), the regions' in their checks; the page's
    baseline is the PNG theme writes of its pixels, and the next run matches it."""
    (project / "conftest.py").write_text(textwrap.dedent("""
        import threading

        from theme.baselines import store

        real = store._encode_baseline

        def watched(image):
            with open("encodes.log", "a") as log:
                print(threading.current_thread().name, image.shape[0], file=log)
            return real(image)

        store._encode_baseline = watched
    """), encoding="utf-8")
    done = run(project, "--update-snapshots")
    assert done.returncode == 0, done.stdout
    page = project / "snapshots/index/desktop-light/page.png"
    pixels = images.read_png(page)
    encodes = [line.split() for line in (project / "encodes.log").read_text().splitlines()]
    assert len(encodes) == len(IDS)  # each baseline once
    assert [int(h) for name, h in encodes if name.startswith("theme-encode")] == [pixels.shape[0]]
    assert page.read_bytes() == images.encode_png(pixels, level=BASELINE_LEVEL, drop_alpha=True)
    assert run(project).returncode == 0


def _artefacts(project: Path) -> dict[str, bytes]:
    return {p.relative_to(project / ".theme-artifacts").as_posix(): p.read_bytes()
            for p in sorted((project / ".theme-artifacts").rglob("*")) if p.is_file()}


def test_a_failing_page_is_checked_beside_the_next_render_with_the_same_verdict(project: Path) -> None:
    """A page that will not match is compared in a worker thread as soon as it is taken, before
    the next variant's render (theme/review/runs/suite.py _check_early), each page once; its outcome,
    report entry and artefacts are byte for byte those of the same check made in its item (as
    under pytest-xdist, where workers share pages and checks are not started early). A
    deselected page's early check leaves no artefact of an image no item checked."""
    config = project / "pyproject.toml"
    config.write_text(config.read_text().replace('viewports = { desktop = [480, 360] }',
                                                 'viewports = { desktop = [480, 360], mobile = [320, 360] }'))
    assert run(project, "--update-snapshots").returncode == 0
    (project / "conftest.py").write_text(textwrap.dedent("""
        import threading

        from theme.check import pipeline

        real = pipeline.page_verdict

        def watched(ctx, visual, shot):
            with open("checks.log", "a") as log:
                print(threading.current_thread().name, shot.variant.folder.as_posix(), file=log)
            return real(ctx, visual, shot)

        pipeline.page_verdict = watched
    """), encoding="utf-8")
    set_box_colour(project, "#cc3333")
    early = run(project, "-n", "0")
    assert early.returncode == 1, early.stdout[-2000:]
    checks = sorted(line.split() for line in (project / "checks.log").read_text().splitlines())
    assert [folder for _, folder in checks] == ["index/desktop-light", "index/mobile-light"]
    assert all(name.startswith("theme-check") for name, _ in checks), checks
    report, artefacts = (project / "visual-report/report.json").read_text(), _artefacts(project)
    assert any(k.endswith("page.actual.png") for k in artefacts), sorted(artefacts)

    shutil.rmtree(project / ".theme-artifacts")
    (project / "checks.log").unlink()
    inline = run(project, "-n", "2")
    assert outcomes(inline) == outcomes(early) and inline.returncode == 1
    assert not any(name.startswith("theme-check") for name, _ in
                   (line.split() for line in (project / "checks.log").read_text().splitlines()))
    assert _artefacts(project) == artefacts
    assert json.loads((project / "visual-report/report.json").read_text())["entries"] == json.loads(report)["entries"]

    shutil.rmtree(project / ".theme-artifacts")
    boxes = run(project, "-n", "0", "-k", "box")
    assert boxes.returncode == 1 and not any("::page" in k for k in outcomes(boxes)), boxes.stdout[-2000:]
    assert not [k for k in _artefacts(project) if "/page." in k]


def test_unused_baseline_fails_the_session_and_prune_deletes_it(accepted: Path) -> None:
    stray = accepted / "snapshots/index/desktop-light/box/gone.png"
    stray.write_bytes((accepted / "snapshots/index/desktop-light/box/alpha.png").read_bytes())
    proc = run(accepted)
    assert proc.returncode == 1
    assert "unused  index/desktop-light/box/gone.png" in proc.stdout
    assert run(accepted, "--snapshot-warn-unused").returncode == 0

    partial = run(accepted, "-k", "box")
    assert partial.returncode == 0
    assert "unused-baseline check skipped: partial run" in partial.stdout

    assert run(accepted, "-k", "box", "--update-snapshots", "--prune-snapshots").returncode == 0
    assert stray.exists()  # a partial run never prunes
    pruned = run(accepted, "--update-snapshots", "--prune-snapshots")
    assert pruned.returncode == 0 and not stray.exists()
    assert "pruned  index/desktop-light/box/gone.png" in pruned.stdout


def test_ci_refuses_to_create_baselines(project: Path) -> None:
    proc = run(project, "--update-snapshots=missing", ci=True)
    assert proc.returncode == 1
    assert "CI=true refuses to create one" in proc.stdout
    assert not (project / "snapshots").exists()
    assert run(project, "--update-snapshots=missing", "--allow-ci-update", ci=True).returncode == 0


def test_corrupt_baseline_names_the_file_and_is_kept(accepted: Path) -> None:
    target = accepted / "snapshots/index/desktop-light/card/alpha.png"
    target.write_bytes(b"not a png at all")
    proc = run(accepted)
    assert proc.returncode == 1
    assert outcomes(proc)["index[desktop-light]::card/alpha"] == "FAILED"
    assert str(target) in proc.stdout
    assert target.read_bytes() == b"not a png at all"


def test_k_selects_regions_by_id(accepted: Path) -> None:
    proc = run(accepted, "-k", "card")
    assert set(outcomes(proc)) == {"index[desktop-light]::card/alpha"}


def test_xdist_gives_the_serial_results(accepted: Path) -> None:
    set_box_colour(accepted, "#cc3333")
    serial, parallel = run(accepted), run(accepted, "-n", "2")
    assert outcomes(serial) == outcomes(parallel)
    assert serial.returncode == parallel.returncode == 1
    assert "theme: 1 matched, 4 failed" in parallel.stdout


def test_xdist_workers_render_each_variant_once_and_share_it(project: Path) -> None:
    """Each worker collects every item, and items come from renders: the workers share the
    renders out (each variant by one of them) instead of each rendering the whole article."""
    config = project / "pyproject.toml"
    config.write_text(config.read_text().replace('viewports = { desktop = [480, 360] }',
                                                 'viewports = { desktop = [480, 360], mobile = [320, 360] }')
                      .replace('color_schemes = ["light"]', 'color_schemes = ["light", "dark"]'))
    assert run(project, "--update-snapshots", "-n", "0").returncode == 0
    set_box_colour(project, "#cc3333")
    serial, parallel = run(project, "-n", "0"), run(project, "-n", "3")
    assert outcomes(serial) == outcomes(parallel) and len(outcomes(parallel)) == 20
    assert serial.returncode == parallel.returncode == 1
    assert "theme: 4 matched, 16 failed" in parallel.stdout, parallel.stdout[-2000:]
    said = re.search(r"rendered (\d+) variant\(s\) across (\d+) pytest-xdist worker\(s\) \((.*)\)", parallel.stdout)
    assert said is not None, parallel.stdout[-2000:]
    assert said.group(1) == "4"  # four variants, each rendered once: not four times per worker
    assert sum(int(n) for n in re.findall(r"gw\d: (\d+)", said.group(3))) == 4
    assert "pytest-xdist worker" not in serial.stdout  # one process renders all: nothing to say


def test_drift_is_reported_first(accepted: Path) -> None:
    manifest = accepted / "snapshots/manifest.json"
    data = json.loads(manifest.read_text())
    for env in data["environments"].values():
        env["browser"]["version"] = "1.0.0.0"
    manifest.write_text(json.dumps(data))
    set_box_colour(accepted, "#cc3333")
    proc = run(accepted)
    assert "environment drift: baselines were made with browser chromium 1.0.0.0" in proc.stdout


def test_accepting_everything_on_another_machine_of_the_same_kind_changes_no_byte(accepted: Path) -> None:
    # The baselines were made on a machine with another kernel release, Playwright patch
    # release and theme version: none of them changes a pixel, so neither may the manifest.
    manifest = accepted / "snapshots/manifest.json"
    data = json.loads(manifest.read_text())
    for env in data["environments"].values():
        env["platform"]["release"] = "5.10.0-other"
        env["playwright"] = "1.0.1"
        env["theme_version"] = "0.0.9"
    manifest.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    before = {p: p.read_bytes() for p in (accepted / "snapshots").rglob("*") if p.is_file()}
    proc = run(accepted, "--update-snapshots=all")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    after = {p: p.read_bytes() for p in (accepted / "snapshots").rglob("*") if p.is_file()}
    assert after.keys() == before.keys()
    assert [p.name for p in before if after[p] != before[p]] == []


def test_growth_is_attributed_to_the_element(accepted: Path) -> None:
    (accepted / "scss/style.scss").write_text(SCSS.format(box="#3366cc") + ".card { height: 44px; }\n")
    subprocess.run([sys.executable, "-m", "theme", "build", "-C", str(accepted)], check=True)
    proc = run(accepted)
    assert "in: card in “Alpha” grew 14 px" in proc.stdout


def test_assert_snapshot_fixture(project: Path) -> None:
    (project / "test_hand.py").write_text(
        "import numpy as np\n"
        "def test_swatch(assert_snapshot):\n"
        "    img = np.zeros((10, 10, 4), np.uint8); img[..., 3] = 255\n"
        "    assert_snapshot(img, 'hand/swatch', max_diff_pixels=0)\n"
    )
    missing = run(project, "test_hand.py")
    assert missing.returncode == 1 and "no baseline" in missing.stdout
    assert run(project, "test_hand.py", "--update-snapshots").returncode == 0
    assert (project / "snapshots/hand/swatch.png").is_file()
    assert run(project, "test_hand.py").returncode == 0


def test_collect_only_lists_the_visual_items_without_a_browser(accepted: Path) -> None:
    """Nothing is rendered: the items are the manifest's baselines, plus one per variant
    standing for regions that have no baseline yet."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    env["THEME_BROWSER"] = "/nonexistent/chromium"  # a browser start would fail loudly
    proc = subprocess.run([*PYTEST, "--collect-only", "-q"],
                          cwd=accepted, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    listed = {line for line in proc.stdout.splitlines() if line.startswith("index[")}
    assert listed == IDS | {"index[desktop-light]::new-regions"}
    assert "theme-visual-setup" not in proc.stdout


def _tile_heights(project: Path) -> set[int]:
    data = json.loads((project / "snapshots/manifest.json").read_text())
    return {data["environments"][entry["environment"]]["tile_height"] for entry in data["baselines"].values()}


def test_baselines_keep_the_tile_height_they_were_made_with_until_moved(project: Path) -> None:
    """Baselines made with 32 768-px tiles (theme's default before 16 384): with tile_height
    unset, a check takes pages that way, so a new default is neither drift nor a rewrite, and
    the run says how to move; setting it and updating all once moves every baseline, after which
    the line can go. A new baseline set is made with the default."""
    config = project / "pyproject.toml"
    plain = config.read_text()
    config.write_text(plain.replace('color_schemes = ["light"]', 'color_schemes = ["light"]\ntile_height = 32768'))
    assert run(project, "--update-snapshots").returncode == 0
    assert _tile_heights(project) == {32768}
    config.write_text(plain)
    before = {p: p.read_bytes() for p in (project / "snapshots").rglob("*") if p.is_file()}

    kept = run(project, "--rerender")
    assert kept.returncode == 0 and "environment drift" not in kept.stdout, kept.stdout[-2000:]
    assert "the baselines were made with 32768-px tiles" in kept.stdout
    assert "set tile_height = 16384 in [tool.theme.visual] and run pytest --update-snapshots=all once" in kept.stdout
    report = json.loads((project / "visual-report/report.json").read_text())
    assert report["environment"]["tile_height"] == 32768
    assert {p: p.read_bytes() for p in (project / "snapshots").rglob("*") if p.is_file()} == before

    config.write_text(plain.replace('color_schemes = ["light"]', 'color_schemes = ["light"]\ntile_height = 16384'))
    moved = run(project, "--update-snapshots=all")
    assert moved.returncode == 0, moved.stdout[-2000:]
    assert _tile_heights(project) == {16384}
    config.write_text(plain)
    after = run(project, "--rerender")
    assert after.returncode == 0 and "tile_height" not in after.stdout, after.stdout[-2000:]
    assert json.loads((project / "visual-report/report.json").read_text())["environment"]["tile_height"] == 16384

    shutil.rmtree(project / "snapshots")
    assert run(project, "--update-snapshots").returncode == 0
    assert _tile_heights(project) == {16384}
