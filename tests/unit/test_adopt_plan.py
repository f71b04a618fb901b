"""theme.init.adopt without a browser: the scss/ it plans from a hand-written stylesheet, compiled
with the real libsass, must give back the same rules in a cascade-equivalent order; the
project's pyproject.toml keeps every other byte; bad input is one clear error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from theme.init.adopt import AdoptError, adopt_stylesheet, canon, convert, parse, project
from theme.init.adopt.adoption import _compile
from theme.init.adopt.locate import locate

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "adopt"


def plan_of(css: str) -> convert.Plan:
    return convert.plan(parse.items(css), "style.css")


def compiled_of(css: str) -> str:
    return _compile(plan_of(css).files).decode("utf-8")


def declared(css: str, prop: str) -> list[str]:
    """Every value of `prop` in the order a browser applies them (dark block included)."""
    return [m.group(1).strip() for m in re.finditer(rf"(?<![\w-]){re.escape(prop)}:\s*([^;}}]+)", css)]


def test_fixture_compiles_back_to_the_same_rules():
    original = (FIXTURE / "style.css").read_text(encoding="utf-8")
    rem_px = plan_of(original).scale.rem_px
    assert rem_px == 16  # html { font-size: 16px }: 0.5rem and 2rem read the 8px and 32px steps
    assert canon.rules(compiled_of(original), rem_px) == canon.rules(original, rem_px)
    assert canon.rules(compiled_of(original)) != canon.rules(original)  # they are px now


def test_rem_joins_the_equal_px_step_only_where_the_stylesheet_fixes_the_root_size():
    rules = ".a { margin: 1rem 0; }\n.b { padding: 16px; }\n.c { margin: 2rem; }\n"
    fixed = plan_of("html { font-size: 16px; }\n" + rules)
    assert fixed.scale.merged == ["1rem into 16px"]
    assert [(p.name, p.value) for p in fixed.scale.of_kind("space")] == [("space-1", "16px"), ("space-2", "2rem")]
    assert declared(_compile(fixed.files).decode(), "margin") == ["16px 0", "2rem"]
    for loose in (rules, "html { font-size: 16px; }\n@media (min-width: 9px) { html { font-size: 20px; } }\n" + rules,
                  "html { font-size: 100%; }\n" + rules):  # the reader's setting, or a second size
        plan = plan_of(loose)
        assert plan.scale.merged == [] and plan.scale.rem_px is None
        assert len(plan.scale.of_kind("space")) == 3
    kept = convert.plan(parse.items("html { font-size: 16px; }\n" + rules), "style.css", merge_units=False)
    assert kept.scale.merged == [] and canon.rules(_compile(kept.files).decode()) == canon.rules(
        "html { font-size: 16px; }\n" + rules)


def test_the_scale_palette_and_roles_are_defaults():
    files = plan_of((FIXTURE / "style.css").read_text(encoding="utf-8")).files
    for name in ("scale", "palette", "roles"):
        assignments = [line for line in files[f"scss/tokens/_{name}.scss"].splitlines() if line.startswith("$")]
        assert assignments and all(" !default;" in line for line in assignments), name
    scale = files["scss/tokens/_scale.scss"]
    assert "$font-size-1: 12px !default;" in scale and "$space-1: 4px !default;" in scale
    assert "$font-size-small: $font-size-1 !default;" in files["scss/tokens/_roles.scss"]
    # the component reads its own hook, the hook reads the role; no literal size is left
    note_box = files["scss/components/_note-box.scss"]
    assert "$note-box-title-font-size: $font-size-small !default;" in note_box
    assert "font-size: $note-box-title-font-size;" in note_box and "12px" not in note_box


def test_equal_values_are_one_step_ordered_by_size():
    css = (":root { font-size: 10px; }\n.a { font-size: 2rem; margin: 12px 0 0.5rem; }\n"
           ".b { font-size: 14px; padding: 12.0px; }\n.c { font-size: 14px; line-height: 1.5; }\n")
    plan = plan_of(css)
    ladder = [(p.name, p.value) for p in plan.scale.of_kind("font-size")]
    assert ladder == [("font-size-1", "10px"), ("font-size-2", "14px"), ("font-size-3", "2rem")]  # 2rem: 20px here
    assert [(p.name, p.value) for p in plan.scale.of_kind("space")] == [("space-1", "0.5rem"), ("space-2", "12px")]
    assert canon.rules(_compile(plan.files).decode()) == canon.rules(css)


def test_one_token_sets_every_small_text():
    """The seeds' change in one line: note-box title, content and d-code read one token."""
    plan = plan_of((FIXTURE / "style.css").read_text(encoding="utf-8"))
    plan.files["scss/style.scss"] = "$font-size-small: 13px;\n" + plan.files["scss/style.scss"]
    css = _compile(plan.files).decode()
    sizes = {rule: declared(css[css.index(rule + " {"):], "font-size")[0]
             for rule in (".note-box-title", ".note-box-content", "d-code", "body", "figcaption")}
    assert sizes == {".note-box-title": "13px", ".note-box-content": "13px", "d-code": "13px",
                     "body": "17px", "figcaption": "13px"}  # figcaption was 13px already


def test_colours_become_a_palette_and_roles_with_dark_values():
    css = ("body { color: #1f2328; background: #ffffff; }\n.note { background: #f1f6fe; color: #1f2328; }\n"
           "h2 { border-bottom: 1px solid #d9dee3; }\n"
           "@media (prefers-color-scheme: dark) { body { color: #d4d4d4; background: #121519; }\n"
           "  .note { background: #121b2b; color: #d4d4d4; } }\n")
    plan = plan_of(css)
    palette = plan.files["scss/tokens/_palette.scss"]
    assert palette.count("!default;") == 7 and palette.count("#1f2328") == 1  # each colour once
    roles = plan.files["scss/tokens/_roles.scss"]
    text, text_dark = plan.scale.primitives[("color", "#1f2328")], plan.scale.primitives[("color", "#d4d4d4")]
    assert f"$color-text: ${text.name} !default;" in roles
    assert f"$color-text-dark: ${text_dark.name} !default;" in roles
    assert "$color-surface-note: " in roles and "$color-surface-note-dark: " in roles
    assert "$color-border-dark: $color-border !default;" in roles  # no dark border: the light one
    assert "$note-color: $color-text !default;" in plan.files["scss/components/_note.scss"]
    assert "color-text-muted" not in roles  # no grey text that two components share
    assert canon.rules(_compile(plan.files).decode()) == canon.rules(css)


def test_grey_text_two_components_share_is_the_muted_role():
    css = ("body { color: #1f2328; }\nfigcaption { color: #57606a; }\n.byline { color: #57606a; }\n"
           ".lead { color: #888888; }\n@media (prefers-color-scheme: dark) { figcaption { color: #9198a1; } }\n")
    plan = plan_of(css)
    muted, dark = (plan.scale.primitives[("color", c)].name for c in ("#57606a", "#9198a1"))
    roles = plan.files["scss/tokens/_roles.scss"]
    assert f"$color-text-muted: ${muted} !default;" in roles and f"$color-text-muted-dark: ${dark} !default;" in roles
    assert "$byline-color: $color-text-muted !default;" in plan.files["scss/components/_byline.scss"]
    assert "$lead-color: $gray-" in plan.files["scss/components/_lead.scss"]  # one component: no role


def test_custom_properties_read_the_palette_and_keep_their_quotes():
    css = ':root { --accent: #1f5fbf; --mono: "DejaVu Sans Mono", monospace; }\na { color: var(--accent); }\n'
    plan = plan_of(css)
    assert "$blue-550: #1f5fbf !default;" in plan.files["scss/tokens/_palette.scss"]
    base = plan.files["scss/components/_base.scss"]
    assert "$accent: $blue-550 !default;" in base
    assert '$mono: "DejaVu Sans Mono", monospace !default;' in base
    assert '--mono: "DejaVu Sans Mono", monospace;' in compiled_of(css)


def test_overriding_a_hook_before_the_import_changes_only_its_rule():
    plan = plan_of(".note-box-title { font-size: 12px; color: #444444; }\n.other { font-size: 12px; }\n")
    plan.files["scss/style.scss"] = "$note-box-title-font-size: 13px;\n" + plan.files["scss/style.scss"]
    css = _compile(plan.files).decode()
    assert declared(css, "font-size") == ["13px", "12px"] and declared(css, "color") == ["#444444"]


def test_component_files_are_named_after_components():
    plan = plan_of((FIXTURE / "style.css").read_text(encoding="utf-8"))
    names = [path.rsplit("/_", 1)[1].removesuffix(".scss") for path in plan.files if "/components/" in path]
    assert sorted(names) == sorted(plan.components)
    assert {"note-box", "d-code", "figures", "byline"} <= set(names)
    assert not [name for name in names if re.search(r"-\d+$", name)]


def test_cascade_order_is_kept_when_rules_of_one_component_are_apart():
    css = (".note { color: red; }\n"
           "p { color: blue; }\n"
           ".note { font-size: 12px; }\n"   # sets nothing p sets: may join .note's component
           ".note { color: green; }\n")     # p also sets colour on maybe the same element: stays after it
    compiled = compiled_of(css)
    assert declared(compiled, "color") == ["red", "blue", "green"]
    assert compiled.index("font-size") < compiled.index("blue")
    plan = plan_of(css)
    assert plan.components == ["note", "p"] and plan.parts == ["note-after-p"]
    assert "@mixin note-after-p {" in plan.files["scss/components/_note.scss"]
    assert plan.files["scss/style.scss"].endswith('@import "components/p";\n@include note-after-p;\n')


def test_a_dark_rule_stays_after_the_rules_it_overrides():
    css = ("body { color: #111111; }\n.x { color: #222222; }\n"
           "@media (prefers-color-scheme: dark) { body { color: #eeeeee; } }\n")
    plan = plan_of(css)
    compiled = _compile(plan.files).decode()
    assert declared(compiled, "color") == ["#111111", "#222222", "#eeeeee"]
    assert "$color-text-dark: $gray-50 !default;" in plan.files["scss/tokens/_roles.scss"]


def test_rules_for_other_elements_do_not_hold_a_rule_back():
    css = ("body { color: #111111; }\nh1 { color: #222222; }\n"
           "@media (prefers-color-scheme: dark) { body { color: #eeeeee; } }\n")
    plan = plan_of(css)
    assert plan.components[0] == "base"
    assert "@media (prefers-color-scheme: dark)" in plan.files["scss/components/_base.scss"]
    assert canon.rules(_compile(plan.files).decode()) == canon.rules(css)


def test_a_rule_libsass_would_change_is_left_as_written_and_named():
    css = "a { color: #1f2328; }\nb { color: rgb(0 0 0 / 50%); }\n"
    plan = plan_of(css)
    [kept] = [p for p in plan.pieces if p.left_as_written]
    assert kept.item.selector == "b" and kept.item.line == 2 and "quoted" in kept.left_as_written
    assert "color: rgb(0 0 0 / 50%);" in _compile(plan.files).decode()


def test_what_tinycss2_cannot_parse_is_named_and_kept_as_a_comment():
    css = "a { color: #1f2328; }\nd-code\n"
    plan = plan_of(css)
    [kept] = [p for p in plan.pieces if p.left_as_written]
    assert kept.item.error and kept.item.line == 2 and "d-code" in kept.scss
    compiled = _compile(plan.files).decode()
    assert canon.rules(compiled) == canon.rules(css)


def test_same_input_same_bytes():
    css = (FIXTURE / "style.css").read_text(encoding="utf-8")
    assert plan_of(css).files == plan_of(css).files


# ---------------------------------------------------------------- project files


def test_pyproject_keeps_every_other_byte(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text('# the article\n[project]\nname = "notes"  # keep me\n\n[tool.black]\nline-length = 99\n\n'
                    '[tool.theme.visual]\npages = ["index.html"]   # just the one\n', encoding="utf-8")
    project.set_build(path, "scss/style.scss", ["dist/style.css", "src/style.css"])
    assert path.read_text(encoding="utf-8") == (
        '# the article\n[project]\nname = "notes"  # keep me\n\n[tool.black]\nline-length = 99\n\n'
        '[tool.theme]\nentry = "scss/style.scss"\noutputs = ["dist/style.css", "src/style.css"]\n\n'
        '[tool.theme.visual]\npages = ["index.html"]   # just the one\n')


def test_pyproject_entry_is_replaced_and_the_other_keys_kept(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.theme]\n# mine\nstyle = "expanded"  # c\nentry = "old.scss"\n\n'
                    '[tool.theme.visual]\npages = ["a.html"]\n', encoding="utf-8")
    project.set_build(path, "scss/style.scss", ["style.css"])
    assert path.read_text(encoding="utf-8") == (
        '[tool.theme]\n# mine\nstyle = "expanded"  # c\nentry = "scss/style.scss"\noutputs = ["style.css"]\n\n'
        '[tool.theme.visual]\npages = ["a.html"]\n')


def test_pyproject_is_created_when_absent(tmp_path):
    project.set_build(tmp_path / "pyproject.toml", "scss/style.scss", ["style.css"])
    from theme.core.config import load
    cfg = load(tmp_path / "pyproject.toml")
    assert cfg.build.entry == tmp_path / "scss/style.scss" and cfg.build.outputs == (tmp_path / "style.css",)


def article(tmp_path: Path, dist_css: str | None = None) -> Path:
    for folder in ("src", "dist"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "index.html").write_bytes((FIXTURE / "index.html").read_bytes())
        (tmp_path / folder / "style.css").write_bytes((FIXTURE / "style.css").read_bytes())
    if dist_css is not None:
        (tmp_path / "dist" / "style.css").write_text(dist_css, encoding="utf-8")
    return tmp_path


def test_copies_are_found_and_the_served_one_is_dist(tmp_path):
    root = article(tmp_path, dist_css="body { color: #111111; }\n")
    found = locate(root, None)
    assert found.copies == (root / "dist/style.css", root / "src/style.css")
    assert found.served == found.source == root / "dist/style.css"
    assert found.pages == (root / "dist/index.html",)
    assert found.differ == (root / "src/style.css",)


def test_existing_scss_is_not_overwritten_without_force(tmp_path):
    root = article(tmp_path)
    (root / "scss").mkdir()
    (root / "scss" / "style.scss").write_text("// mine\n", encoding="utf-8")
    with pytest.raises(AdoptError) as err:
        adopt_stylesheet(root, None, dry_run=True, force=False)
    assert "scss: already exists; pass --force" in str(err.value) and err.value.exit_code == 2
    assert (root / "scss" / "style.scss").read_text(encoding="utf-8") == "// mine\n"


def test_a_missing_stylesheet_is_one_clear_error(tmp_path):
    with pytest.raises(AdoptError, match=r"no such stylesheet; pass the path"):
        adopt_stylesheet(tmp_path, tmp_path / "nope.css", dry_run=True, force=False)
    with pytest.raises(AdoptError, match=r"no stylesheet named style.css under"):
        adopt_stylesheet(tmp_path, None, dry_run=True, force=False)


def test_a_given_stylesheet_is_the_source_and_its_page_is_served(tmp_path):
    root = article(tmp_path, dist_css="body { color: #111111; }\n")
    found = locate(root, root / "src/style.css")
    assert found.source == found.served == root / "src/style.css"
    assert found.pages == (root / "src/index.html",)
    assert found.differ == (root / "dist/style.css",)


def test_a_stylesheet_that_is_not_utf8_is_one_clear_error(tmp_path):
    root = article(tmp_path)
    for folder in ("src", "dist"):
        (root / folder / "style.css").write_bytes(b"/* caf\xe9 */ body { color: #111111; }\n")
    with pytest.raises(AdoptError, match=r"^dist/style.css: not UTF-8 text .*; save it as UTF-8$"):
        adopt_stylesheet(root, None, dry_run=True, force=False)


def test_a_shorthand_is_never_moved_past_its_longhand():
    css = (".box { columns: 2; }\n"
           "div { text-wrap: wrap; column-count: 3; }\n"
           ".box { white-space: pre; }\n"   # white-space sets text-wrap-mode: must stay after div
           ".box { columns: 4; }\n")        # columns sets column-count: must stay after div
    compiled = compiled_of(css)
    assert declared(compiled, "columns") == ["2", "4"]
    assert compiled.index("text-wrap") < compiled.index("white-space")
    assert compiled.index("column-count") < compiled.index("columns: 4")


def test_without_regrouping_every_rule_keeps_its_place():
    css = ".note { color: red; }\n.lead { font-size: 12px; }\n.note { margin: 0; }\n"
    plan = convert.plan(parse.items(css), "style.css", regroup=False)
    assert plan.components == ["note", "lead"] and plan.parts == ["note-after-lead"] and plan.moved == 0
    assert convert.plan(parse.items(css), "style.css").moved == 1


def test_comments_after_the_last_rule_are_kept():
    css = ("a { color: #111111; }\n/* the end */\n"
           "@media (min-width: 9px) { b { margin: 1px; } /* inner end */ }\n/* last words */\n")
    plan = plan_of(css)
    compiled = _compile(plan.files).decode()
    for comment in ("/* the end */", "/* inner end */", "/* last words */"):
        assert comment in compiled
    assert canon.rules(compiled) == canon.rules(css)
