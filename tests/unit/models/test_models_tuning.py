"""Tuning: seeded settings, defaults first, the weighting choice kept with its reason."""

import polars as pl

from models.candidates import default_candidates
from models.tuning import choose_weighting, settings, tune
from models.validation import ValidationSet
from models.weighting import WEIGHTINGS, ConfidenceWeights


def test_settings_are_seeded_and_start_with_the_defaults() -> None:
    als = default_candidates()["als"]
    first, again, other = settings(als, 0), settings(als, 0), settings(als, 1)
    assert first == again and first != other
    assert first[0] == {"factors": 64, "regularization": 1.0, "alpha": 4.0, "iterations": 15}
    assert len(first) == als.n_iter + 1 or len(first) == als.n_iter  # defaults may be drawn too
    assert len({str(sorted(p.items())) for p in first}) == len(first)


def test_small_grids_run_in_full() -> None:
    ease = default_candidates()["ease"]
    assert [p["l2"] for p in settings(ease, 0)][0] == 300.0
    assert sorted(p["l2"] for p in settings(ease, 0)) == sorted(ease.grid["l2"])


def test_validation_comes_from_train_only(small_split: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    train, test = small_split
    validation = ValidationSet.carve(train, WEIGHTINGS["binary"], seed=0)
    assert validation.fit_frame.height + validation.held_out.height == train.height
    assert validation.held_out.join(test, on=["user_id", "game_id"], how="inner").height == 0
    again = ValidationSet.carve(train, WEIGHTINGS["binary"], seed=0)
    assert again.held_out.equals(validation.held_out)


def test_tune_is_reproducible_and_keeps_every_trial(small_split: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    train, _ = small_split
    validation = ValidationSet.carve(train, WEIGHTINGS["binary"], seed=0)
    candidate = default_candidates()["rp3beta"]
    first = tune(candidate, validation, k=10, seed=0)
    again = tune(candidate, validation, k=10, seed=0)
    assert first.params == again.params and first.ndcg == again.ndcg
    assert first.ndcg == max(trial.ndcg for trial in first.trials)
    assert len(first.trials) == len(settings(candidate, 0))


def test_weighting_choice_explains_itself(small_split: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    train, _ = small_split
    validation = ValidationSet.carve(train, WEIGHTINGS["graded"], seed=0)
    choice = choose_weighting(validation, k=10, seed=0)
    assert choice.name in WEIGHTINGS and choice.weights == WEIGHTINGS[choice.name]
    assert set(choice.scores) == set(WEIGHTINGS)
    assert choice.name in choice.reason and "NDCG@10" in choice.reason


def test_identical_weightings_are_not_refitted(small_split: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    train, _ = small_split
    ratings_only = train.select("user_id", "game_id", "rating")
    from models.interactions import normalise_interactions

    validation = ValidationSet.carve(normalise_interactions(ratings_only), WEIGHTINGS["binary"], seed=0)
    twins = {"binary": WEIGHTINGS["binary"], "flags_only": ConfidenceWeights(rating=0.0)}
    choice = choose_weighting(validation, k=10, seed=0, weightings=twins)
    assert choice.scores["binary"] == choice.scores["flags_only"]
    assert choice.name == "binary"  # ties go to the simpler, earlier weighting
