"""evaluate / evaluate_files: the report's shape, round trips, cold users, bad input, quality."""

import json
import logging
from pathlib import Path

import polars as pl
import pytest

from models.evaluate import evaluate, evaluate_files
from models.interactions import InteractionsError
from models.metrics import ndcg_at_k
from models.report import METRICS, EvaluationReport

FAST = ["popularity", "bm25", "ease", "rp3beta"]


@pytest.fixture(scope="module")
def report(small_split: tuple[pl.DataFrame, pl.DataFrame]) -> EvaluationReport:
    train, test = small_split
    return evaluate(train, test, k=10, seed=0)


def test_json_shape_is_exactly_the_contract(report: EvaluationReport) -> None:
    data = json.loads(report.to_json())
    assert set(data) == {"k", "champion", "models"}
    assert data["k"] == 10
    assert set(data["models"]) == {"popularity", "cosine", "bm25", "ease", "edlae", "rp3beta", "als", "bpr", "ensemble"}
    for numbers in data["models"].values():
        assert set(numbers) == {*METRICS, "fit_seconds"}
        assert all(isinstance(value, float) for value in numbers.values())
    assert data["champion"] in data["models"]


def test_champion_is_chosen_on_the_selection_split(report: EvaluationReport) -> None:
    best = max(result.selection_ndcg for result in report.results.values())
    assert report.results[report.champion].selection_ndcg == best
    assert report.champion != "popularity"


def test_champion_topk_recomputes_the_reported_ndcg(
    report: EvaluationReport, small_split: tuple[pl.DataFrame, pl.DataFrame]
) -> None:
    train, test = small_split
    topk = report.champion_topk()
    assert topk.columns == ["user_id", "rank", "game_id", "score"]
    assert topk.group_by("user_id").len().get_column("len").max() <= 10
    assert topk.join(train, on=["user_id", "game_id"], how="semi").height == 0  # never a TRAIN game
    relevant = test.join(train, on=["user_id", "game_id"], how="anti")
    assert ndcg_at_k(topk, relevant, 10) == pytest.approx(report.to_dict()["models"][report.champion]["ndcg"], abs=1e-6)


def test_model_runs_rows(report: EvaluationReport) -> None:
    from datetime import datetime, timezone

    runs = report.model_runs("run-1", datetime(2026, 1, 1, tzinfo=timezone.utc))
    assert runs.height == len(report.results)
    assert runs.filter(pl.col("champion")).get_column("model").to_list() == [report.champion]
    assert "weighting" in json.loads(runs.get_column("params")[0])


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_evaluate_files_round_trip(
    tmp_path: Path, small_split: tuple[pl.DataFrame, pl.DataFrame], suffix: str
) -> None:
    train, test = small_split
    train_path, test_path = tmp_path / f"train{suffix}", tmp_path / f"test{suffix}"
    for frame, path in ((train, train_path), (test, test_path)):
        frame.write_csv(path) if suffix == ".csv" else frame.write_parquet(path)
    output = tmp_path / "out" / f"top{suffix}"
    result = evaluate_files(train_path, test_path, k=5, output_path=output, models=FAST)
    written = pl.read_csv(output, schema_overrides={"user_id": pl.String, "game_id": pl.String}) if suffix == ".csv" else pl.read_parquet(output)
    assert written.columns == ["user_id", "rank", "game_id", "score"]
    assert written.get_column("rank").max() == 5
    relevant = test.join(train, on=["user_id", "game_id"], how="anti")
    assert ndcg_at_k(written, relevant, 5) == pytest.approx(result.to_dict()["models"][result.champion]["ndcg"], abs=1e-6)


def test_same_seed_same_report(small_split: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    train, test = small_split

    def numbers() -> dict:
        data = evaluate(train, test, models=FAST).to_dict()
        for values in data["models"].values():
            values.pop("fit_seconds")
        return data

    assert numbers() == numbers()


def test_cold_test_users_get_popularity_and_count(small_split: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    train, test = small_split
    newcomer = pl.DataFrame({"user_id": ["newcomer"], "game_id": [train.get_column("game_id")[0]]})
    report = evaluate(train, pl.concat([test.select("user_id", "game_id"), newcomer]), models=["popularity", "ease"])
    assert report.n_cold_users == 1
    served = report.champion_topk().filter(pl.col("user_id") == "newcomer")
    popular = report.results["popularity"].topk.filter(pl.col("user_id") == "newcomer")
    assert served.height == 10 and served.get_column("game_id").to_list() == popular.get_column("game_id").to_list()


def test_progress_is_logged(small_split: tuple[pl.DataFrame, pl.DataFrame], caplog: pytest.LogCaptureFixture) -> None:
    train, test = small_split
    with caplog.at_level(logging.INFO, logger="bodoge.models"):
        evaluate(train, test, models=["popularity", "ease"])
    text = caplog.text
    for stage in ("evaluate: TRAIN", "validation split", "weighting", "tuned ease", "selection split", "champion", "test:"):
        assert stage in text


def test_bad_inputs(tmp_path: Path, small_split: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    train, test = small_split
    train.write_csv(tmp_path / "train.csv")
    test.write_csv(tmp_path / "test.csv")
    with pytest.raises(InteractionsError, match="unsupported output file type"):
        evaluate_files(tmp_path / "train.csv", tmp_path / "test.csv", output_path=tmp_path / "top.json")
    with pytest.raises(InteractionsError, match="not found"):
        evaluate_files(tmp_path / "nope.csv", tmp_path / "test.csv")
    (tmp_path / "ids_only.csv").write_text("member,game_id\n1,2\n", encoding="utf-8")
    with pytest.raises(InteractionsError, match="user_id"):
        evaluate_files(tmp_path / "train.csv", tmp_path / "ids_only.csv")
    with pytest.raises(InteractionsError, match="TEST has no interactions"):
        evaluate(train, test.head(0))
    with pytest.raises(ValueError, match="unknown model"):
        evaluate(train, test, models=["deep-learning"])


def test_time_split_evaluation_reuses_tuning_and_reports_beyond_accuracy(small_split) -> None:
    from datetime import datetime, timezone

    from models.evaluate import evaluate

    train, test = small_split
    everything = pl.concat([train, test])
    times = everything.select(
        "user_id", "game_id",
        (pl.datetime(2026, 1, 1, time_zone="UTC") + pl.duration(hours=pl.col("game_id").hash(7) % 5000)).alias(
            "updated_at"),
    )
    first = evaluate(train, test, k=10, models=["popularity", "ease"])
    second = evaluate(train, test, k=10, models=["popularity", "ease"], times=times, reuse=first, split="time")
    assert second.split == "time" and second.weighting == first.weighting
    assert {n: r.params for n, r in second.results.items()} == {n: r.params for n, r in first.results.items()}
    runs = second.model_runs("r1", datetime(2026, 11, 1, tzinfo=timezone.utc), stability={"ease": 0.5})
    assert runs.get_column("split").unique().to_list() == ["time"]
    by_model = {row["model"]: row for row in runs.iter_rows(named=True)}
    assert by_model["ease"]["rank_stability"] == 0.5 and by_model["popularity"]["rank_stability"] is None
    for row in by_model.values():
        assert 0.0 <= row["long_tail_share"] <= 1.0 and 0.0 <= row["intra_list_diversity"] <= 1.0
    # Popularity recommends the head: less long tail, lower (more popular) ranks than EASE.
    assert by_model["popularity"]["long_tail_share"] < by_model["ease"]["long_tail_share"]
    assert by_model["popularity"]["mean_popularity_rank"] < by_model["ease"]["mean_popularity_rank"]
