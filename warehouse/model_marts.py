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


def ensure_model_runs(con: duckdb.DuckDBPyConnection) -> None:
    """Create marts.model_runs from its DDL file, or bring an older table up to date.

    A table from before evaluation splits keyed rows by (run_id, model); it is rebuilt
    with the new key, its rows kept as the random split (a primary key cannot be altered
    in place). Columns added since (`notes`: what a cost guard did to a candidate) are
    added empty to older rows.
    """
    ensure_table(con, "model_runs")
    columns = {row[0] for row in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'marts' AND table_name = 'model_runs'"
    ).fetchall()}
    if "split" not in columns:
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute("ALTER TABLE marts.model_runs RENAME TO model_runs_before_splits")
            ensure_table(con, "model_runs")
            con.execute("INSERT INTO marts.model_runs BY NAME SELECT * FROM marts.model_runs_before_splits")
            con.execute("DROP TABLE marts.model_runs_before_splits")
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
    elif "notes" not in columns:
        con.execute("ALTER TABLE marts.model_runs ADD COLUMN notes VARCHAR")


def write_model_runs(con: duckdb.DuckDBPyConnection, runs: pl.DataFrame) -> int:
    """Insert (or replace) this run's rows of marts.model_runs (on the random split unless
    the frame names its split: the split is part of the key an upsert matches on)."""
    ensure_model_runs(con)
    if "split" not in runs.columns:
        runs = runs.with_columns(pl.lit("random").alias("split"))
    return insert_by_name(con, "model_runs", runs, or_replace=True)


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
