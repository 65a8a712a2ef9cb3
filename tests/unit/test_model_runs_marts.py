"""marts.model_runs: one row per run, model and split; a table from before splits is migrated, not lost."""

from datetime import datetime, timezone
from pathlib import Path

import polars as pl

from warehouse.db import connect
from warehouse.model_marts import previous_champion, write_model_runs

OLD_DDL = """
CREATE TABLE marts.model_runs (
    run_id VARCHAR NOT NULL, model VARCHAR NOT NULL, params JSON, k INTEGER,
    ndcg DOUBLE, precision DOUBLE, recall DOUBLE, map DOUBLE, coverage DOUBLE,
    n_users INTEGER, n_games INTEGER, n_interactions INTEGER,
    trained_at TIMESTAMPTZ, champion BOOLEAN,
    PRIMARY KEY (run_id, model)
)
"""
WHEN = datetime(2026, 11, 1, tzinfo=timezone.utc)


def _rows(run_id: str, split: str, ndcg: float) -> pl.DataFrame:
    return pl.DataFrame({
        "run_id": [run_id] * 2, "model": ["ease", "popularity"], "params": ["{}"] * 2, "k": [10, 10],
        "ndcg": [ndcg, 0.01], "precision": [0.1, 0.0], "recall": [0.1, 0.0], "map": [0.1, 0.0],
        "coverage": [0.5, 0.1], "n_users": [5, 5], "n_games": [9, 9], "n_interactions": [30, 30],
        "trained_at": [WHEN] * 2, "champion": [True, False], "split": [split] * 2,
        "long_tail_share": [0.4, 0.0], "intra_list_diversity": [0.8, 0.7], "mean_popularity_rank": [12.0, 5.5],
        "rank_stability": [None, 1.0],
    }, schema_overrides={"rank_stability": pl.Float64})


def test_old_table_is_migrated_and_both_splits_are_kept(tmp_path: Path) -> None:
    con = connect(tmp_path / "wh.duckdb")
    con.execute("CREATE SCHEMA marts")
    con.execute(OLD_DDL)
    con.execute("INSERT INTO marts.model_runs VALUES ('r0', 'ease', '{}', 10, 0.2, 0.1, 0.1, 0.1, 0.5, 5, 9, 30, "
                "'2026-10-01 00:00:00+00', true, )".replace(", )", ")"))
    write_model_runs(con, pl.concat([_rows("r1", "random", 0.3), _rows("r1", "time", 0.25)]))
    write_model_runs(con, _rows("r1", "time", 0.26))  # a retried step replaces its rows
    runs = con.sql("SELECT run_id, model, split, ndcg, long_tail_share FROM marts.model_runs ORDER BY ALL").pl()
    assert runs.rows() == [
        ("r0", "ease", "random", 0.2, None),
        ("r1", "ease", "random", 0.3, 0.4), ("r1", "ease", "time", 0.26, 0.4),
        ("r1", "popularity", "random", 0.01, 0.0), ("r1", "popularity", "time", 0.01, 0.0),
    ]
    assert previous_champion(con, "r2")["split"] == "time"
    assert previous_champion(con, "r1")["run_id"] == "r0"
    con.close()
