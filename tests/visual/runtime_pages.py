"""The small Distill-runtime pages in ``pages/`` as a site that can be served as is.

Each page proves one behaviour of real articles built on the Distill v2 runtime (see
``pages/README.md``). The pages reference ``assets/distill/``, ``assets/fonts/`` and
``assets/katex/``, which are not kept beside them but copied from the article's vendored
assets by :func:`site`.

The runtime asks for KaTeX at ``https://distill.pub/third-party/katex/``; serve that prefix
from the vendored copy with :data:`KATEX_ROUTE` (a ``[tool.theme.visual] route`` table in
code: URL prefix -> local folder) and block every other request that leaves 127.0.0.1.
"""

from __future__ import annotations

import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
PAGES_DIR = HERE / "pages"
ARTICLE_ASSETS = REPO / "article" / "dist" / "assets"
EXAMPLE = REPO / "tests" / "fixtures" / "distill-example"  # the runtime's own example article
RUNTIME = ARTICLE_ASSETS / "distill" / "template.v2.js"

KATEX_ROUTE: dict[str, Path] = {
    "https://distill.pub/third-party/katex/": ARTICLE_ASSETS / "katex",
}

# the article assets every page needs, copied under dest/assets/
SHARED_ASSETS = ("distill", "fonts", "katex")

PAGES: tuple[str, ...] = tuple(sorted(p.name for p in PAGES_DIR.glob("*.html")))


def site(dest: Path) -> Path:
    """Copy the pages and the assets they load into ``dest`` (created if needed); return it.

    Serve ``dest`` as the web root: ``/sticky-toc.html``, ``/assets/distill/template.v2.js``, ...
    """
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copytree(PAGES_DIR, dest, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in SHARED_ASSETS:
        shutil.copytree(ARTICLE_ASSETS / name, dest / "assets" / name, dirs_exist_ok=True)
    return dest


def example_site(dest: Path) -> Path:
    """The example article as its authors ship it: the runtime beside index.html, no pyproject.toml."""
    shutil.copytree(EXAMPLE, dest)
    shutil.copy(RUNTIME, dest / "template.v2.js")
    return dest
