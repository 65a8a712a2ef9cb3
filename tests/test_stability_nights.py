"""benchmarks.stability_nights: who counts as unchanged, and a tiny two-night run end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from benchmarks.stability_nights import unchanged_members

ROOT = Path(__file__).resolve().parents[1]


def _rows(rows: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=["user_id", "game_id", "have", "played", "favorite", "watching", "rating"],
                        orient="row")


def test_only_members_with_the_same_rows_on_both_nights_count() -> None:
    night1 = _rows([
        ("a", "g1", True, False, False, False, None), ("a", "g2", False, True, False, False, 4),
        ("b", "g1", True, False, False, False, 3),
        ("c", "g1", True, False, False, False, None),
        ("e", "g1", True, False, False, False, None),
    ])
    night2 = _rows([
        ("a", "g2", False, True, False, False, 4), ("a", "g1", True, False, False, False, None),  # same, reordered
        ("b", "g1", True, False, False, False, 5),  # rating changed
        ("c", "g1", True, False, False, False, None), ("c", "g3", True, False, False, False, None),  # added one
        ("d", "g1", True, False, False, False, None),  # joined
    ])  # e left
    assert unchanged_members(night1, night2).to_list() == ["a"]


@pytest.mark.slow
def test_a_tiny_two_night_run_reports_every_way_of_serving() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.stability_nights", "--games", "150", "--users", "300"],
        cwd=ROOT, capture_output=True, text=True, timeout=900, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(result["stability_jaccard10"]) == {"champion", "ensemble", "best_single", "ensemble_fixed",
                                                   "best_single_fixed"}
    assert all(0.0 < value <= 1.0 for value in result["stability_jaccard10"].values())
    assert result["unchanged_members"] > 0 and len(result["choices"]) == 2
