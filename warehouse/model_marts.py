"""Writing model outputs into the warehouse: model runs (history), recommendations, similar games.

Why replace-by-run: recommendations and similar games are the current state (one run),
while model_runs keeps every run so analysts can follow metrics over time; re-writing
the same run id replaces its rows, so a retried step never duplicates them.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import duckdb
import polars as pl

from warehouse.db import scalar

MODEL_RUNS_DDL = """
CREATE TABLE IF NOT EXISTS marts.model_runs (
    run_id VARCHAR NOT NULL, model VARCHAR NOT NULL, params JSON, k INTEGER,
    ndcg DOUBLE, precision DOUBLE, recall DOUBLE, map DOUBLE, coverage DOUBLE,
    n_users INTEGER, n_games INTEGER, n_interactions INTEGER,
    trained_at TIMESTAMPTZ, champion BOOLEAN,
    split VARCHAR NOT NULL DEFAULT 'random',
    long_tail_share DOUBLE, intra_list_diversity DOUBLE, mean_popularity_rank DOUBLE, rank_stability DOUBLE,
    PRIMARY KEY (run_id, model, split)
)
"""
"""One row per run, candidate and evaluation split: ``random`` (a seeded 20 % of each
member's rows) or ``time`` (each member's latest 20 %: the split that names the nightly's
champion). The beyond-accuracy columns are described in ``models.beyond``."""

PIPELINE_RUNS_DDL = """
CREATE TABLE IF NOT EXISTS marts.pipeline_runs (
    run_id VARCHAR PRIMARY KEY, job VARCHAR, started_at TIMESTAMPTZ, finished_at TIMESTAMPTZ,
    status VARCHAR, n_checks INTEGER, n_failed_checks INTEGER, checks JSON
)
"""


def ensure_model_runs(con: duckdb.DuckDBPyConnection) -> None:
    """Create marts.model_runs, or bring a table from before evaluation splits up to date
    (its rows were all on the random split; the new metric columns stay empty for them)."""
    con.execute("CREATE SCHEMA IF NOT EXISTS marts")
    con.execute(MODEL_RUNS_DDL)
    columns = {row[0] for row in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'marts' AND table_name = 'model_runs'"
    ).fetchall()}
    if "split" in columns:
        return
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute("ALTER TABLE marts.model_runs RENAME TO model_runs_before_splits")
        con.execute(MODEL_RUNS_DDL)
        con.execute("INSERT INTO marts.model_runs BY NAME SELECT * FROM marts.model_runs_before_splits")
        con.execute("DROP TABLE marts.model_runs_before_splits")
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise


def write_model_runs(con: duckdb.DuckDBPyConnection, runs: pl.DataFrame) -> int:
    """Insert (or replace) this run's rows of marts.model_runs."""
    ensure_model_runs(con)
    con.register("runs", runs.to_arrow())
    try:
        con.execute("INSERT OR REPLACE INTO marts.model_runs BY NAME SELECT * FROM runs")
    finally:
        con.unregister("runs")
    return runs.height


def previous_champion(con: duckdb.DuckDBPyConnection, before_run_id: str) -> dict[str, Any] | None:
    """The champion row of the latest run before this one (for drift warnings), on the
    split that names the champion (``time``; ``random`` for runs from before splits)."""
    ensure_model_runs(con)
    rows = con.sql(
        "SELECT * FROM marts.model_runs WHERE champion AND run_id < ? "
        "ORDER BY run_id DESC, split = 'time' DESC LIMIT 1",
        params=[before_run_id],
    ).pl().to_dicts()
    return rows[0] if rows else None


def replace_table(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame) -> int:
    """Replace marts.<table> with the frame in one statement."""
    con.execute("CREATE SCHEMA IF NOT EXISTS marts")
    con.register("frame", frame.to_arrow())
    try:
        con.execute(f"CREATE OR REPLACE TABLE marts.{table} AS SELECT * FROM frame")
    finally:
        con.unregister("frame")
    return int(scalar(con, f"SELECT count(*) FROM marts.{table}") or 0)


def record_pipeline_run(
    con: duckdb.DuckDBPyConnection,
    *,
    run_id: str,
    job: str,
    started_at: datetime,
    finished_at: datetime,
    status: str,
    checks: list[dict[str, Any]],
) -> None:
    """One row per orchestrator run with its check results, for the dashboard's overview."""
    con.execute("CREATE SCHEMA IF NOT EXISTS marts")
    con.execute(PIPELINE_RUNS_DDL)
    failed = sum(1 for c in checks if not c.get("passed"))
    con.execute(
        "INSERT OR REPLACE INTO marts.pipeline_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [run_id, job, started_at, finished_at, status, len(checks), failed, json.dumps(checks, ensure_ascii=False)],
    )


def utcnow() -> datetime:
    return datetime.now(timezone.utc)
