"""Fixtures shared by the integration tests."""

from __future__ import annotations

from pathlib import Path

import pytest

import tiny_article


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The tiny article (tiny_article.py), built, in tmp_path. A module that tests a
    project of its own (test_cli_build.py, test_cli_lint.py, …) defines its own `project`,
    which pytest then uses instead."""
    return tiny_article.make(tmp_path)
