"""[tool.theme] parsing: defaults, resolution of paths, and errors that point into the file."""

from pathlib import Path

import pytest

from theme.core import config
from theme.core.errors import ConfigError


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "pyproject.toml"
    path.write_text(body, encoding="utf-8")
    return path


def test_defaults_resolve_against_the_pyproject_folder(tmp_path):
    cfg = config.load(write(tmp_path, "[tool.theme]\n"))
    assert cfg.build.entry == tmp_path / "scss/style.scss"
    assert cfg.build.outputs == (tmp_path / "article/src/style.css", tmp_path / "article/dist/style.css")
    assert cfg.build.style == "expanded" and cfg.build.source_map is False
    assert cfg.visual is None


def test_visual_table_with_per_region_tolerance(tmp_path):
    cfg = config.load(write(tmp_path, """
[tool.theme]
[tool.theme.visual]
pages = ["a.html"]
viewports = { wide = [1440, 900] }
regions = { note-box = ".note-box" }
[tool.theme.visual.tolerance]
threshold = 0.2
[tool.theme.visual.tolerance.note-box]
max_diff_pixels = 10
"""))
    v = cfg.visual
    assert v.root == tmp_path / "article/dist"
    assert v.viewports == {"wide": (1440, 900)}
    assert v.tolerance.threshold == 0.2
    assert v.tolerance_for("note-box").max_diff_pixels == 10
    assert v.tolerance_for("note-box").threshold == 0.2  # inherits the default table
    assert v.tolerance_for("code").max_diff_pixels == 0
    assert v.switch_schemes is True
    assert v.skip_unchanged is True


def test_unknown_key_names_key_file_and_line(tmp_path):
    path = write(tmp_path, '[tool.theme]\nentry = "x.scss"\noutput = ["a.css"]\n')
    with pytest.raises(ConfigError) as err:
        config.load(path)
    assert str(err.value).startswith(f"{path.resolve()}:3:1: unknown key 'output'")
    assert "outputs" in str(err.value)  # the known keys are listed


@pytest.mark.parametrize("body, words", [
    ('viewports = { d = [0, 800] }', "two positive integers"),
    ('viewports = { d = [1280] }', "two positive integers"),
    ('color_schemes = ["sepia"]', "'sepia' is not one of"),
    ('pages = "index.html"', "list of non-empty strings"),
    ('tile_height = -5', "positive integer"),
    ('tile_height = 65536', "above 32768"),
    ('switch_schemes = "no"', "true or false"),
    ('seed = -1', "seed must be a whole number from 0 to "),
    ('seed = 1.5', "seed must be a whole number"),
    ('page_time = 0', "page_time must be a positive integer"),
    ('real_time = ["other.html"]', "real_time names 'other.html', which is not one of pages"),
    ('skip_unchanged = 0', "true or false"),
])
def test_bad_visual_values(tmp_path, body, words):
    path = write(tmp_path, f"[tool.theme]\n[tool.theme.visual]\n{body}\n")
    with pytest.raises(ConfigError, match=words) as err:
        config.load(path)
    assert f"{path.resolve()}:3:" in str(err.value)


def test_find_pyproject_walks_up(tmp_path):
    write(tmp_path, "[tool.theme]\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert config.load(cwd=deep).source == (tmp_path / "pyproject.toml").resolve()


def test_no_config_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="no pyproject.toml with a \\[tool.theme\\] table"):
        config.load(cwd=tmp_path)


def test_compiler_key(tmp_path):
    assert config.load(write(tmp_path, "[tool.theme]\n")).build.compiler == "libsass"
    assert config.load(write(tmp_path, '[tool.theme]\ncompiler = "dart"\n')).build.compiler == "dart"
    with pytest.raises(ConfigError, match="compiler must be one of libsass, dart"):
        config.load(write(tmp_path, '[tool.theme]\ncompiler = "node-sass"\n'))


def test_key_position_finds_the_key_anywhere_or_inside_one_table(tmp_path):
    path = write(tmp_path, '[tool.theme]\nentry = "a.scss"\n\n[tool.theme.visual]\n'
                           'style = "x.css"\nregions = { note-box = ".n" }\n  "root" = "d"\n')
    assert config.key_position(path, "style") == f"{path}:5:1"
    assert config.key_position(path, "note-box") == f"{path}:6:13"  # inside an inline table
    assert config.key_position(path, "root") == f"{path}:7:3"  # quoted, indented
    assert config.key_position(path, "outputs") == str(path)
    # [tool.theme] alone: `style` there is not set, so its header; the file named as asked
    assert config.key_position(path, "entry", table="tool.theme", shown="p.toml") == "p.toml:2:1"
    assert config.key_position(path, "style", table="tool.theme", shown="p.toml") == "p.toml:1:1"
    assert config.key_position(path, "entry", table="tool.nope", shown="p.toml") == "p.toml:1:1"
    assert config.key_position(tmp_path / "missing.toml", "entry") == str(tmp_path / "missing.toml")
    assert config.key_position(path, "entry", text="") == str(path)  # the caller's text, not the file's


def test_an_unset_tile_height_keeps_the_baselines_and_a_set_one_wins(tmp_path):
    unset = config.load(write(tmp_path, "[tool.theme]\n[tool.theme.visual]\n")).visual
    assert unset.tile_height == 16384 and not unset.tile_height_configured
    kept, note = config.keep_tile_height(unset, 32768)
    assert kept.tile_height == 32768 and "made with 32768-px tiles" in note and "tile_height = 16384" in note
    assert config.keep_tile_height(unset, None) == (unset, None)  # no baselines yet: the default
    assert config.keep_tile_height(unset, 16384) == (unset, None)
    assert config.keep_tile_height(unset, 10**6) == (unset, None)  # not a height theme takes: drift says so

    chosen = config.load(write(tmp_path, "[tool.theme]\n[tool.theme.visual]\ntile_height = 16384\n")).visual
    assert chosen.tile_height_configured
    assert config.keep_tile_height(chosen, 32768) == (chosen, None)  # the config's choice is drift, as it says
    with pytest.raises(ConfigError, match="unknown key 'tile_height_configured'"):
        config.load(write(tmp_path, "[tool.theme]\n[tool.theme.visual]\ntile_height_configured = true\n"))


def test_page_time_seed_and_real_time(tmp_path):
    path = write(tmp_path, '[tool.theme.visual]\npages = ["a.html", "b.html"]\nseed = 42\npage_time = 5\n'
                           'real_time = ["b.html"]\n')
    visual = config.load(path).visual
    assert (visual.seed, visual.page_time, visual.real_time) == (42, 5, ("b.html",))
    defaults = config.load(write(tmp_path, '[tool.theme.visual]\n')).visual
    assert (defaults.seed, defaults.page_time, defaults.real_time) == (0, 30, ())
