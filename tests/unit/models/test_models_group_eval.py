"""The offline comparison of group aggregations: reproducible, well-formed, winner by NDCG."""

import polars as pl
import pytest

from models.discovery.group import AGGREGATIONS, aggregate
from models.discovery.group_eval import evaluate_group_aggregations, synthetic_groups
from samplesite.generator import generate_site
from samplesite.truth import truth_frames
from warehouse.filter_columns import with_filter_columns


@pytest.fixture(scope="module")
def frames() -> dict[str, pl.DataFrame]:
    return truth_frames(generate_site(n_games=200, n_users=400, seed=5))


def test_aggregations_by_hand() -> None:
    import numpy as np

    scores = np.array([[1.0, 0.2], [0.0, 0.4]], dtype=np.float32)
    assert aggregate(scores, "average").tolist() == pytest.approx([0.5, 0.3])
    assert aggregate(scores, "least_misery").tolist() == pytest.approx([0.0, 0.2])
    assert aggregate(scores, "blend").tolist() == pytest.approx([0.25, 0.25])
    with pytest.raises(ValueError, match="unknown aggregation"):
        aggregate(scores, "loudest")


def test_synthetic_groups_share_a_later_game() -> None:
    test = pl.DataFrame({"user_id": ["a", "b", "c", "d", "a"], "game_id": ["x", "x", "y", "z", "w"]})
    groups = synthetic_groups(test, size=3, n_groups=20, seed=1)
    assert len(groups) == 20
    for group in groups:
        assert len(set(group)) == 3 and {"a", "b"} <= set(group)  # x is the only game two members share
    assert synthetic_groups(test, size=3, n_groups=20, seed=1) == groups


def test_evaluation_is_reproducible_and_names_the_best(frames: dict[str, pl.DataFrame]) -> None:
    games = with_filter_columns(frames["games"])
    first = evaluate_group_aggregations(frames["collections"], games, size=3, n_groups=60, seed=2)
    again = evaluate_group_aggregations(frames["collections"], games, size=3, n_groups=60, seed=2)
    assert first == again
    assert first["n_groups"] > 20 and set(first["aggregations"]) == set(AGGREGATIONS)
    for result in first["aggregations"].values():
        assert 0.0 < result["ndcg"] <= 1.0 and 0.0 < result["recall"] <= 1.0
    best = max(result["ndcg"] for result in first["aggregations"].values())
    assert first["aggregations"][first["winner"]]["ndcg"] == best
