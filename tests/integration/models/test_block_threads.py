"""Row blocks on two threads (``models.blocks.map_blocks``) give the same arrays as in turn.

The content neighbours and the similar games are computed in row blocks that the night
runs on two threads, and the champion's fit runs beside the neighbours (``fit_state``).
With small blocks (many of them, so the threads interleave) every similar-game list and
every neighbour equals the one-thread result bit for bit, for an item-similarity
champion (EASE) and one without (BPR falls back to interaction cosine, made once); and
every model's ``recommend`` (its batches on two threads) gives the same lists.
"""

from __future__ import annotations

import numpy as np
import pytest
from polars.testing import assert_frame_equal
from threadpoolctl import threadpool_info

import models.base as base
import models.content as content_module
import models.rp3beta as rp3beta_module
import models.threads as blocks
from models.discovery.run import ChampionFit, catalog_frame, fit_state
from models.discovery.similar import similar_games
from models.interactions import InteractionMatrix, normalise_interactions
from models.rp3beta import RP3beta
from models.weighting import WEIGHTINGS
from samplesite.generator import generate_site
from samplesite.truth import truth_frames
from warehouse.filter_columns import with_filter_columns


@pytest.fixture(scope="module")
def frames():
    return truth_frames(generate_site(n_games=500, n_users=700, seed=7))


def _night(frames, champion: str, threads: int, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(blocks, "BLOCK_THREADS", threads)
    monkeypatch.setattr(content_module, "CHUNK_CELLS", 500 * 23)  # 22 blocks of 23 rows
    rows = normalise_interactions(frames["collections"], source="test")
    state = fit_state(rows, catalog_frame(with_filter_columns(frames["games"])), None, ChampionFit(champion=champion))
    return state, similar_games(state, 10)


@pytest.mark.parametrize("champion", ["ease", "bpr"])
def test_two_threads_give_the_same_neighbours_and_similar_games(frames, champion, monkeypatch) -> None:
    one_state, one = _night(frames, champion, 1, monkeypatch)
    two_state, two = _night(frames, champion, 2, monkeypatch)
    assert one.height > 0
    assert_frame_equal(one, two)
    graph_one, graph_two = one_state.graph, two_state.graph
    assert graph_one.nnz > 0 and (graph_one != graph_two).nnz == 0
    assert np.array_equal(graph_one.indices, graph_two.indices) and np.array_equal(graph_one.data, graph_two.data)


def test_blas_is_left_as_it_was(frames, monkeypatch) -> None:
    before = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    _night(frames, "ease", 2, monkeypatch)
    assert [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"] == before


@pytest.mark.parametrize("champion", ["ease", "als", "ensemble"])
def test_recommend_on_two_threads_gives_the_same_lists(frames, champion, monkeypatch) -> None:
    """``Recommender.recommend``'s batches (here 60 users each) on one thread and on two."""
    rows = normalise_interactions(frames["collections"], source="test")
    state = fit_state(rows, catalog_frame(with_filter_columns(frames["games"])), None, ChampionFit(champion=champion))
    model, matrix = state.model, state.interactions.matrix
    monkeypatch.setattr(base, "SCORE_BUDGET", 60 * model.n_items)
    users = np.arange(matrix.shape[0])
    lists = {}
    for threads in (1, 2):
        monkeypatch.setattr(blocks, "BLOCK_THREADS", threads)
        with blocks.single_threaded_blas():  # as the night scores: ALS's product then rounds the same way
            lists[threads] = model.recommend(users, 10, exclude=matrix)
    assert (lists[1][0] >= 0).any() and users.size > 5 * 60
    assert np.array_equal(lists[1][0], lists[2][0]) and np.array_equal(lists[1][1], lists[2][1])


def test_rp3beta_builds_the_same_walks_on_two_threads(frames, monkeypatch) -> None:
    """RP3beta's ``W`` is built in row blocks (here 17 rows each) on one thread and on two."""
    matrix = InteractionMatrix.from_frame(normalise_interactions(frames["collections"], source="test"),
                                          WEIGHTINGS["graded"]).matrix
    monkeypatch.setattr(rp3beta_module, "ROW_BLOCK", 17 * matrix.shape[1])
    walks = {}
    for threads in (1, 2):
        monkeypatch.setattr(blocks, "BLOCK_THREADS", threads)
        walks[threads] = RP3beta(top_k=50).fit(matrix).weights_
    assert walks[1].nnz > 0 and matrix.shape[1] > 5 * 17
    assert np.array_equal(walks[1].indptr, walks[2].indptr) and np.array_equal(walks[1].indices, walks[2].indices)
    assert np.array_equal(walks[1].data, walks[2].data)
