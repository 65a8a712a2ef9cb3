"""benchmarks.stability_nights: who counts as unchanged, and a tiny two-night run end to end.

Here: the tests that need no process, no socket and no Dagster run; the rest of this subject:
tests/e2e/test_stability_nights.py.
"""

from __future__ import annotations


import polars as pl

from benchmarks.stability_nights import unchanged_members


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
