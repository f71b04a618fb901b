"""The published CTC article (tests/fixtures/distill-ctc/) in a temporary folder, as a user has it.

It loads its runtime from `https://distill.pub/template.v2.js`, and the runtime loads KaTeX
from `https://distill.pub/third-party/katex/`. :func:`cdn` makes a folder that serves that
prefix: the vendored runtime (article/dist/assets/distill/, v2.8.0) and KaTeX, as symlinks.
:func:`ctc_copy` copies the article beside it with a `[tool.theme.visual]` whose `route` maps
the prefix there ("routed"), or with no route ("unrouted": both are blocked).
"""

from __future__ import annotations

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CTC = REPO / "tests" / "fixtures" / "distill-ctc"
ASSETS = REPO / "article" / "dist" / "assets"
CDN = "https://distill.pub/"
RUNTIME_URL = CDN + "template.v2.js"
TITLE = "Sequence Modeling With CTC"


def cdn(folder: Path) -> Path:
    """What `https://distill.pub/` serves to the article: the runtime and KaTeX."""
    (folder / "third-party").mkdir(parents=True)
    (folder / "template.v2.js").symlink_to(ASSETS / "distill" / "template.v2.js")
    (folder / "third-party" / "katex").symlink_to(ASSETS / "katex", target_is_directory=True)
    return folder


def ctc_copy(tmp: Path, *, routed: bool) -> Path:
    """tmp/ctc: the article and a pyproject.toml; tmp/cdn: what its route serves (routed)."""
    site = tmp / "ctc"
    shutil.copytree(CTC, site)
    route = f'route = {{ "{CDN}" = "{cdn(tmp / "cdn").as_posix()}" }}\n' if routed else ""
    (site / "pyproject.toml").write_text(
        '[tool.theme]\noutputs = []\n\n[tool.theme.visual]\nroot = "."\npages = ["index.html"]\n' + route,
        encoding="utf-8")
    return site


def edit(page: Path, old: str, new: str) -> None:
    """Replace the one occurrence of `old` in the file."""
    text = page.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    page.write_text(text.replace(old, new), encoding="utf-8")
