"""`theme lint` on the published CTC article (tests/fixtures/distill-ctc/, see ctc_site.py), in a
real Chromium: routed or not, it reports no class the runtime gives a meaning to (TL020), even
with the byline already in the HTML as distill.pub serves it; unrouted, it says in one line
(TL023) that the runtime did not load. What it does report are the page's own markup faults.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from theme.capture import Session, variants
from theme.core.config import VisualConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ctc_site import CDN, RUNTIME_URL, ctc_copy, edit  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The published page's own markup faults, which a browser papers over: `<d-math>` where
# `</d-math>` was meant (607:75, so one <d-math> sits empty inside another), and a <div>
# inside an unclosed <p> (655:1). The lint reports them on the untouched article.
OWN_FAULTS = [("index.html:607:75", "TL030"), ("index.html:607:75", "TL034"), ("index.html:655:1", "TL001")]
FIXES = [("<d-math>Y^* \\enspace = \\enspace {\\mathop{\\text{argmax}}\\limits_{Y}} <d-math>",
          "<d-math>Y^* \\enspace = \\enspace {\\mathop{\\text{argmax}}\\limits_{Y}} </d-math>"),
         ("independence assumption it makes.\n<div>", "independence assumption it makes.</p>\n<div>")]


def lint(site: Path, cache: Path) -> tuple[int, list[tuple[str, str]], str, str]:
    """(exit code, [(file:line:col, code)], stdout, stderr) of `theme lint` in the article's folder."""
    env = {**os.environ, "THEME_LINT_CACHE": str(cache)}
    done = subprocess.run([sys.executable, "-m", "theme", "lint"], cwd=site, env=env, capture_output=True, text=True)
    found = [(line.split(": ")[0], line.split(": ")[1].split()[0]) for line in done.stdout.splitlines()]
    return done.returncode, found, done.stdout, done.stderr


@pytest.mark.parametrize("routed", [True, False], ids=["routed", "unrouted"])
def test_lint_on_the_untouched_article_reports_only_its_own_markup_faults(tmp_path, routed):
    site = ctc_copy(tmp_path, routed=routed)
    code, found, out, err = lint(site, tmp_path / "cache")
    blocked = [("index.html:5:3", "TL023")]  # its <script src="https://distill.pub/template.v2.js">
    assert found == (OWN_FAULTS if routed else blocked + OWN_FAULTS), out
    assert code == 1  # its own faults are errors; no class is reported (no TL020)
    if routed:
        assert "rendered in Chromium: 11 stylesheet(s) its scripts added (document, shadow root of <d-math>" in err
        assert "blocked in the render" not in err
    else:
        warning = out.splitlines()[0]
        assert RUNTIME_URL in warning and "route" in warning and "TL020 is skipped" in warning
        assert f"blocked in the render: {RUNTIME_URL}" in err


@pytest.mark.parametrize("routed", [True, False], ids=["routed", "unrouted"])
def test_lint_exits_0_once_the_author_fixes_those_faults(tmp_path, routed):
    site = ctc_copy(tmp_path, routed=routed)
    for old, new in FIXES:
        edit(site / "index.html", old, new)
    code, found, out, err = lint(site, tmp_path / "cache")
    assert code == 0, out + err
    assert found == ([] if routed else [("index.html:5:3", "TL023")])


def drawn_byline(site: Path) -> str:
    """The <d-byline> the runtime draws for this article, as markup."""
    visual = VisualConfig(root=site, pages=("index.html",), viewports={"desktop": (1280, 800)},
                          color_schemes=("light",), route={CDN: site.parent / "cdn"})
    with Session(visual) as session, session.open(variants(visual)[0]) as page:
        return page.evaluate("document.querySelector('d-byline').outerHTML")


@pytest.mark.parametrize("routed", [True, False], ids=["routed", "unrouted"])
def test_a_byline_in_the_html_uses_the_runtimes_classes_without_errors(tmp_path, routed):
    """distill.pub serves its articles pre-rendered: the byline the runtime draws is in the HTML,
    with `.name` and `.affiliation`, which the runtime writes and no stylesheet styles."""
    site = ctc_copy(tmp_path, routed=True)
    byline = drawn_byline(site)
    assert 'class="name"' in byline and 'class="affiliation"' in byline
    edit(site / "index.html", "</d-title>\n", "</d-title>\n" + byline + "\n")
    if not routed:
        edit(site / "pyproject.toml", f'route = {{ "{CDN}"', f'# route = {{ "{CDN}"')
    _, found, out, _ = lint(site, tmp_path / "cache")
    faults = [c for _, c in OWN_FAULTS]  # further down now, below the byline
    assert [c for _, c in found] == (faults if routed else ["TL023", *faults]), out
    assert "did you mean" not in out
