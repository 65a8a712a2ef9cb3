"""Scoring discovery and the watch-list shelf for what each is for (models.discovery.watch_eval)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from models.threads import single_threaded_blas
from models.discovery.run import ChampionFit, catalog_frame, fit_state
from models.discovery.watch_eval import (
    before_candidates,
    evaluate_watch_split,
    nightly_lists,
    random_order_ndcg,
    watch_pairs,
)
from models.interactions import normalise_interactions
from samplesite.generator import generate_site
from samplesite.truth import truth_frames
from warehouse.filter_columns import with_filter_columns

FIT = ChampionFit(champion="ease", params={"l2": 30.0}, weighting="graded")


@pytest.fixture(scope="module")
def site() -> dict[str, pl.DataFrame]:
    frames = truth_frames(generate_site(n_games=200, n_users=400, seed=5))
    return {"games": with_filter_columns(frames["games"]), "collections": frames["collections"]}


def test_random_order_ndcg_by_hand() -> None:
    # 4 games, 1 relevant: each slot holds it with probability 1/4; the ideal list has it first.
    expected = (1 + 1 / math.log2(3) + 1 / math.log2(4) + 1 / math.log2(5)) / 4
    assert random_order_ndcg(4, 1, 10) == pytest.approx(expected)
    assert random_order_ndcg(5, 5, 10) == pytest.approx(1.0)  # every game relevant: any order is perfect
    assert random_order_ndcg(20, 2, 1) == pytest.approx(2 / 20)  # k = 1: the chance the first one is relevant
    assert random_order_ndcg(0, 0, 10) == random_order_ndcg(3, 0, 10) == 0.0


def test_before_is_the_old_rule_and_after_never_lists_the_watch_list(site: dict[str, pl.DataFrame]) -> None:
    rows = normalise_interactions(site["collections"], source="test")
    with single_threaded_blas():
        state = fit_state(rows, catalog_frame(site["games"]), None, FIT)
    users = rows.get_column("user_id").unique().sort().head(80).to_list()
    members = state.members(rows, users)
    allowed = before_candidates(state, rows)(members)
    listed = pl.DataFrame({"user_id": np.repeat(users, state.n_games),
                           "game_id": np.tile(state.game_ids.to_numpy(), len(users)),
                           "allowed": allowed.ravel()})
    mine = rows.filter(pl.col("user_id").is_in(users)).join(listed, on=["user_id", "game_id"])
    back = pl.col("watching") & ~pl.col("have") & ~pl.col("played") & ~pl.col("favorite")
    assert mine.filter(back).get_column("allowed").all() and mine.filter(back).height > 0
    assert not mine.filter(~back).get_column("allowed").any()  # had, played, favourites: never
    unmarked = listed.join(mine, on=["user_id", "game_id"], how="anti")
    assert unmarked.get_column("allowed").all()


def test_the_split_scores_each_list_and_is_reproducible(site: dict[str, pl.DataFrame]) -> None:
    first = evaluate_watch_split(site["collections"], site["games"], FIT)
    assert first == evaluate_watch_split(site["collections"], site["games"], FIT)
    before, after = first["discovery"]["before"], first["discovery"]["after"]
    assert before["watch_share"] > 0.05 and after["watch_share"] == 0.0
    assert 0.0 < before["ndcg"] < after["ndcg"] <= 1.0  # the watch list's slots could never be new games
    assert 0.0 < after["coverage"] <= 1.0
    shelf = first["shelf"]
    assert shelf["members"] > 50 and shelf["mean_shelf"] > shelf["mean_relevant"] >= 1.0
    for key in ("ndcg", "popularity_ndcg", "random_ndcg"):
        assert 0.0 < shelf[key] <= 1.0


def test_the_nightly_lists_hold_no_watched_game(site: dict[str, pl.DataFrame]) -> None:
    figures = nightly_lists(site["collections"], site["games"], FIT)
    rows = normalise_interactions(site["collections"], source="test")
    assert figures["members"] == rows.get_column("user_id").n_unique()
    assert figures["before"]["watch_share"] > 0.05 and figures["after"]["watch_share"] == 0.0
    assert watch_pairs(rows).height > 0
