"""--visual-shard: deterministic, balanced assignment of page variants to machines."""

import subprocess

import pytest

from subrun import PYTEST
from theme.review.runs.suite import balance, parse_shard


def test_every_variant_lands_on_exactly_one_shard():
    weights = [5.0, 3.0, 3.0, 2.0, 2.0, 1.0]
    shards = balance(weights, 2)
    assert sorted(set(shards)) == [0, 1]
    loads = [sum(w for w, s in zip(weights, shards, strict=True) if s == k) for k in (0, 1)]
    assert loads == [8.0, 8.0]


def test_assignment_is_deterministic_with_ties():
    assert balance([1.0] * 5, 2) == balance([1.0] * 5, 2) == [0, 1, 0, 1, 0]


def test_one_huge_page_gets_a_machine_to_itself():
    assert balance([100.0, 1.0, 1.0, 1.0], 2) == [0, 1, 1, 1]


@pytest.mark.parametrize("text", ["0/2", "3/2", "a/b", "1", "1/2/3"])
def test_bad_shard_says_what_is_wrong(text):
    with pytest.raises(ValueError, match="--visual-shard"):
        parse_shard(text)


def test_a_bad_shard_stops_pytest_as_a_usage_error_before_anything_runs(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.theme.visual]\npages = ["index.html"]\n')
    (tmp_path / "index.html").write_text("<!doctype html><p>x</p>")
    done = subprocess.run([*PYTEST, "-n", "0", "--visual-shard", "3/2"], cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode == 4, done.stdout + done.stderr  # pytest's usage error
    assert "--visual-shard '3/2': i must be between 1 and n" in done.stderr
    assert not (tmp_path / "snapshots").exists()


def test_good_shard():
    assert parse_shard("2/3") == (2, 3)
