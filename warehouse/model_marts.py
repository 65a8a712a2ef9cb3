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

from warehouse.db import ensure_table, insert_by_name, scalar, transaction


def ensure_model_runs(con: duckdb.DuckDBPyConnection) -> None:
    """Create marts.model_runs from its DDL file, or bring an older table up to date.

    A table from before evaluation splits keyed rows by (run_id, model); it is rebuilt
    with the new key, its rows kept as the random split (a primary key cannot be altered
    in place). Columns added since (`notes`: what a cost guard did to a candidate;
    `night_id`, `selection`) are added empty to older rows, as migration 002 does at a
    night's start (this covers a warehouse written outside a night, e.g. by a test or a
    benchmark).
    """
    ensure_table(con, "model_runs")
    columns = {row[0] for row in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_catalog = current_database() "
        "AND table_schema = 'marts' AND table_name = 'model_runs'"
    ).fetchall()}
    if "split" not in columns:
        with transaction(con):
            con.execute("ALTER TABLE marts.model_runs RENAME TO model_runs_before_splits")
            ensure_table(con, "model_runs")
            con.execute("INSERT INTO marts.model_runs BY NAME SELECT * FROM marts.model_runs_before_splits")
            con.execute("DROP TABLE marts.model_runs_before_splits")
    else:
        for column in ("notes", "night_id", "selection"):
            if column not in columns:
                con.execute(f"ALTER TABLE marts.model_runs ADD COLUMN {column} VARCHAR")


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
    """One row per orchestrator run with its check results, for the dashboard's overview.

    Completes the row the night wrote at its start (`warehouse.nights.start_night`): the
    bundle its release named there (`export_run_id`) is kept. The run's id is the night's.
    """
    failed = sum(1 for c in checks if not c.get("passed"))
    ensure_table(con, "pipeline_runs")
    con.execute(
        "INSERT INTO marts.pipeline_runs (run_id, job, started_at, finished_at, status, n_checks, "
        "n_failed_checks, checks, night_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET "
        "job = excluded.job, started_at = excluded.started_at, finished_at = excluded.finished_at, "
        "status = excluded.status, n_checks = excluded.n_checks, n_failed_checks = excluded.n_failed_checks, "
        "checks = excluded.checks, night_id = excluded.night_id",
        [run_id, job, started_at, finished_at, status, len(checks), failed,
         json.dumps(checks, ensure_ascii=False), run_id],
    )


def utcnow() -> datetime:
    return datetime.now(timezone.utc)
