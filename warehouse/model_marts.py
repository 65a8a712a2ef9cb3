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
    PRIMARY KEY (run_id, model)
)
"""

MODEL_RUNS_NOTES = "ALTER TABLE marts.model_runs ADD COLUMN IF NOT EXISTS notes VARCHAR"
"""What a cost guard did to a candidate (e.g. EASE capped to the most collected games);
added to older warehouses in place."""

PIPELINE_RUNS_DDL = """
CREATE TABLE IF NOT EXISTS marts.pipeline_runs (
    run_id VARCHAR PRIMARY KEY, job VARCHAR, started_at TIMESTAMPTZ, finished_at TIMESTAMPTZ,
    status VARCHAR, n_checks INTEGER, n_failed_checks INTEGER, checks JSON
)
"""


def write_model_runs(con: duckdb.DuckDBPyConnection, runs: pl.DataFrame) -> int:
    """Insert (or replace) this run's rows of marts.model_runs."""
    con.execute("CREATE SCHEMA IF NOT EXISTS marts")
    con.execute(MODEL_RUNS_DDL)
    con.execute(MODEL_RUNS_NOTES)
    con.register("runs", runs.to_arrow())
    try:
        con.execute("INSERT OR REPLACE INTO marts.model_runs BY NAME SELECT * FROM runs")
    finally:
        con.unregister("runs")
    return runs.height


def previous_champion(con: duckdb.DuckDBPyConnection, before_run_id: str) -> dict[str, Any] | None:
    """The champion row of the latest run before this one (for drift warnings)."""
    con.execute("CREATE SCHEMA IF NOT EXISTS marts")
    con.execute(MODEL_RUNS_DDL)
    rows = con.sql(
        "SELECT * FROM marts.model_runs WHERE champion AND run_id < ? ORDER BY run_id DESC LIMIT 1",
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
