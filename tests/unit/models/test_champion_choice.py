"""The champion: the best on the selection split, unless last night's is within one standard
error of it (hand-computed paired differences)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from models.champion import choose_champion
from models.evaluate import evaluate

FEW = ["popularity", "bm25", "ease"]


def test_the_best_wins_without_an_incumbent_and_ties_go_to_the_earlier() -> None:
    per_user = {"ease": np.array([0.5, 0.0, 1.0]), "bm25": np.array([0.5, 0.5, 0.5])}
    choice = choose_champion(per_user)
    assert (choice.champion, choice.best, choice.note) == ("ease", "ease", None)  # both 0.5: the first
    assert choose_champion(per_user, incumbent="unknown").champion == "ease"


def test_the_incumbent_stays_within_one_standard_error() -> None:
    # best - incumbent per user: [0.3, -0.1, 0.1, -0.1] → mean 0.05, sd(ddof=1) 0.19149, SE 0.09574
    per_user = {"ensemble": np.array([0.6, 0.2, 0.4, 0.1]), "bm25": np.array([0.3, 0.3, 0.3, 0.2])}
    kept = choose_champion(per_user, incumbent="bm25")
    assert (kept.champion, kept.best) == ("bm25", "ensemble")
    assert "bm25 stays champion" in kept.note and "0.0500 higher" in kept.note and "(0.0957)" in kept.note
    # the same gain with less noise (every user +0.05, SE 0) is beyond it: the challenger takes over
    steady = {"ensemble": np.array([0.35, 0.35, 0.35, 0.25]), "bm25": np.array([0.3, 0.3, 0.3, 0.2])}
    assert choose_champion(steady, incumbent="bm25").champion == "ensemble"
    # a wider rule keeps more: two standard errors of a gain of 1.5 SE
    assert choose_champion(per_user, incumbent="bm25", standard_errors=0.5).champion == "ensemble"


def test_the_incumbent_that_is_best_stays_without_a_note() -> None:
    per_user = {"ease": np.array([0.9, 0.8]), "bm25": np.array([0.1, 0.2])}
    assert choose_champion(per_user, incumbent="ease") == choose_champion(per_user)
    with pytest.raises(ValueError):
        choose_champion({})


def test_evaluate_keeps_last_nights_champion_unless_clearly_beaten(
    small_split: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    """On this seeded split BM25 leads EASE by 0.0065 with a standard error of 0.0070 and
    popularity by far: EASE as last night's champion stays (and says so), popularity does not."""
    train, test = small_split
    fresh = evaluate(train, test, models=FEW)
    assert fresh.champion == "bm25"
    kept = evaluate(train, test, models=FEW, incumbent="ease", reuse=fresh)  # fresh's tuning: the choice alone differs
    assert kept.champion == "ease"
    assert "unless last night's champion (ease) is within one standard error of it" in kept.selection
    assert "last night" not in fresh.selection
    assert "ease stays champion (last night's): bm25 was 0.0065 higher" in (kept.results["ease"].notes or "")
    beaten = evaluate(train, test, models=FEW, incumbent="popularity", reuse=fresh)
    assert beaten.champion == "bm25" and beaten.results["bm25"].notes is None
    # the scores do not depend on the incumbent, only the name does
    assert {n: r.selection_ndcg for n, r in kept.results.items()} == {n: r.selection_ndcg for n, r in fresh.results.items()}
