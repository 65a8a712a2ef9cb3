"""The ensemble: per-user z-scores, weighted means and greedy selection pinned on hand-computed numbers."""

import json
from datetime import datetime, timezone
from typing import Self

import numpy as np
import polars as pl
import pytest
import scipy.sparse as sp

from models.base import Recommender
from models.candidates import default_candidates
from models.ensemble import Ensemble, greedy_selection, row_statistics, zscore_rows
from models.evaluate import evaluate
from models.interactions import InteractionMatrix
from models.weighting import WEIGHTINGS
from tests.support.attribution_check import assert_attribution_matches_explain


class Fixed(Recommender):
    """A 'model' whose scores are a given matrix (rows = users)."""

    name = "fixed"

    def __init__(self, scores: np.ndarray) -> None:
        self.scores = np.asarray(scores, dtype=np.float32)

    def fit(self, matrix: sp.csr_matrix) -> Self:
        self.matrix_ = matrix
        return self

    def score(self, user_rows: np.ndarray) -> np.ndarray:
        return self.scores[user_rows]


def test_zscores_leave_own_games_and_unscorable_games_out_of_the_statistics() -> None:
    # Rankable 2, 4, 4, 4, 5, 5, 7, 9: mean 5, standard deviation 2. Column 8 is the
    # user's own game (100, left out of mean and spread), column 9 cannot be scored.
    scores = np.array([[2, 4, 4, 4, 5, 5, 7, 9, 100, -np.inf]], dtype=np.float32)
    own = sp.csr_matrix(np.array([[0, 0, 0, 0, 0, 0, 0, 0, 1, 0]]))
    mean, spread = row_statistics(scores, own)
    assert mean.tolist() == [5.0] and spread.tolist() == [2.0]
    z = zscore_rows(scores, own)
    assert z[0].tolist() == [-1.5, -0.5, -0.5, -0.5, 0.0, 0.0, 1.0, 2.0, 47.5, -1.5]


def test_a_constant_or_empty_row_says_nothing() -> None:
    scores = np.array([[3, 3, 3], [-np.inf, -np.inf, -np.inf]], dtype=np.float32)
    assert zscore_rows(scores).tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]


def test_ensemble_scores_are_the_weighted_mean_of_member_zscores() -> None:
    # A: 2, 4, 4, 4, 5, 5, 7, 9 (mean 5, sd 2) → z -1.5, -0.5, -0.5, -0.5, 0, 0, 1, 2
    # B: 1, 1, 1, 1, 3, 3, 3, 3 (mean 2, sd 1) → z -1, -1, -1, -1, 1, 1, 1, 1
    # weights 3 : 1 → (3 z_A + z_B) / 4.
    a = Fixed(np.array([[2, 4, 4, 4, 5, 5, 7, 9]]))
    b = Fixed(np.array([[1, 1, 1, 1, 3, 3, 3, 3]]))
    matrix = sp.csr_matrix((1, 8), dtype=np.float32)
    ensemble = Ensemble(shares={"a": 3, "b": 1}).use_fitted({"a": a, "b": b}, matrix)
    expected = [-1.375, -0.625, -0.625, -0.625, 0.25, 0.25, 1.0, 1.75]
    assert ensemble.score(np.array([0])).tolist() == [expected]
    ids, _ = ensemble.recommend([0], n=3)
    assert ids.tolist() == [[7, 6, 4]]  # 4 and 5 tie: the lower column first


def test_greedy_selection_adds_the_member_that_fixes_a_miss() -> None:
    # k = 1. User 0 wants game 2, user 1 game 3. A hits user 0 only, B user 1 only: a
    # tie (0.5 each), so A (first) starts, three times. 3·A + B: user 0 → game 2 (3 vs
    # 1), user 1 → game 3 (2.7 + 1 = 3.7 vs 3.0): both hit, NDCG 1.0, nothing beats it.
    z_a = np.array([[-1, 0, 1, 0], [1.0, -1, -1, 0.9]], dtype=np.float32)
    z_b = np.array([[-1, 1, 0, 0], [0.0, -1, -1, 1.0]], dtype=np.float32)
    own = sp.csr_matrix((2, 4), dtype=np.float32)
    relevant = pl.DataFrame({"user_id": [0, 1], "game_id": [2, 3]})
    counts, ndcg, path = greedy_selection({"a": z_a, "b": z_b}, own, relevant, np.array([0, 1]), k=1)
    assert counts == {"a": 3, "b": 1}
    assert ndcg == 1.0
    assert path == [("a", 0.5), ("b", 1.0)]


def test_greedy_selection_keeps_the_best_single_when_nothing_helps() -> None:
    z_a = np.array([[0, 0, 1, 0]], dtype=np.float32)
    z_b = np.array([[5, 0, -5, 0]], dtype=np.float32)
    relevant = pl.DataFrame({"user_id": [0], "game_id": [2]})
    counts, ndcg, _ = greedy_selection({"b": z_b, "a": z_a}, sp.csr_matrix((1, 4)), relevant, np.array([0]), k=1)
    assert counts == {"a": 3} and ndcg == 1.0


@pytest.fixture(scope="module")
def matrix(small_split: tuple[pl.DataFrame, pl.DataFrame]) -> InteractionMatrix:
    return InteractionMatrix.from_frame(small_split[0], WEIGHTINGS["graded"])


def test_an_ensemble_from_params_fits_its_members_like_the_candidates(matrix: InteractionMatrix) -> None:
    candidates = default_candidates()
    params = {"members": {"ease": {"l2": 100.0}}, "shares": {"ease": 2, "bm25": 1}}
    fitted = candidates["ensemble"].build(params, 0).fit(matrix.matrix)
    members = {
        "ease": candidates["ease"].build({"l2": 100.0}, 0).fit(matrix.matrix),
        "bm25": candidates["bm25"].build({}, 0).fit(matrix.matrix),
    }
    reused = Ensemble(**params).use_fitted(members, matrix.matrix)
    rows = np.arange(20)
    assert np.array_equal(fitted.score(rows), reused.score(rows))
    own = matrix.matrix[rows]
    by_hand = (2 * zscore_rows(members["ease"].score(rows), own) + zscore_rows(members["bm25"].score(rows), own)) / 3
    assert np.allclose(fitted.score(rows), by_hand, atol=1e-6)
    similar, _ = fitted.similar_items(0, n=5)
    assert 0 not in similar.tolist() and (similar >= 0).all()


def test_only_the_candidates_ensemble_builds_members(matrix: InteractionMatrix) -> None:
    with pytest.raises(NotImplementedError):
        Ensemble(shares={"ease": 1}).fit(matrix.matrix)
    with pytest.raises(ValueError, match="single candidates"):
        default_candidates()["ensemble"].build({"shares": {"ensemble": 1}}, 0).fit(matrix.matrix)


def test_explain_scales_each_members_contributions_by_its_spread(matrix: InteractionMatrix) -> None:
    ease = default_candidates()["ease"].build({}, 0).fit(matrix.matrix)
    ensemble = Ensemble(shares={"ease": 1}).use_fitted({"ease": ease}, matrix.matrix)
    user = int(np.flatnonzero(np.diff(matrix.matrix.indptr) >= 5)[0])
    item = int(ensemble.recommend([user], n=1, exclude=matrix.matrix[[user]])[0][0, 0])
    _, spread = row_statistics(ease.score(np.array([user])), matrix.matrix[[user]])
    expected = [(game, value / spread[0]) for game, value in ease.explain(user, item, n=3)]
    got = ensemble.explain(user, item, n=3)
    assert [game for game, _ in got] == [game for game, _ in expected]
    assert [value for _, value in got] == pytest.approx([value for _, value in expected], rel=1e-5)


def test_evaluate_tunes_selects_and_scores_the_ensemble_like_any_candidate(
    small_split: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    train, test = small_split
    report = evaluate(train, test, k=10, seed=0, models=["popularity", "bm25", "ease", "ensemble"])
    ensemble = report.results["ensemble"]
    assert set(ensemble.params) == {"members", "shares"}
    assert set(ensemble.params["shares"]) <= {"popularity", "bm25", "ease"}
    for member, params in ensemble.params["members"].items():
        assert params == report.results[member].params
    assert ensemble.fit_seconds >= sum(report.results[m].fit_seconds for m in ensemble.params["shares"])
    assert ensemble.topk.group_by("user_id").len().get_column("len").max() == 10
    runs = report.model_runs("r1", datetime(2026, 1, 1, tzinfo=timezone.utc))
    row = runs.filter(pl.col("model") == "ensemble").row(0, named=True)
    assert json.loads(row["params"])["shares"] == ensemble.params["shares"]  # beside the confidence weights


def test_an_ensemble_needs_two_other_candidates(small_split: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    train, test = small_split
    with pytest.raises(ValueError, match="at least two"):
        evaluate(train, test, models=["ease", "ensemble"])


def test_discovery_attribution_matches_the_ensembles_explain(matrix: InteractionMatrix) -> None:
    params = {"members": {"als": {"factors": 16, "iterations": 5}}, "shares": {"ease": 2, "als": 1, "popularity": 1}}
    ensemble = default_candidates()["ensemble"].build(params, 0).fit(matrix.matrix)
    rng = np.random.default_rng(0)
    users = rng.choice(np.flatnonzero(np.diff(matrix.matrix.indptr) >= 3), size=3, replace=False)
    assert_attribution_matches_explain(ensemble, matrix.matrix, users, rng)


def test_tune_ensemble_samples_users_past_its_cell_budget_and_says_so(
    small_split: tuple[pl.DataFrame, pl.DataFrame], monkeypatch: pytest.MonkeyPatch
) -> None:
    import models.tuning as tuning
    from models.validation import ValidationSet

    split = ValidationSet.carve(small_split[0], WEIGHTINGS["graded"], seed=0)
    candidates = default_candidates()
    tuned = {name: tuning.tune(candidates[name], split, seed=0) for name in ("popularity", "ease", "bpr")}
    whole = tuning.tune_ensemble(tuned, split, seed=0, candidates=candidates)
    assert whole.note is None
    assert set(whole.params["shares"]) <= {"popularity", "ease"}  # BPR is no member
    best_single = max(("popularity", "ease"), key=lambda name: tuned[name].ndcg)
    assert whole.trials[0].params["shares"] == {best_single: 3}  # the greedy path starts there
    assert whole.trials[-1].ndcg == whole.ndcg
    monkeypatch.setattr(tuning, "ENSEMBLE_CELLS", 40 * split.matrix.shape[1] * 2)
    sampled = tuning.tune_ensemble(tuned, split, seed=0, candidates=candidates)
    again = tuning.tune_ensemble(tuned, split, seed=0, candidates=candidates)
    assert sampled.note == f"ensemble weights chosen on 40 of {split.rows.size:,} held-out users"
    assert (sampled.params, sampled.ndcg) == (again.params, again.ndcg)


def test_an_ensemble_refitted_on_the_same_rows_gives_the_same_lists(matrix: InteractionMatrix) -> None:
    params = {"members": {"als": {"factors": 16, "iterations": 5}}, "shares": {"edlae": 2, "als": 1, "rp3beta": 1}}
    rows = np.arange(50)
    first = default_candidates()["ensemble"].build(params, 0).fit(matrix.matrix).score(rows)
    second = default_candidates()["ensemble"].build(params, 0).fit(matrix.matrix).score(rows)
    assert np.array_equal(first, second)


def test_only_the_pool_best_singles_may_join() -> None:
    # k = 1, one user wanting game 1. Singles: a and b miss (0), c hits (1). With a pool
    # of 1 only c is eligible; a pool of 3 changes nothing here (c alone is already 1.0).
    z = {
        "a": np.array([[1.0, 0.0, 0.0]], dtype=np.float32),
        "b": np.array([[0.0, 0.0, 1.0]], dtype=np.float32),
        "c": np.array([[0.0, 1.0, 0.0]], dtype=np.float32),
    }
    relevant = pl.DataFrame({"user_id": [0], "game_id": [1]})
    for pool in (1, 3, None):
        counts, ndcg, _ = greedy_selection(z, sp.csr_matrix((1, 3)), relevant, np.array([0]), k=1, pool=pool)
        assert counts == {"c": 3} and ndcg == 1.0


def test_a_pool_of_two_leaves_the_third_best_out() -> None:
    # Two users, k = 1. Singles: a 0.5 (hits user 0), b 0.5 (hits user 1), c 0.0. Pool 2:
    # a, b; 3·a + b hits both (see the greedy test above). c never joins.
    z_a = np.array([[-1, 0, 1, 0], [1.0, -1, -1, 0.9]], dtype=np.float32)
    z_b = np.array([[-1, 1, 0, 0], [0.0, -1, -1, 1.0]], dtype=np.float32)
    z_c = np.array([[9, 0, 0, 0], [9.0, 0, 0, 0]], dtype=np.float32)
    relevant = pl.DataFrame({"user_id": [0, 1], "game_id": [2, 3]})
    counts, ndcg, _ = greedy_selection(
        {"c": z_c, "a": z_a, "b": z_b}, sp.csr_matrix((2, 4)), relevant, np.array([0, 1]), k=1, pool=2
    )
    assert counts == {"a": 3, "b": 1} and ndcg == 1.0
