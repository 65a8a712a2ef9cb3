"""The ensemble as champion: chosen only when it wins on the selection split, and then serving
every list a single champion serves (discovery, play next, similar games, game night)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from models.discovery.group import Table, candidates, game_night
from models.discovery.run import Discovery, discover
from models.discovery.serving import score_user_on_the_fly
from models.discovery.store import load_state
from models.ensemble import Ensemble
from models.evaluate import evaluate
from models.interactions import normalise_interactions
from tests.support.discovery_data import GENERATED_AT, discovery_data

ENSEMBLE = {"members": {"ease": {"l2": 100.0}, "als": {"factors": 16, "iterations": 5}},
            "shares": {"ease": 2, "als": 1}}


def _champion_row(report) -> dict:
    runs = report.model_runs("r1", datetime(2026, 1, 1, tzinfo=timezone.utc))
    return runs.filter(pl.col("champion")).select("model").row(0, named=True)


def test_the_night_picks_the_ensemble_when_it_wins_on_the_selection_split(
    small_split: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    train, test = small_split
    report = evaluate(train, test, k=10, seed=0, models=["popularity", "bm25", "ease", "ensemble"])
    selection = {name: result.selection_ndcg for name, result in report.results.items()}
    assert report.results["ensemble"].params["shares"] == {"bm25": 3, "ease": 1}
    assert selection["ensemble"] > max(value for name, value in selection.items() if name != "ensemble")
    assert report.champion == "ensemble"
    assert _champion_row(report) == {"model": "ensemble"}  # marts.model_runs.champion


@pytest.mark.parametrize(
    ("models", "shares", "single"),
    [
        # Weights chosen on the tuning split that lose on the selection split.
        (["cosine", "rp3beta", "ensemble"], {"rp3beta": 3, "cosine": 1}, "rp3beta"),
        # Nothing to add to EASE on the tuning split: the ensemble is EASE alone and ties it;
        # the single model (listed first) wins the tie.
        (["popularity", "ease", "ensemble"], {"ease": 1}, "ease"),
    ],
)
def test_the_night_keeps_a_single_model_when_the_ensemble_does_not_beat_it(
    small_split: tuple[pl.DataFrame, pl.DataFrame], models: list[str], shares: dict[str, int], single: str,
) -> None:
    train, test = small_split
    report = evaluate(train, test, k=10, seed=0, models=models)
    selection = {name: result.selection_ndcg for name, result in report.results.items()}
    assert report.results["ensemble"].params["shares"] == shares
    assert selection["ensemble"] <= selection[single]
    assert report.champion == single
    assert _champion_row(report) == {"model": single}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Discovery, Path]:
    data = discovery_data()
    model_dir = tmp_path_factory.mktemp("ensemble-champion")
    result = discover(
        collections=data["collections"], games=data["games"], posts=data["posts"], champion="ensemble",
        params=ENSEMBLE, weighting="graded", run_id="run-e", generated_at=GENERATED_AT, depth=20,
        n_similar=5, model_dir=model_dir,
    )
    return data, result, model_dir


def test_discovery_play_next_and_similar_games_are_ranked_by_the_ensemble(served) -> None:
    data, result, model_dir = served
    recs = result.recommendations
    assert recs.get_column("model").unique().to_list() == ["ensemble"]
    assert recs.get_column("reason").str.contains("が好きなあなたに").mean() > 0.5  # its members' reasons
    assert result.next_to_play.height > 0 and result.watch_next.height > 0
    assert result.similar_games.get_column("game_id").n_unique() == data["games"].height
    state, meta = load_state(model_dir)
    assert meta["champion"] == "ensemble" and isinstance(state.model, Ensemble)
    assert state.model.shares == ENSEMBLE["shares"]
    fan = data["fan"]
    stored = recs.filter(pl.col("user_id") == fan).sort("rank")
    fresh = score_user_on_the_fly(model_dir, fan).head(stored.height)  # serving reloads the ensemble
    assert fresh.select("rank", "game_id", "reason").equals(stored.select("rank", "game_id", "reason"))


def test_game_night_ranks_with_the_ensemble(served) -> None:
    data, _, model_dir = served
    state, _ = load_state(model_dir)
    rows = normalise_interactions(data["collections"])
    owners = rows.filter(pl.col("have")).group_by("user_id").len().filter(pl.col("len") >= 5)
    group = owners.sort("user_id").get_column("user_id").head(2).to_list()
    table = Table(user_ids=group, collections=rows.filter(pl.col("user_id").is_in(group)),
                  playable=data["games"].get_column("game_id"), anywhere=True)
    listed = game_night(state, table, n=5)
    assert listed.height == 5 and listed.get_column("reason").str.contains(group[0]).any()
    # The group's score is the mean of each member's blended score, the ensemble's inside it.
    members = state.members(table.collections, group)
    mask = np.broadcast_to(candidates(state, table), (2, state.n_games)).copy()
    blended = state.score(members, mask).blended.mean(axis=0)
    columns = state.game_ids.to_list()
    expected = [float(blended[columns.index(game)]) for game in listed.get_column("game_id")]
    assert listed.get_column("score").to_list() == pytest.approx(expected, rel=1e-5)
