"""Metrics pinned to numbers worked out by hand."""

from math import log2

import polars as pl
import pytest

from models.metrics import (
    catalog_coverage_at_k,
    map_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
)


def recs(rows: list[tuple[str, str, int]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=["user_id", "game_id", "rank"], orient="row")


def truth(rows: list[tuple[str, str]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=["user_id", "game_id"], orient="row")


# Mixed case, k = 3:
#   A: relevant {x, y, z}; list x (hit), p, y (hit)
#   B: relevant {q};       list r, q (hit), s
#   C: relevant {w};       no list at all            -> scores 0 everywhere
#   D: no relevant games;  list x, t                 -> left out of averages
MIXED_RECS = recs(
    [
        ("A", "x", 1), ("A", "p", 2), ("A", "y", 3),
        ("B", "r", 1), ("B", "q", 2), ("B", "s", 3),
        ("D", "x", 1), ("D", "t", 2),
    ]
)
MIXED_TRUTH = truth([("A", "x"), ("A", "y"), ("A", "z"), ("B", "q"), ("C", "w")])


def test_mixed_case_by_hand() -> None:
    ndcg_a = (1 / log2(2) + 1 / log2(4)) / (1 / log2(2) + 1 / log2(3) + 1 / log2(4))
    ndcg_b = (1 / log2(3)) / (1 / log2(2))
    assert ndcg_at_k(MIXED_RECS, MIXED_TRUTH, 3) == pytest.approx((ndcg_a + ndcg_b + 0) / 3)
    assert precision_at_k(MIXED_RECS, MIXED_TRUTH, 3) == pytest.approx((2 / 3 + 1 / 3 + 0) / 3)
    assert recall_at_k(MIXED_RECS, MIXED_TRUTH, 3) == pytest.approx((2 / 3 + 1 + 0) / 3)
    ap_a = (1 / 1 + 2 / 3) / 3
    ap_b = (1 / 2) / 1
    assert map_at_k(MIXED_RECS, MIXED_TRUTH, 3) == pytest.approx((ap_a + ap_b + 0) / 3)
    # distinct shown: x p y r q s t = 7 of 10 games
    assert catalog_coverage_at_k(MIXED_RECS, 10, 3) == pytest.approx(0.7)


def test_mixed_case_numbers() -> None:
    assert ndcg_at_k(MIXED_RECS, MIXED_TRUTH, 3) == pytest.approx(0.444949, abs=1e-6)
    assert map_at_k(MIXED_RECS, MIXED_TRUTH, 3) == pytest.approx(19 / 54)


def test_perfect_ranking_is_one() -> None:
    perfect = recs([("A", "x", 1), ("A", "y", 2), ("B", "q", 1)])
    relevant = truth([("A", "x"), ("A", "y"), ("B", "q")])
    assert ndcg_at_k(perfect, relevant, 2) == pytest.approx(1.0)
    assert map_at_k(perfect, relevant, 2) == pytest.approx(1.0)
    assert recall_at_k(perfect, relevant, 2) == pytest.approx(1.0)
    assert precision_at_k(perfect, relevant, 1) == pytest.approx(1.0)


def test_precision_divides_by_k_not_by_relevant_count() -> None:
    # implicit would report 1.0 here (2 hits / min(3, 2)); we report 2 / 3.
    perfect = recs([("A", "x", 1), ("A", "y", 2), ("A", "z", 3)])
    relevant = truth([("A", "x"), ("A", "y")])
    assert precision_at_k(perfect, relevant, 3) == pytest.approx(2 / 3)
    assert ndcg_at_k(perfect, relevant, 3) == pytest.approx(1.0)


def test_no_hit_is_zero() -> None:
    miss = recs([("A", "p", 1), ("A", "r", 2)])
    relevant = truth([("A", "x")])
    for metric in (ndcg_at_k, precision_at_k, recall_at_k, map_at_k):
        assert metric(miss, relevant, 2) == 0.0


def test_ranks_beyond_k_and_duplicates_are_ignored() -> None:
    listed = recs([("A", "p", 1), ("A", "x", 2), ("A", "x", 3), ("A", "y", 4)])
    relevant = truth([("A", "x"), ("A", "y"), ("A", "x")])
    assert precision_at_k(listed, relevant, 3) == pytest.approx(1 / 3)
    assert ndcg_at_k(listed, relevant, 3) == pytest.approx((1 / log2(3)) / (1 + 1 / log2(3)))


def test_no_relevant_users_gives_zero_not_nan() -> None:
    listed = recs([("A", "p", 1)])
    empty = truth([]).cast({"user_id": pl.String, "game_id": pl.String})
    assert ndcg_at_k(listed, empty, 10) == 0.0
    assert map_at_k(listed, empty, 10) == 0.0


def test_coverage_takes_a_catalogue_frame_and_respects_k() -> None:
    catalogue = pl.DataFrame({"game_id": ["x", "y", "z", "p"]})
    listed = recs([("A", "x", 1), ("A", "y", 2), ("B", "x", 1), ("B", "z", 2)])
    assert catalog_coverage_at_k(listed, catalogue, 2) == pytest.approx(3 / 4)
    assert catalog_coverage_at_k(listed, catalogue, 1) == pytest.approx(1 / 4)
    assert catalog_coverage_at_k(listed, 0, 1) == 0.0


def test_integer_ids_work_too() -> None:
    listed = pl.DataFrame({"user_id": [1, 1], "game_id": [7, 8], "rank": [1, 2]})
    relevant = pl.DataFrame({"user_id": [1], "game_id": [8]})
    assert recall_at_k(listed, relevant, 2) == 1.0


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError):
        ndcg_at_k(MIXED_RECS, MIXED_TRUTH, 0)
