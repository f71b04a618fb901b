"""[[tool.theme.visual.states]]: parsing, errors that point into the file, chained steps, and
the state variants that follow the pages' own (theme/core/config.py, theme/capture/naming.py)."""

from pathlib import Path

import pytest

from theme.capture import variants
from theme.core import config
from theme.core.errors import ConfigError

HEAD = """
[tool.theme]
[tool.theme.visual]
pages = ["index.html", "b.html"]
viewports = { desktop = [1280, 800] }
color_schemes = ["light", "dark"]
"""
GOOD = HEAD + """
[[tool.theme.visual.states]]
name = "cite-hover"
steps = [{ hover = "d-cite" }]
capture = { hover-box = "d-cite d-hover-box .panel" }
contrast = "text"

[[tool.theme.visual.states]]
name = "typed"
pages = ["index.html"]
after = "cite-hover"
steps = [
  { fill = "#alignment", text = "cat" },
  { press = "Enter", on = "#alignment" },
  { press = "Tab" },
  { select = "select#mode", value = "greedy" },
  { wait_for = "#figure svg" },
  { wait_for = { condition = "window.redrawn === true" } },
  { scroll_into_view = "#figure" },
  { click = "#figure button" },
  { focus = "#figure input" },
]
capture = { figure = "#figure", screen = ":viewport" }
padding = 0
"""


def load(tmp_path: Path, body: str) -> config.VisualConfig:
    path = tmp_path / "pyproject.toml"
    path.write_text(body, encoding="utf-8")
    visual = config.load(path).visual
    assert visual is not None
    return visual


def test_states_parse_with_every_step_kind(tmp_path):
    v = load(tmp_path, GOOD)
    cite, typed = v.states
    assert cite.name == "cite-hover" and cite.pages == () and cite.padding == 8 and cite.contrast == "text"
    assert [s.describe() for s in cite.steps] == ["hover 'd-cite'"]
    assert typed.capture == {"figure": "#figure", "screen": config.VIEWPORT} and typed.padding == 0
    assert [(s.action, s.target, dict(s.options)) for s in typed.steps] == [
        ("fill", "#alignment", {"text": "cat"}), ("press", "Enter", {"on": "#alignment"}), ("press", "Tab", {}),
        ("select", "select#mode", {"value": "greedy"}), ("wait_for", "#figure svg", {}),
        ("wait_for", "window.redrawn === true", {"condition": "true"}), ("scroll_into_view", "#figure", {}),
        ("click", "#figure button", {}), ("focus", "#figure input", {})]
    # chained on purpose: the other state's steps first, on the same page
    assert [s.action for s in v.steps_of(typed)][:2] == ["hover", "fill"]
    assert [s.name for s in v.states_of("b.html")] == ["cite-hover"]


def test_state_variants_come_after_every_page_variant(tmp_path):
    got = variants(load(tmp_path, GOOD))
    assert [(v.page, v.scheme, v.state) for v in got] == [
        ("index.html", "light", ""), ("index.html", "dark", ""), ("b.html", "light", ""), ("b.html", "dark", ""),
        ("index.html", "light", "cite-hover"), ("index.html", "light", "typed"),
        ("index.html", "dark", "cite-hover"), ("index.html", "dark", "typed"),
        ("b.html", "light", "cite-hover"), ("b.html", "dark", "cite-hover")]
    state = got[4]
    assert state.folder.as_posix() == "index/desktop-light/state/cite-hover"
    assert state.prefix == "state/cite-hover/" and got[0].prefix == ""
    assert state.id == got[0].id  # the same viewport and scheme as the page it is reached on


@pytest.mark.parametrize("state, words", [
    ('name = "a"\nsteps = [{ hover = "x", click = "y" }]\ncapture = { b = "x" }', "exactly one of hover"),
    ('name = "a"\nsteps = [{ jump = "x" }]\ncapture = { b = "x" }', "exactly one of hover"),
    ('name = "a"\nsteps = [{ fill = "x" }]\ncapture = { b = "x" }', "fill needs text"),
    ('name = "a"\nsteps = [{ hover = "x", text = "t" }]\ncapture = { b = "x" }', "hover does not take 'text'"),
    ('name = "a"\nsteps = [{ wait_for = { until = "x" } }]\ncapture = { b = "x" }', "wait_for takes a selector"),
    ('name = "a"\nsteps = []\ncapture = { b = "x" }', "steps must be a non-empty array"),
    ('name = "a"\nsteps = [{ hover = "x" }]', "capture must be a table"),
    ('name = "A b"\nsteps = [{ hover = "x" }]\ncapture = { b = "x" }', "lower-case letters"),
    ('name = "a"\npages = ["c.html"]\nsteps = [{ hover = "x" }]\ncapture = { b = "x" }', "not one of pages"),
    ('name = "a"\nafter = "zzz"\nsteps = [{ hover = "x" }]\ncapture = { b = "x" }', "names no state"),
    ('name = "a"\nafter = "a"\nsteps = [{ hover = "x" }]\ncapture = { b = "x" }', "comes back to 'a'"),
    ('name = "a"\nsteps = [{ hover = "x" }]\ncapture = { b = "x" }\ncontrast = "loud"', "contrast must be one of"),
    ('name = "a"\nsteps = [{ hover = "x" }]\ncapture = { b = "x" }\npadding = -1', "padding must be"),
    ('name = "a"\nsteps = [{ hover = "x" }]\ncapture = { b = "x" }\nwho = 1', "unknown key 'who'"),
])
def test_bad_states_are_one_line_errors_pointing_into_the_file(tmp_path, state, words):
    with pytest.raises(ConfigError) as err:
        load(tmp_path, HEAD + "\n[[tool.theme.visual.states]]\n" + state + "\n")
    message = str(err.value)
    assert words in message and "\n" not in message, message
    assert f"{tmp_path / 'pyproject.toml'}:" in message


def test_two_states_with_one_name_are_an_error(tmp_path):
    twice = '\n[[tool.theme.visual.states]]\nname = "a"\nsteps = [{ hover = "x" }]\ncapture = { b = "x" }\n'
    with pytest.raises(ConfigError, match="two states are named 'a'"):
        load(tmp_path, HEAD + twice + twice)


def test_a_states_config_is_an_input_of_its_own_variants_only(tmp_path):
    """The input skip (theme/check/inputs.py): editing a state re-renders that state and the
    states chained after it, and no page variant."""
    from theme.check.inputs import config_digest

    before = load(tmp_path, GOOD)
    after = load(tmp_path, GOOD.replace('steps = [{ hover = "d-cite" }]', 'steps = [{ hover = "d-cite >> nth=1" }]'))
    changed = {v.state or "page" for v, w in zip(variants(before), variants(after), strict=True)
               if config_digest(before, v) != config_digest(after, w)}
    assert changed == {"cite-hover", "typed"}  # typed runs cite-hover's steps first
