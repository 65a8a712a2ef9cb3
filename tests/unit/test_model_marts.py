"""The marts written from frames take their shape from SQL files and are written by name."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import polars as pl
import pytest

from warehouse.db import SQL_DIR, connect
from warehouse.model_marts import previous_champion, record_pipeline_run, replace_table, write_model_runs

WHEN = datetime(2026, 11, 1, 3, 0, tzinfo=timezone.utc)


def _run_rows(run_id: str, ndcg: float) -> pl.DataFrame:
    # columns in another order than the DDL: the write goes by name
    return pl.DataFrame({
        "champion": [True, False], "model": ["ease", "popularity"], "run_id": [run_id, run_id],
        "ndcg": [ndcg, 0.1], "params": ['{"l2": 100}', "{}"], "k": [10, 10], "precision": [0.1, 0.05],
        "recall": [0.2, 0.1], "map": [0.1, 0.05], "coverage": [0.3, 0.05], "n_users": [5, 5], "n_games": [9, 9],
        "n_interactions": [40, 40], "trained_at": [WHEN, WHEN],
    })


def test_model_runs_keep_history_and_replace_a_rewritten_run(tmp_path: Path) -> None:
    con = connect(tmp_path / "wh.duckdb")
    write_model_runs(con, _run_rows("r1", 0.2))
    write_model_runs(con, _run_rows("r2", 0.3))
    write_model_runs(con, _run_rows("r2", 0.4))  # a retried step
    assert con.execute("SELECT run_id, ndcg FROM marts.model_runs WHERE champion ORDER BY run_id").fetchall() == [
        ("r1", 0.2), ("r2", 0.4)]
    assert previous_champion(con, "r2")["run_id"] == "r1"
    con.close()


def test_replace_table_follows_the_ddl_and_replaces_everything(tmp_path: Path) -> None:
    con = connect(tmp_path / "wh.duckdb")
    first = pl.DataFrame({"similar_game_id": ["b", "c"], "game_id": ["a", "a"], "rank": [1, 2], "score": [0.9, 0.5],
                          "run_id": ["r1", "r1"]})
    assert replace_table(con, "similar_games", first) == 2
    assert replace_table(con, "similar_games", first.head(1).with_columns(pl.lit("r2").alias("run_id"))) == 1
    assert con.execute("SELECT game_id, rank, similar_game_id, run_id FROM marts.similar_games").fetchall() == [
        ("a", 1, "b", "r2")]
    types = dict(con.execute("SELECT column_name, data_type FROM information_schema.columns "
                             "WHERE table_schema = 'marts' AND table_name = 'similar_games'").fetchall())
    assert types["rank"] == "INTEGER" and types["score"] == "DOUBLE"
    with pytest.raises(Exception, match="unknown_column|not found|does not have"):
        replace_table(con, "similar_games", first.with_columns(pl.lit(1).alias("unknown_column")))
    assert con.execute("SELECT count(*) FROM marts.similar_games").fetchall() == [(1,)]  # the failed write left it whole
    con.close()


def test_pipeline_runs_one_row_per_run(tmp_path: Path) -> None:
    con = connect(tmp_path / "wh.duckdb")
    checks = [{"name": "games_unique_key", "passed": True}, {"name": "games_players_range", "passed": False}]
    for status in ("STARTED", "SUCCESS"):
        record_pipeline_run(con, run_id="d1", job="nightly", started_at=WHEN, finished_at=WHEN, status=status,
                            checks=checks)
    assert con.execute("SELECT status, n_checks, n_failed_checks FROM marts.pipeline_runs").fetchall() == [
        ("SUCCESS", 2, 1)]
    con.close()


def test_every_written_mart_has_its_ddl_file() -> None:
    for name in ("model_runs", "pipeline_runs", "quality_checks", "recommendations", "similar_games",
                 "next_to_play", "watch_next"):
        text = (SQL_DIR / "marts" / f"{name}.sql").read_text(encoding="utf-8")
        assert f"CREATE TABLE IF NOT EXISTS marts.{name} (" in text


def test_recommendations_of_an_older_version_lose_the_watching_column(tmp_path: Path) -> None:
    """A warehouse whose discovery lists flagged 興味あり games (`watching`) is upgraded in place:
    the column goes (migration 003), the night id comes (002), and every column is described."""
    from warehouse.comments import validate
    from warehouse.migrate import migrate

    from warehouse.raw import ensure_raw_schema

    con = connect(tmp_path / "wh.duckdb")
    ensure_raw_schema(con)  # a warehouse some night has crawled into: not a fresh one
    con.execute("CREATE SCHEMA marts")
    con.execute("CREATE TABLE marts.recommendations (user_id VARCHAR NOT NULL, rank INTEGER NOT NULL, "
                "game_id VARCHAR NOT NULL, score DOUBLE, model VARCHAR, run_id VARCHAR, reason VARCHAR, "
                "watching BOOLEAN, generated_at TIMESTAMPTZ)")
    con.execute("INSERT INTO marts.recommendations VALUES ('1', 1, 'a', 0.5, 'ease', 'r0', '興味ありに登録済み', true, NULL)")
    con.close()
    migrate(tmp_path / "wh.duckdb")
    con = connect(tmp_path / "wh.duckdb")
    rows = pl.DataFrame({"user_id": ["1"], "rank": [1], "game_id": ["b"], "score": [0.4], "model": ["ease"],
                         "run_id": ["r1"], "reason": ["人気のゲーム"], "generated_at": [WHEN]})
    assert replace_table(con, "recommendations", rows) == 1
    columns = [r[0] for r in con.execute("SELECT column_name FROM information_schema.columns "
                                         "WHERE table_schema = 'marts' AND table_name = 'recommendations'").fetchall()]
    assert "watching" not in columns and "night_id" in columns
    assert con.execute("SELECT game_id, reason FROM marts.recommendations").fetchall() == [("b", "人気のゲーム")]
    assert not [line for line in validate(con) if "marts.recommendations" in line]
    con.close()
