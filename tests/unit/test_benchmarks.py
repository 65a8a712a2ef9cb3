"""The benchmark code paths run and report every figure (correctness, never timing).

Here: the tests that need no process, no socket and no Dagster run; the rest of this subject:
tests/e2e/test_benchmarks.py.
"""

from __future__ import annotations


import numpy as np
import pytest

from benchmarks.__main__ import growth_exponent, night_sizes
from benchmarks.yardstick import yardstick


def test_night_sizes_are_read_smallest_first() -> None:
    assert night_sizes("25000x400000, 25000X100000,25000x200000") == (
        (25000, 100000), (25000, 200000), (25000, 400000))


def test_growth_exponent_is_the_log_log_slope() -> None:
    assert growth_exponent([1e3, 2e3, 4e3], [10.0, 20.0, 40.0]) == pytest.approx(1.0)
    assert growth_exponent([1e3, 2e3, 4e3], [10.0, 40.0, 160.0]) == pytest.approx(2.0)


def test_yardstick_fits_the_capped_ease_and_ranks_every_member() -> None:
    """Three members, four games, a cap of three games: the least collected game is left
    out of the fit and every member is scored (the scale benchmark's ratios rest on it)."""
    users = np.array([0, 0, 1, 1, 2, 2, 2])
    games = np.array([0, 1, 1, 2, 0, 1, 3])
    figures = yardstick(users, games, k=2, items=3)
    assert figures["items"] == 3 and figures["members"] == 3 and figures["scored_members"] == 3
    assert figures["k"] == 2 and figures["seconds"] == pytest.approx(figures["fit_seconds"] + figures["score_seconds"],
                                                                     abs=0.02)


def test_a_benchmarks_flags_take_their_defaults_types() -> None:
    """`benchmarks.options`: a flag per keyword, typed by its default; a list takes several values."""
    from benchmarks.options import options

    args = options(["--games", "7", "--size", "3", "5", "--top-share", "0.5", "--quick"], "d",
                   games=1000, size=[2, 3, 4], top_share=0.1, champion="ease", quick=False)
    assert vars(args) == {"games": 7, "size": [3, 5], "top_share": 0.5, "champion": "ease", "quick": True}
    assert options([], "d", games=1000, size=[2, 3, 4]).size == [2, 3, 4]
    with pytest.raises(SystemExit):
        options(["--games", "many"], "d", games=1000)
