"""The render cache: a result comes back only while the page and every file it loaded are unchanged."""

import pytest

from theme.init.lint import cache

RESULT = {"defined": {"marker": "rendered: document"}, "sheets": 1, "hosts": ["document"], "dom_classes": []}


@pytest.fixture
def site(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    root = tmp_path / "site"
    root.mkdir()
    (root / "index.html").write_text("<script src=a.js></script>", encoding="utf-8")
    (root / "a.js").write_text("// v1\n", encoding="utf-8")
    return root


def test_a_stored_render_is_found_again_while_nothing_changed(site):
    page = site / "index.html"
    assert cache.load(page, site, {}) is None
    cache.store(page, site, {}, [site / "a.js"], RESULT)
    assert cache.load(page, site, {}) == RESULT
    assert [p.suffix for p in cache.folder().iterdir()] == [".json"]


@pytest.mark.parametrize("change", [
    lambda site: (site / "a.js").write_text("// v2\n", encoding="utf-8"),  # a file it loaded
    lambda site: (site / "index.html").write_text("<p>x</p>", encoding="utf-8"),  # the page itself
    lambda site: (site / "missing.css").write_text(".x{}", encoding="utf-8"),  # a 404 it got now exists
])
def test_any_changed_input_makes_it_render_again(site, change):
    page = site / "index.html"
    cache.store(page, site, {}, [site / "a.js", site / "missing.css"], RESULT)
    change(site)
    assert cache.load(page, site, {}) is None


def test_other_routes_or_root_are_another_render(site, tmp_path):
    page = site / "index.html"
    cache.store(page, site, {}, [], RESULT)
    assert cache.load(page, site, {"https://cdn.example/": tmp_path}) is None
    assert cache.load(page, tmp_path, {}) is None


def test_an_unreadable_entry_is_a_miss(site):
    page = site / "index.html"
    cache.store(page, site, {}, [], RESULT)
    next(cache.folder().iterdir()).write_text("{not json", encoding="utf-8")
    assert cache.load(page, site, {}) is None


def test_what_a_render_learned_comes_back_whole(site):
    """The scripts' classes and the blocked scripts survive the cache: a second run warns the same."""
    from pathlib import Path

    from theme.init.lint.css import ClassDef
    from theme.init.lint.render import Rendered

    page = site / "index.html"
    learned = Rendered({"marker": ClassDef("marker", Path("rendered: document"), 0, 0)}, 1, ["document"], {"marker"},
                       {"name", "affiliation"}, ["https://distill.pub/template.v2.js"])
    cache.store(page, site, {}, [site / "a.js"], learned.to_json())
    again = Rendered.from_json(cache.load(page, site, {}))
    assert (again.script_classes, again.blocked, again.cached) == (
        {"name", "affiliation"}, ["https://distill.pub/template.v2.js"], True)
    assert again.to_json() == learned.to_json()


def test_an_entry_from_an_older_lint_is_a_miss(site):
    """VERSION is part of the key: an entry written before the render learned more is not reused."""
    page = site / "index.html"
    cache.store(page, site, {}, [], RESULT)
    entry = next(cache.folder().iterdir())
    entry.write_text(entry.read_text(encoding="utf-8").replace(f'"version": {cache.VERSION}', '"version": 1'),
                     encoding="utf-8")
    assert cache.load(page, site, {}) is None
