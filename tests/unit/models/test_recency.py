"""Recency weighting: each row's confidence halves every half-life before the matrix's moment, the
moment travels with the matrix (saved, folded in), the weighting travels by name, and the night
keeps a half-life only when it wins forward without losing the random split (``models.recency``)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import numpy as np
import polars as pl
import pytest

from models.discovery.run import ChampionFit
from models.interactions import InteractionMatrix, normalise_interactions
from models.recency import HALF_LIVES, choose_recency
from models.tuning import WeightingChoice, weighting_reference
from models.validation import ValidationSet
from models.weighting import WEIGHTINGS, weighting_name, weighting_named

NOW = datetime(2026, 11, 28, 3, 0, tzinfo=timezone.utc)
RECENT = replace(WEIGHTINGS["graded"], half_life_days=180.0)


def _rows(ages_days: list[float | None]) -> pl.DataFrame:
    """One member's have-rows, game g0, g1, …, each updated ``age`` days before NOW (None: no time)."""
    return normalise_interactions(pl.DataFrame({
        "user_id": ["m"] * len(ages_days),
        "game_id": [f"g{i}" for i in range(len(ages_days))],
        "have": [True] * len(ages_days),
        "updated_at": [None if age is None else (NOW - timedelta(days=age)).isoformat() for age in ages_days],
    }))


def test_a_row_loses_half_its_confidence_each_half_life_before_the_moment() -> None:
    rows = _rows([0.0, 180.0, 360.0, None])
    matrix = InteractionMatrix.from_frame(rows, RECENT)
    assert matrix.as_of == NOW  # the latest time of the rows
    # graded: 持ってる is 1.0; 180 days halve it, 360 quarter it; no time counts as new
    assert matrix.matrix.toarray().ravel().tolist() == pytest.approx([1.0, 0.5, 0.25, 1.0])
    plain = InteractionMatrix.from_frame(rows, WEIGHTINGS["graded"])
    assert plain.as_of is None and plain.matrix.toarray().ravel().tolist() == [1.0, 1.0, 1.0, 1.0]


def test_a_row_later_than_the_moment_is_new_and_an_earlier_moment_ages_everything_less() -> None:
    rows = _rows([0.0, 180.0])
    earlier = InteractionMatrix.from_frame(rows, RECENT, as_of=NOW - timedelta(days=180))
    assert earlier.matrix.toarray().ravel().tolist() == pytest.approx([1.0, 1.0])
    untimed = InteractionMatrix.from_frame(rows.drop("updated_at"), RECENT, as_of=NOW)
    assert untimed.matrix.toarray().ravel().tolist() == [1.0, 1.0]


def test_the_moment_is_saved_and_a_member_folded_in_is_aged_from_it(tmp_path) -> None:
    rows = pl.concat([_rows([0.0, 90.0]), _rows([400.0]).with_columns(pl.lit("n").alias("user_id"))])
    night = InteractionMatrix.from_frame(rows, RECENT)
    loaded = InteractionMatrix.load(night.save(tmp_path / "night"))
    assert loaded.as_of == night.as_of == NOW
    # member n alone: their one row would be "now" by its own latest time, but the night ages it 400 days
    folded = loaded.with_members(rows.filter(pl.col("user_id") == "n"), RECENT)
    assert folded.matrix.data.tolist() == pytest.approx([0.5 ** (400 / 180)])
    plain = InteractionMatrix.from_frame(rows, WEIGHTINGS["graded"])
    assert InteractionMatrix.load(plain.save(tmp_path / "plain")).as_of is None


@pytest.mark.parametrize("base", sorted(WEIGHTINGS))
@pytest.mark.parametrize("days", [None, 90.0, 180.0, 365.0, 7.5])
def test_a_weighting_travels_by_name(base: str, days: float | None) -> None:
    name = weighting_name(base, days)
    assert weighting_named(name) == replace(WEIGHTINGS[base], half_life_days=days)
    ChampionFit(weighting=name)  # the night's discovery accepts it


@pytest.mark.parametrize("name", ["", "graded+recency", "graded+recencyXd", "nope+recency180d", "graded+recency-3d"])
def test_an_unknown_weighting_name_is_refused(name: str) -> None:
    with pytest.raises(KeyError):
        weighting_named(name)
    with pytest.raises(ValueError, match="unknown weighting"):
        ChampionFit(weighting=name)


def _drifting(*, noise_is_old: bool, seed: int = 0) -> pl.DataFrame:
    """400 members over 120 games in 4 taste groups of 30. Each member holds 8 games from years
    ago and 8 recent ones from their group, and adds 3 more from it after the forward cut.
    ``noise_is_old``: the old games are random (taste came later: recency helps); else the
    times are shuffled over all rows (time says nothing: recency cannot help)."""
    rng = np.random.default_rng(seed)
    rows = []
    for member in range(400):
        group = member % 4
        mine = rng.choice(30, size=11, replace=False) + 30 * group
        old = rng.choice(np.setdiff1d(np.arange(120), mine), size=8, replace=False)
        ages = np.concatenate([rng.uniform(700, 1400, 8), rng.uniform(20, 200, 8), rng.uniform(0, 10, 3)])
        games = np.concatenate([old, mine])
        if not noise_is_old:
            ages = rng.permutation(ages)
        for game, age in zip(games, ages):
            rows.append({"user_id": f"u{member:03d}", "game_id": f"g{game:03d}", "have": True,
                         "updated_at": NOW - timedelta(days=float(age))})
    return normalise_interactions(pl.DataFrame(rows))


def _choose(train: pl.DataFrame) -> WeightingChoice:
    graded = WEIGHTINGS["graded"]
    split = ValidationSet.carve(train, graded, seed=0)
    base = WeightingChoice("graded", graded, {"graded": 0.0}, "graded chosen")
    return choose_recency(train, base, split, reference=weighting_reference())


def test_recency_is_chosen_where_tastes_moved_and_said_why() -> None:
    chosen = _choose(_drifting(noise_is_old=True))
    assert chosen.weights.half_life_days in HALF_LIVES
    assert chosen.name == weighting_name("graded", chosen.weights.half_life_days)
    assert weighting_named(chosen.name) == chosen.weights
    assert "won forward" in chosen.reason and chosen.recency.startswith("recency ")


def test_recency_is_refused_where_time_says_nothing() -> None:
    chosen = _choose(_drifting(noise_is_old=False))
    assert chosen.weights.half_life_days is None and chosen.name == "graded"
    assert chosen.recency == "no half-life won forward without losing offline"
    assert "no recency" in chosen.reason


def test_recency_is_not_asked_of_rows_without_times() -> None:
    chosen = _choose(_drifting(noise_is_old=True).drop("updated_at"))
    assert chosen.weights.half_life_days is None and chosen.recency == ""  # nothing for the selection line
    assert chosen.reason.endswith("no recency: TRAIN has no times")
