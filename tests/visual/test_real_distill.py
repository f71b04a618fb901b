"""Real Distill articles: the runtime's own example article, unchanged, in 4 variants.

The example article (tests/fixtures/distill-example/, Apache-2.0, from the Distill
template) loads the real v2 runtime (article/dist/assets/distill/template.v2.js):
custom elements with shadow roots, KaTeX from its CDN address (routed here to the
npm copy vendored in article/dist/assets/katex/), a bibliography fetched after
load, and a d-figure whose text a script sets from the runtime's
IntersectionObserver events (ready / onscreen / offscreen): before the reader's
view, that text depended on when the observer fired, and 3 runs of 5 differed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from subrun import PYTEST
from theme.capture import Session, variants
from theme.core.config import VisualConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runtime_pages import example_site  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
KATEX = REPO / "article/dist/assets/katex"
KATEX_CDN = "https://distill.pub/third-party/katex/"
REGIONS = {"math": "d-math[block]", "code": "d-code[block]", "figure": "d-figure", "table": "d-article table"}

PYPROJECT = f"""
[tool.theme]
entry = "scss/style.scss"
outputs = []

[tool.theme.visual]
root = "site"
pages = ["index.html"]
regions = {{ math = "d-math[block]", code = "d-code[block]", figure = "d-figure", table = "d-article table" }}
route = {{ "{KATEX_CDN}" = "{KATEX.as_posix()}" }}
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    site = example_site(tmp_path_factory.mktemp("example") / "site")
    visual = VisualConfig(root=site, pages=("index.html",), regions=REGIONS, route={KATEX_CDN: KATEX})
    with Session(visual) as s:
        yield s


def digests(captures) -> dict[str, str]:
    out = {}
    for cap in captures:
        for path, pixels in cap.images():
            out[f"{cap.variant.folder}/{path}"] = hashlib.sha256(pixels.tobytes()).hexdigest()
    return out


def test_ten_captures_of_the_example_article_are_identical(session):
    """Forty renders (ten of each variant): before the reader's view, 3 runs of 5 differed."""
    todo = variants(session.visual)
    first = list(session.capture_all(todo))
    expected = digests(first)
    assert len(todo) == 4 and len(expected) == 4 * (1 + 2 + 2 + 1 + 1)  # page, 2 maths, 2 code, figure, table
    for _ in range(9):
        assert digests(session.capture_all(todo)) == expected


def test_the_example_article_is_typeset_and_in_the_readers_view(session):
    """What a reader sees after scrolling the whole article and back: the figure has
    been on screen and left it ("offscreen!"), the maths is KaTeX, nothing was blocked."""
    cap = next(iter(session.capture_all(variants(session.visual)[2:3])))  # desktop, light
    assert cap.aborted == []
    assert any(url.startswith(KATEX_CDN) and url.endswith("katex.min.js") for url in cap.explain["routed"])
    assert cap.explain["load"]["status"]["maths"] >= 6 and cap.explain["load"]["status"]["mathsPending"] == 0
    assert cap.explain["read_through"]["screens"] >= 4
    with session.open(cap.variant) as page:
        assert page.evaluate("document.querySelector('d-figure span').textContent") == "offscreen!"
        assert page.evaluate(
            "[...document.querySelectorAll('d-math')].every(m => m.shadowRoot.querySelector('.katex'))")


def run_pytest(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_STEP_SUMMARY", "PYTEST_ADDOPTS")}
    return subprocess.run([*PYTEST, "-q", *args],
                          cwd=project, env=env, capture_output=True, text=True)


def test_the_example_article_runs_green_twice_in_four_variants(tmp_path):
    """The update renders each variant twice and writes it once both agree; the check renders
    it a third time (the forty renders above are for rare faults); the next is not rendered."""
    example_site(tmp_path / "site")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    created = run_pytest(tmp_path, "--update-snapshots")
    assert created.returncode == 0, created.stdout[-3000:]
    assert "theme: 0 matched, 0 failed, 28 created" in created.stdout, created.stdout[-2000:]
    again = run_pytest(tmp_path, "--rerender")  # rendered again, not skipped: the pages repeat
    assert again.returncode == 0, again.stdout[-3000:]
    assert "28 passed" in again.stdout and "theme: 28 matched, 0 failed" in again.stdout
    unchanged = run_pytest(tmp_path)  # the runtime, its routed copies and fetched parts were all recorded
    assert "theme: 28 matched, 0 failed (28 matched with inputs unchanged, not rendered)" in unchanged.stdout
