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

from warehouse.db import ensure_table, insert_by_name, scalar


def write_model_runs(con: duckdb.DuckDBPyConnection, runs: pl.DataFrame) -> int:
    """Insert (or replace) this run's rows of marts.model_runs."""
    return insert_by_name(con, "model_runs", runs, or_replace=True)


def previous_champion(con: duckdb.DuckDBPyConnection, before_run_id: str) -> dict[str, Any] | None:
    """The champion row of the latest run before this one (for drift warnings)."""
    ensure_table(con, "model_runs")
    rows = con.sql(
        "SELECT * FROM marts.model_runs WHERE champion AND run_id < ? ORDER BY run_id DESC LIMIT 1",
        params=[before_run_id],
    ).pl().to_dicts()
    return rows[0] if rows else None


def replace_table(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame) -> int:
    """Replace every row of marts.<table> (shape from its DDL file) with the frame, atomically."""
    insert_by_name(con, table, frame, replace_all=True)
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
    failed = sum(1 for c in checks if not c.get("passed"))
    row = pl.DataFrame(
        {
            "run_id": [run_id], "job": [job], "started_at": [started_at], "finished_at": [finished_at],
            "status": [status], "n_checks": [len(checks)], "n_failed_checks": [failed],
            "checks": [json.dumps(checks, ensure_ascii=False)],
        }
    )
    insert_by_name(con, "pipeline_runs", row, or_replace=True)


def utcnow() -> datetime:
    return datetime.now(timezone.utc)
