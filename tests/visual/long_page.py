"""The long runtime page (article/long/make_long.py) as the tests capture it: built into a
temporary folder, its desktop light variant, its regions, KaTeX routed to the vendored copy."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from theme.capture import Variant
from theme.config import VisualConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runtime_pages import KATEX_ROUTE  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DESKTOP = Variant("index.html", "desktop", 1280, 800, "light")
REGIONS = {"note-box": ".note-box", "math": "d-math[block]", "code": "d-code[block]"}


def make_long():
    spec = importlib.util.spec_from_file_location("make_long", REPO / "article/long/make_long.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def long_site(tmp_path_factory, extra_css: str = "") -> VisualConfig:
    root = make_long().build(tmp_path_factory.mktemp("long") / "site").parent
    if extra_css:
        with (root / "style.css").open("a", encoding="utf-8") as css:
            css.write(extra_css)
    return VisualConfig(root=root, pages=("index.html",), viewports={"desktop": (1280, 800)},
                        color_schemes=("light",), regions=REGIONS, route=KATEX_ROUTE)
