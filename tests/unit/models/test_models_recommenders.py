"""The shared test every model must pass, on a tiny matrix with a known answer.

Two disjoint taste blocks: users 0-5 only touch games 0-4 (block A), users 6-11 only
games 5-9 (block B). Each user has 4 of the 5 games of their block; the fifth is the
known answer for a personalised model.
"""

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from models.base import Recommender, top_n
from models.candidates import CandidateEnsemble
from models.ease import EASE, EDLAE
from models.factorization import ALS, BPR
from models.gfcf import GFCF
from models.interactions import InteractionMatrix
from models.knn import ItemKNNBM25, ItemKNNCosine
from models.persist import load_model, save_model
from models.popularity import Popularity
from models.rp3beta import RP3beta


def two_blocks() -> sp.csr_matrix:
    dense = np.zeros((12, 10), dtype=np.float32)
    for user in range(12):
        block = 0 if user < 6 else 5
        for game in range(block, block + 5):
            if game - block != user % 5:
                dense[user, game] = 1.0 + 0.5 * ((user + game) % 3)
    return sp.csr_matrix(dense)


def missing_game(user: int) -> int:
    return (0 if user < 6 else 5) + user % 5


def block_of(game: int) -> int:
    return 0 if game < 5 else 1


PERSONALISED = {
    "cosine": lambda: ItemKNNCosine(K=10),
    "bm25": lambda: ItemKNNBM25(K=10),
    "als": lambda: ALS(factors=4, regularization=1.0, alpha=4.0, iterations=20, random_state=0),
    "bpr": lambda: BPR(factors=8, learning_rate=0.05, iterations=200, random_state=0),
    "ease": lambda: EASE(l2=1.0),
    "edlae": lambda: EDLAE(l2=1.0, dropout=0.25),
    "rp3beta": lambda: RP3beta(alpha=1.0, beta=0.0, top_k=10),
    "gfcf": lambda: GFCF(factors=2, alpha=0.3),
    "ensemble": lambda: CandidateEnsemble(
        members={"ease": {"l2": 1.0}, "cosine": {"K": 10}}, shares={"ease": 2, "cosine": 1}
    ),
}
ALL = {**PERSONALISED, "popularity": lambda: Popularity()}
EXPLAINS = {"cosine", "bm25", "als", "ease", "edlae", "rp3beta", "gfcf", "ensemble"}


@pytest.fixture(scope="module")
def matrix() -> sp.csr_matrix:
    return two_blocks()


@pytest.fixture(scope="module", params=sorted(ALL))
def fitted(request: pytest.FixtureRequest, matrix: sp.csr_matrix) -> tuple[str, Recommender]:
    return request.param, ALL[request.param]().fit(matrix)


def test_shapes_exclusion_and_padding(fitted: tuple[str, Recommender], matrix: sp.csr_matrix) -> None:
    _, model = fitted
    users = np.arange(12)
    ids, scores = model.recommend(users, 7, exclude=matrix)
    assert ids.shape == scores.shape == (12, 7)
    for user in users:
        listed = ids[user][ids[user] >= 0]
        assert not set(listed) & set(matrix[user].indices), "recommended an excluded game"
        assert len(listed) == len(set(listed))
        assert np.all(np.diff(scores[user][ids[user] >= 0]) <= 0), "not best first"
    # 10 games, 4 excluded: at most 6 real entries, the rest padded
    assert np.all(ids[:, 6] == -1) and np.all(np.isneginf(scores[:, 6]))


def test_batched_equals_one_by_one(fitted: tuple[str, Recommender], matrix: sp.csr_matrix) -> None:
    _, model = fitted
    together, _ = model.recommend(np.arange(12), 3, exclude=matrix)
    for user in range(12):
        alone, _ = model.recommend([user], 3, exclude=matrix[[user]])
        assert alone[0].tolist() == together[user].tolist()


@pytest.mark.parametrize("name", sorted(PERSONALISED))
def test_known_answer_own_block_first(name: str, matrix: sp.csr_matrix) -> None:
    model = PERSONALISED[name]().fit(matrix)
    ids, _ = model.recommend(np.arange(12), 1, exclude=matrix)
    assert ids[:, 0].tolist() == [missing_game(user) for user in range(12)]


@pytest.mark.parametrize("name", sorted(PERSONALISED))
def test_similar_items_stay_in_block(name: str, matrix: sp.csr_matrix) -> None:
    model = PERSONALISED[name]().fit(matrix)
    ids, _ = model.similar_items(np.array([0, 7]), 3)
    assert 0 not in ids[0] and 7 not in ids[1]
    assert {block_of(game) for game in ids[0]} == {0}
    assert {block_of(game) for game in ids[1]} == {1}
    single, _ = model.similar_items(2, 2)
    assert single.shape == (2,)


def test_explanations_name_the_users_own_games(fitted: tuple[str, Recommender], matrix: sp.csr_matrix) -> None:
    name, model = fitted
    reasons = model.explain(0, missing_game(0), n=2)
    if name not in EXPLAINS:
        assert reasons == []
        return
    assert 1 <= len(reasons) <= 2
    assert {game for game, _ in reasons} <= set(matrix[0].indices)
    assert all(value > 0 for _, value in reasons)


def test_popularity_known_answer() -> None:
    counts = sp.csr_matrix(np.array([[1, 1, 0, 0], [1, 0, 1, 0], [1, 1, 0, 0]], dtype=np.float32))
    model = Popularity().fit(counts)
    ids, scores = model.recommend([0, 1], 2)
    assert ids.tolist() == [[0, 1], [0, 1]]
    ids, _ = model.recommend([1], 2, exclude=counts[[1]])
    assert ids.tolist() == [[1, 3]]  # game 3 has no member, but it is all that is left


def test_top_n_breaks_ties_towards_lower_columns() -> None:
    scores = np.array([[1.0, 3.0, 3.0, 2.0, 3.0, -np.inf]], dtype=np.float32)
    ids, values = top_n(scores, 2)
    assert ids.tolist() == [[1, 2]] and values.tolist() == [[3.0, 3.0]]


def test_ease_keeps_the_most_popular_games_beyond_max_items(matrix: sp.csr_matrix) -> None:
    skewed = matrix.toarray()
    skewed[:, 9] = 0  # game 9 loses all its members
    model = EASE(l2=1.0, max_items=9).fit(sp.csr_matrix(skewed))
    assert 9 not in model.items_
    ids, _ = model.recommend(np.arange(12), 9)
    assert 9 not in ids


def test_ease_matches_the_closed_form(matrix: sp.csr_matrix) -> None:
    gram = (matrix.T @ matrix).toarray().astype(np.float64)
    precision = np.linalg.inv(gram + 3.0 * np.eye(10))
    expected = np.eye(10) - precision / np.diag(precision)[None, :]
    np.fill_diagonal(expected, 0.0)
    assert np.allclose(EASE(l2=3.0).fit(matrix).weights_, expected, atol=1e-4)


def test_edlae_penalises_each_game_by_its_own_gram_diagonal(matrix: sp.csr_matrix) -> None:
    # Λ = λI + p/(1−p)·diag(G); p = 0.5 doubles each game's diagonal, p = 0 is plain EASE.
    gram = (matrix.T @ matrix).toarray().astype(np.float64)
    precision = np.linalg.inv(gram + 3.0 * np.eye(10) + np.diag(np.diag(gram)))
    expected = np.eye(10) - precision / np.diag(precision)[None, :]
    np.fill_diagonal(expected, 0.0)
    assert np.allclose(EDLAE(l2=3.0, dropout=0.5).fit(matrix).weights_, expected, atol=1e-4)
    assert np.array_equal(EDLAE(l2=3.0, dropout=0.0).fit(matrix).weights_, EASE(l2=3.0).fit(matrix).weights_)
    with pytest.raises(ValueError, match="dropout"):
        EDLAE(dropout=1.0).fit(matrix)


def test_fits_are_reproducible(matrix: sp.csr_matrix) -> None:
    for name in ("als", "bpr"):
        first = PERSONALISED[name]().fit(matrix).score(np.arange(12))
        second = PERSONALISED[name]().fit(matrix).score(np.arange(12))
        assert np.array_equal(first, second), name


def test_save_and_load_with_mappings(tmp_path: Path, matrix: sp.csr_matrix) -> None:
    import polars as pl

    mapped = InteractionMatrix(
        matrix=matrix,
        user_ids=pl.Series("user_id", [f"u{i}" for i in range(12)]),
        game_ids=pl.Series("game_id", [f"g{i}" for i in range(10)]),
    )
    for name in sorted(ALL):
        model = ALL[name]().fit(matrix)
        directory = save_model(tmp_path / name, model, mapped)
        loaded, loaded_matrix, meta = load_model(directory)
        assert meta["model"] == model.name
        assert loaded_matrix.game_ids.to_list() == mapped.game_ids.to_list()
        before, _ = model.recommend(np.arange(12), 3, exclude=matrix)
        after, _ = loaded.recommend(np.arange(12), 3, exclude=matrix)
        assert np.array_equal(before, after), name
