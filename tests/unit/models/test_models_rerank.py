"""Re-ranking: MMR picks a dissimilar game over a near-duplicate; the long-tail boost lowers popularity."""

import numpy as np
import pytest
import scipy.sparse as sp

from models.discovery.rerank import mmr_order
from warehouse.filter_columns import with_filter_columns


def test_mmr_prefers_a_dissimilar_game() -> None:
    # games 0 and 1 are near twins (0.9), game 2 is unlike both
    graph = sp.csr_matrix(np.array([[0, 0.9, 0.0], [0.9, 0, 0.0], [0.0, 0.0, 0]], dtype=np.float32))
    ids = np.array([[0, 1, 2], [2, 1, -1]])
    values = np.array([[1.0, 0.95, 0.8], [1.0, 0.9, -np.inf]], dtype=np.float32)
    same_ids, _ = mmr_order(ids, values, graph, diversity=0.0)
    assert same_ids.tolist() == ids.tolist()  # no diversity: untouched
    new_ids, new_values = mmr_order(ids, values, graph, diversity=0.5, k=2)
    assert new_ids[0].tolist() == [0, 2, 1]  # 1 is 0's twin: 0.95 − 0.45 < 0.8
    # MMR gains in its slots, then the blended score capped by the one above: never rising
    assert new_values[0].tolist() == pytest.approx([1.0, 0.8, 0.8])
    assert new_ids[1].tolist() == [2, 1, -1]  # padding stays at the end


def test_tradeoff_curve_moves_the_way_each_knob_says() -> None:
    from benchmarks.diversity_tradeoff import tradeoff_curve
    from samplesite.generator import generate_site
    from samplesite.truth import truth_frames

    frames = truth_frames(generate_site(n_games=200, n_users=400, seed=5))
    games = with_filter_columns(frames["games"])
    curve = tradeoff_curve(frames["collections"], games, settings=[(0.0, 0.0), (0.5, 0.0), (0.0, 0.5)])
    champion, plain, tail, diverse = curve
    assert champion["tail"] is None and plain["tail"] == 0.0
    assert tail["long_tail_share"] > plain["long_tail_share"]
    assert tail["mean_popularity_rank"] > plain["mean_popularity_rank"]
    assert diverse["intra_list_diversity"] > plain["intra_list_diversity"]
    for point in curve:
        assert 0.0 < point["ndcg"] < 1.0
