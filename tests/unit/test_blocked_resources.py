"""A refusal for what did not load, without a browser (theme/capture/resources.py; issue 50):
every resource a page needs that did not load on a line of its own, each once, never
"(and 2 more)"; a run says a page's list once, however many variants and states of it are
refused (PerPage); and what to do depends on what is known: `theme init` only where it can
help. The browser end to end: tests/integration/test_trustworthy_renders.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from theme.capture import resources
from theme.capture.resources import BLOCKED, NOT_IN_ROUTE, Hints, Missed, PerPage, Refusal, refusal

ORIGIN = "http://127.0.0.1:8765"
LIB = "https://cdn.example.invalid/lib/"
SCRIPTS = [LIB + "a.js", LIB + "b.js", LIB + "c.js"]
D3 = "https://d3js.org/d3.v4.min.js"


def project(tmp_path: Path, urls: list[str], vendored: str | None = None) -> Path:
    """A project whose site/index.html asks for `urls` with <script src>, one a line from line 3."""
    (tmp_path / "site").mkdir()
    tags = "".join(f'<script src="{u}"></script>\n' for u in urls)
    (tmp_path / "site/index.html").write_text(f"<!doctype html>\n<head>\n{tags}</head>\n")
    (tmp_path / "pyproject.toml").write_text("[tool.theme.visual]\n")
    if vendored is not None:
        (tmp_path / "vendor").mkdir()
        (tmp_path / "vendor/VENDORED.md").write_text(vendored)
    return tmp_path


def refused(tmp_path: Path, missed: list[Missed], where: str = "index.html (desktop-light)",
            route: dict[str, Path] | None = None) -> Refusal:
    askers = {m.url: {"how": "element", "tag": "script", "attr": "src", "value": m.url} for m in missed}
    hints = Hints.of(tmp_path, tmp_path / "site", route or {}, f"{tmp_path}/pyproject.toml:1:1",
                     f"{tmp_path}/pyproject.toml:1:1")
    return refusal(sorted(missed, key=lambda m: m.url), askers, where=where, page="index.html", origin=ORIGIN,
                   hints=hints)


def blocked(*urls: str) -> list[Missed]:
    return [Missed(u, "script", BLOCKED) for u in urls]


def test_every_blocked_script_is_named_once_on_a_line_of_its_own(tmp_path):
    text = refused(project(tmp_path, SCRIPTS), blocked(*SCRIPTS)).message()
    lines = text.splitlines()
    assert lines[0].startswith("index.html (desktop-light): 3 resources the page needs did not load")
    assert "more)" not in text and "and 2 more" not in text
    for n, url in enumerate(SCRIPTS):
        assert text.count(url) == 1  # named once; the route line names the folder, not the files
        assert lines[1 + n] == (f"  - the page's script {url} did not load: it was blocked (not on 127.0.0.1 and no "
                                f"`route` serves it); asked for by a <script src> at "
                                f"{tmp_path / 'site/index.html'}:{3 + n}:9")
    # One remedy for the three: one route to a folder holding them, or allow_blocked.
    assert lines[4] == (f'  fix: serve a.js, b.js, c.js from a local copy: add `route = {{ "{LIB}" = "FOLDER" }}` '
                        f"to {tmp_path}/pyproject.toml:1:1, FOLDER holding them")
    assert lines[5] == (f"  or: list them in allow_blocked ({tmp_path}/pyproject.toml:1:1) if the page is fine "
                        "without them")
    assert len(lines) == 6
    assert "theme init" not in text  # no package has an unknown host's files: init cannot help


def test_a_known_cdn_address_says_init_only_until_init_has_run(tmp_path):
    before = refused(project(tmp_path, [D3]), blocked(D3)).message()
    assert "  fix: run `theme init` for d3.v4.min.js: it vendors d3@4 and routes it there" in before.splitlines()
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor/VENDORED.md").write_text("| d3 | 4.13.0 | `https://d3js.org/d3.v3.min.js` |\n")
    after = refused(tmp_path, blocked(D3)).message()  # init ran and left it blocked: it could not help
    assert "theme init" not in after and "run `theme init`" not in after
    assert '`route = { "https://d3js.org/" = "FOLDER" }`' in after and "`--package d3=PATH`" in after
    assert "allow_blocked" in after


def test_an_address_init_routed_says_to_run_init_again(tmp_path):
    text = refused(project(tmp_path, [D3], vendored=f"| d3 | 4.13.0 | `{D3}` |\n"), blocked(D3)).message()
    assert "run `theme init` again for d3.v4.min.js: it wrote the `route` that served it (vendor/VENDORED.md)" in text


def test_a_route_of_the_users_without_the_file_says_where_to_put_it_not_init(tmp_path):
    folder = tmp_path / "copies"
    folder.mkdir()
    missed = [Missed(LIB + "a.js", "script", NOT_IN_ROUTE)]
    text = refused(project(tmp_path, SCRIPTS[:1]), missed, route={LIB: folder}).message()
    assert "its `route` has no such file" in text
    assert f"  fix: put a.js in {folder}, the folder its `route` '{LIB}' ({tmp_path}/pyproject.toml:1:1) serves, " \
           "or fix that route" in text.splitlines()
    assert "theme init" not in text  # init leaves a route of the user's as it is


def test_a_page_file_that_is_missing_says_to_add_it(tmp_path):
    missed = [Missed(ORIGIN + "/gone.css", "stylesheet", "HTTP 404")]
    text = refused(project(tmp_path, []), missed).message()
    assert "  - the page's stylesheet /gone.css did not load: it failed (HTTP 404)" in text
    assert f"  fix: add gone.css under {tmp_path / 'site'}, or fix the reference" in text.splitlines()


@pytest.mark.parametrize("state", ["", ", state cite-hover"])
def test_a_run_names_a_pages_list_once_and_points_at_it_from_its_other_variants(tmp_path, state):
    project(tmp_path, SCRIPTS)
    said = PerPage()
    light = said.message(refused(tmp_path, blocked(*SCRIPTS), "index.html (desktop-light)"))
    dark = said.message(refused(tmp_path, blocked(*SCRIPTS), f"index.html (desktop-dark{state})"))
    assert all(light.count(url) == 1 for url in SCRIPTS)
    assert dark == (f"index.html (desktop-dark{state}): not checked, no baseline written: the same 3 resources the "
                    "page needs did not load, named with what to do at index.html (desktop-light)")
    # A variant that misses one more (a font only the mobile layout uses) names that one alone.
    font = Missed("https://fonts.example.invalid/brand.woff2", "font", BLOCKED)
    mobile = said.message(refused(tmp_path, [*blocked(*SCRIPTS), font], "index.html (mobile-light)"))
    assert mobile.splitlines()[0] == ("index.html (mobile-light): 1 more resource the page needs (besides the 3 named "
                                      "at index.html (desktop-light)) did not load, so this render is not the page "
                                      "as published: it is not checked and no baseline is written")
    assert font.url in mobile and not any(url in mobile for url in SCRIPTS)
    # Another page's list is its own.
    other = said.message(Refusal("other.html (desktop-light)", "other.html",
                                 refused(tmp_path, blocked(*SCRIPTS)).blocked, "x"))
    assert all(other.count(url) == 1 for url in SCRIPTS)


def test_a_compacted_refusal_keeps_its_list():
    from theme.pytest_plugin import compact_block

    text = "\n".join(["index.html (desktop-light): 2 resources the page needs did not load, …",
                      resources.ITEM + "the page's script a", resources.ITEM + "the page's script b",
                      resources.FIX + "serve them", resources.OR + "list them"])
    assert compact_block(text) == text


def test_a_project_with_routes_is_told_to_add_an_entry_not_a_second_route_key(tmp_path):
    folder = tmp_path / "copies"
    folder.mkdir()
    text = refused(project(tmp_path, SCRIPTS[:1]), blocked(SCRIPTS[0]), route={"https://other.invalid/": folder})
    assert f'add `"{LIB}" = "FOLDER"` to the `route` at {tmp_path}/pyproject.toml:1:1, FOLDER holding it' in \
        text.message()
