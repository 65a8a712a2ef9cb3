"""The last full tuning is reused only while recent and while the data has not drifted,
and a night that reuses it says so in every candidate's notes."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import polars as pl
import pytest

from models.evaluate import evaluate
from models.report import EvaluationReport
from models.tuning_store import FULL_TUNING_EVERY, load_tuning, save_tuning

FEW = ["popularity", "ease"]
NOW = datetime(2026, 11, 23, 22, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def tuned(small_split: tuple[pl.DataFrame, pl.DataFrame]) -> EvaluationReport:
    train, test = small_split
    return evaluate(train, test, models=FEW)


def _saved(tmp_path: Path, report: EvaluationReport) -> Path:
    path = tmp_path / "tuning.json"
    save_tuning(path, report, n_users=1_000, n_interactions=50_000, tuned_at=NOW)
    return path


def test_a_recent_tuning_on_similar_data_is_reused(tmp_path: Path, tuned: EvaluationReport) -> None:
    path = _saved(tmp_path, tuned)
    prior = load_tuning(path, n_users=1_020, n_interactions=52_000, now=NOW + timedelta(days=2))
    assert prior is not None
    assert prior.weighting.name == tuned.weighting.name
    assert {name: t.params for name, t in prior.tuned.items()} == {n: r.params for n, r in tuned.results.items()}
    assert "reused from the full tuning of 2026-11-23" in prior.note and "4.0%" in prior.note


@pytest.mark.parametrize(
    ("users", "rows", "later"),
    [(1_000, 56_000, timedelta(days=1)), (1_200, 50_000, timedelta(days=1)), (1_000, 50_000, FULL_TUNING_EVERY)],
)
def test_drift_or_age_asks_for_a_full_tuning(
    tmp_path: Path, tuned: EvaluationReport, users: int, rows: int, later: timedelta
) -> None:
    path = _saved(tmp_path, tuned)
    assert load_tuning(path, n_users=users, n_interactions=rows, now=NOW + later) is None


def test_missing_or_broken_file_means_a_full_tuning(tmp_path: Path) -> None:
    path = tmp_path / "tuning.json"
    assert load_tuning(path, n_users=1, n_interactions=1, now=NOW) is None
    path.write_text("{not json", encoding="utf-8")
    assert load_tuning(path, n_users=1, n_interactions=1, now=NOW) is None


def test_a_reusing_night_skips_tuning_and_says_so(
    tmp_path: Path, tuned: EvaluationReport, small_split: tuple[pl.DataFrame, pl.DataFrame]
) -> None:
    train, test = small_split
    prior = load_tuning(_saved(tmp_path, tuned), n_users=1_000, n_interactions=50_000, now=NOW)
    assert prior is not None
    again = evaluate(train, test, models=FEW, prior=prior)
    assert again.champion == tuned.champion
    for name, result in again.results.items():
        assert result.params == tuned.results[name].params
        assert result.tuning.trials == []  # nothing was refitted for tuning
        assert result.metrics == tuned.results[name].metrics
        assert prior.note in (result.notes or "")
    # How the champion was chosen says so too (marts.model_runs.selection, the run summary).
    assert tuned.selection == ("best NDCG@10 of 2 candidates on a fresh random split of TRAIN (20% of each "
                               "member's rows); weighting and parameters tuned on a validation split of TRAIN")
    assert again.selection.endswith(f"; {prior.note}")
    reused = evaluate(train, test, models=FEW, reuse=tuned, split="time")
    assert reused.selection.endswith("tuned on a validation split of TRAIN (of the random split)")
    assert set(tuned.model_runs("r", NOW)["selection"]) == {tuned.selection}
