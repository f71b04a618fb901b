"""System-font part of the capture fingerprint: font stacks parsed, fontconfig's answers hashed."""

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

from theme.capture.fonts import GENERIC, fallback_fonts, split_stack


@pytest.mark.parametrize("stack, families", [
    ('"Source Serif 4", Georgia, serif', ["Source Serif 4", "Georgia", "serif"]),
    ("'JetBrains Mono', monospace", ["JetBrains Mono", "monospace"]),
    ("inherit", []),
    ("", []),
])
def test_split_stack(stack, families):
    assert split_stack(stack) == families


needs_fc = pytest.mark.skipif(shutil.which("fc-match") is None, reason="fontconfig's fc-match is not installed")


def fc_match(family: str) -> str:
    return subprocess.run(["fc-match", "-f", "%{file}", family], capture_output=True, text=True, check=True).stdout


@needs_fc
def test_generics_and_named_families_map_to_the_file_fontconfig_picks():
    fonts = fallback_fonts(["Georgia"])
    assert set(fonts) == set(GENERIC) | {"Georgia"}
    assert list(fonts) == sorted(fonts)  # deterministic order in the JSON
    for family in ("serif", "emoji", "Georgia"):
        assert fonts[family]["file"] == fc_match(family)
        assert fonts[family]["sha256"] == hashlib.sha256(Path(fc_match(family)).read_bytes()).hexdigest()


@needs_fc
def test_same_machine_same_answer():
    assert fallback_fonts(["Nonexistent Family 42", "Georgia"]) == fallback_fonts(["Georgia", "Nonexistent Family 42"])


def test_without_fc_match_families_are_unknown_not_missing(monkeypatch):
    from theme.capture import fonts

    fonts._fc_match.cache_clear()
    monkeypatch.setattr(fonts.shutil, "which", lambda name: None)
    try:
        got = fonts.fallback_fonts(["Georgia"])
    finally:
        fonts._fc_match.cache_clear()
    assert got == {family: None for family in sorted(set(GENERIC) | {"Georgia"})}
