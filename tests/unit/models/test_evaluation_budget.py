"""Evaluation's shortcuts at real-site size: they engage only above the thresholds, cut
what they say they cut, and say so in the candidates' notes; below, nothing changes."""

from __future__ import annotations

from datetime import datetime, timezone

import polars as pl
import pytest

from models.budget import (
    LARGE_INTERACTIONS,
    LARGE_USERS,
    LEFT_OUT,
    MAX_SETTINGS,
    EvaluationBudget,
    sample_test_users,
)
from models.candidates import default_candidates
from models.evaluate import evaluate
from models.tuning import settings

FEW = ["popularity", "bm25", "ease"]


def test_shortcuts_engage_only_above_movielens_size() -> None:
    assert not EvaluationBudget.for_data(6_040, 1_000_209).engaged  # MovieLens-1M
    assert not EvaluationBudget.for_data(LARGE_USERS, LARGE_INTERACTIONS).engaged
    by_users = EvaluationBudget.for_data(LARGE_USERS + 1, 10_000)
    by_rows = EvaluationBudget.for_data(100, LARGE_INTERACTIONS + 1)
    assert by_users.engaged and by_rows.engaged
    assert by_users.max_settings == MAX_SETTINGS and "12,001 members" in by_users.reason
    assert by_users.left_out == LEFT_OUT == ("bpr",) and EvaluationBudget.for_data(6_040, 1_000_209).left_out == ()


def test_a_large_night_leaves_bpr_out_and_says_so(small_split: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    """The night's default candidates lose BPR on large data (noted on every other one); a
    candidate named on the command line is still evaluated."""
    train, test = small_split
    budget = EvaluationBudget(max_settings=1, left_out=LEFT_OUT, reason="forced")
    report = evaluate(train, test, budget=budget)
    assert set(report.results) == set(default_candidates()) - {"bpr"}
    for result in report.results.values():
        assert "left out on large data: bpr" in (result.notes or "")
    named = evaluate(train, test, models=["popularity", "bpr"], budget=budget)
    assert set(named.results) == {"popularity", "bpr"}
    assert "left out" not in (named.results["bpr"].notes or "")


def test_a_limit_cuts_sampled_grids_and_leaves_small_ones_whole() -> None:
    candidates = default_candidates()
    als, ease = candidates["als"], candidates["ease"]
    cut = settings(als, 0, limit=MAX_SETTINGS)
    assert len(cut) == MAX_SETTINGS < len(settings(als, 0))
    assert cut[0] == settings(als, 0)[0]  # the defaults are still tried first
    assert settings(ease, 0, limit=MAX_SETTINGS) == settings(ease, 0)


def test_test_users_are_sampled_by_seed_and_said(small_split: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    _, test = small_split
    n_users = test.get_column("user_id").n_unique()
    same, note = sample_test_users(test, n_users, seed=0)
    assert same is test and note is None
    first, note = sample_test_users(test, 50, seed=0)
    again, _ = sample_test_users(test.reverse(), 50, seed=0)
    assert first.get_column("user_id").n_unique() == 50
    assert set(first.get_column("user_id")) == set(again.get_column("user_id"))
    assert note == f"TEST scored on a seeded sample of 50 of {n_users:,} test users"
    kept = first.join(test, on=["user_id", "game_id"], how="semi")
    assert kept.height == first.height  # whole users: every row of a chosen user stays


def test_small_data_runs_the_full_protocol(small_split: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    train, test = small_split
    report = evaluate(train, test, models=FEW)
    forced_off = evaluate(train, test, models=FEW, budget=EvaluationBudget())
    assert report.champion == forced_off.champion
    for name, result in report.results.items():  # fit_seconds aside, the same report
        assert result.metrics == forced_off.results[name].metrics
        assert result.params == forced_off.results[name].params
    assert all(result.notes is None for result in report.results.values())
    assert len(report.results["bm25"].tuning.trials) == len(settings(default_candidates()["bm25"], 0))


def test_engaged_shortcuts_are_noted_on_every_candidate(small_split: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    train, test = small_split
    budget = EvaluationBudget(max_settings=3, weighting_max_items=60, max_test_users=40, reason="forced")
    report = evaluate(train, test, models=FEW, budget=budget)
    assert report.n_test_users == test.get_column("user_id").n_unique()
    bm25 = report.results["bm25"]
    assert len(bm25.tuning.trials) == 3 and "bm25 tuned over 3 of" in (bm25.notes or "")
    assert "ease capped at the 60 most collected games" in report.weighting.reason
    for result in report.results.values():
        assert "weighting chosen with EASE on the 60 most collected games" in (result.notes or "")
        assert "TEST scored on a seeded sample of 40 of" in (result.notes or "")
        assert result.topk.get_column("user_id").n_unique() == 40
    runs = report.model_runs("r", datetime(2026, 11, 23, tzinfo=timezone.utc))
    assert runs.get_column("notes").str.contains("seeded sample of 40").all()


def test_intra_list_diversity_equals_the_per_list_gram_reference() -> None:
    import numpy as np
    import scipy.sparse as sp

    from models.beyond import intra_list_diversity

    rng = np.random.default_rng(0)
    ids = pl.Series("game_id", [f"g{i}" for i in range(200)])
    vectors = sp.random(200, 40, density=0.1, format="csr", random_state=1)
    vectors = sp.csr_matrix(vectors.multiply(sp.csr_matrix((np.arange(200) != 5).astype(float)[:, None])))
    games = rng.integers(0, 230, 60 * 6)  # some unknown games (no row) and a zero row (g5)
    lists = pl.DataFrame(
        {"user_id": np.repeat([f"u{u}" for u in range(60)], 6), "rank": np.tile(np.arange(1, 7), 60),
         "game_id": [f"g{g}" for g in games]}
    ).filter(~((pl.col("user_id") == "u0") & (pl.col("rank") > 1)))  # a one-item list counts for nothing

    unit = vectors.toarray()
    norms = np.linalg.norm(unit, axis=1)
    unit = unit / np.where(norms > 0, norms, 1.0)[:, None]
    values = []
    for _, group in lists.unique(["user_id", "game_id"]).group_by("user_id"):  # a list counts a game once
        if group.height < 2:
            continue
        rows = [int(g[1:]) for g in group.get_column("game_id") if int(g[1:]) < 200]
        gram = unit[rows] @ unit[rows].T
        values.append(1.0 - (gram.sum() - np.trace(gram)) / 2.0 / (group.height * (group.height - 1) / 2.0))
    assert intra_list_diversity(lists, ids, vectors, k=10) == pytest.approx(float(np.mean(values)), rel=1e-12)
