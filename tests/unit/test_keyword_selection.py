"""Which page variants a `-k` expression lets a run skip rendering (theme/pytest_plugin.py
_selectable): only those none of whose items it could select, whatever their regions are named."""

from __future__ import annotations

import pytest

from theme.capture.naming import Variant
from theme.pytest_plugin import _selectable

PAGE = Variant("index.html", "desktop", 1280, 800, "light")
DARK = Variant("index.html", "mobile", 390, 844, "dark")
STATE = Variant("index.html", "desktop", 1280, 800, "light", state="cite-hover")


class Options:
    def __init__(self, keyword: str):
        self.keyword = keyword

    def getoption(self, name: str, default: object = None) -> object:
        return self.keyword if name == "keyword" else default


@pytest.mark.parametrize(("expr", "variant", "rendered"), [
    ("", STATE, True),
    ("not state", STATE, False),
    ("not state", PAGE, True),  # its items may be named anything: a region called "state-diagram"
    ("cite-hover", STATE, True),
    ("cite-hover", PAGE, True),
    ("desktop", DARK, True),  # "desktop" could be in one of its regions' names
    ("desktop-light", DARK, True),
    ("not mobile", DARK, False),
    ("not dark and not state", DARK, False),
    ("not dark and not state", PAGE, True),
    ("mobile and note-box", DARK, True),
    ("not visual", PAGE, False),  # every visual item has the marker
    ("not (", STATE, True),  # pytest itself says what is wrong with it
])
def test_a_variant_is_rendered_unless_k_deselects_every_item_it_can_have(expr, variant, rendered):
    assert _selectable(Options(expr), [variant]) == ([variant] if rendered else [])  # type: ignore[arg-type]
