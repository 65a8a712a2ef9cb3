"""Nights you can compare: one night id across everything a night writes, and what it served.

Why: "how did quality change over the nights?" needs every row a night writes to name
the same night, and the night to have a row from its start. The rule: the Dagster run's
id is the night's id: pipeline_runs keys on it (a row from the night's start,
`start_night`), and raw.crawl_runs, model_runs, recommendations, similar_games,
recommendation_runs and the publication carry it as `night_id`. Two views read them
together: `marts.nights` (one row per night with its crawl, training run and bundle) and
`marts.model_quality` (per training run: the champion, how it was chosen, selection and
TEST NDCG, coverage, stability against the previous night).

Stability needs the previous night's lists and whether each member's collection changed
since: `record_lists` keeps the latest night's top 10s with a fingerprint of the
collection they were ranked from (marts.served_top10) and measures tonight's against
them in SQL, one pass over the lists (about a second at 100,000 members).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import duckdb

from warehouse.comments import apply_comments
from warehouse.db import SQL_DIR, ensure_table, run_sql_file, transaction

NIGHT_TABLES = ("pipeline_runs", "model_runs", "bgg_gain", "recommendations", "similar_games", "recommendation_runs",
                "served_top10", "history_nights", "collection_history", "served_lists", "list_outcomes")
"""The marts a night writes from Python (declared in `sql/marts/<name>.sql`), which every night and
every published night holds, empty if the night did not get to them."""
NIGHT_COLUMNS = (("raw.crawl_runs", "night_id"), ("marts.pipeline_runs", "night_id"),
                 ("marts.pipeline_runs", "export_run_id"), ("marts.model_runs", "night_id"),
                 ("marts.model_runs", "selection"), ("marts.recommendations", "night_id"),
                 ("marts.similar_games", "night_id"))
"""The columns the views need that a warehouse from before night ids lacks (all VARCHAR):
migration 002 adds them to the warehouse; `ensure_night_marts` to a copy of a warehouse
no night has migrated yet (`bodoge build` right after an upgrade publishes one)."""
NIGHT_VIEWS = ("nights", "model_quality")
"""Views over NIGHT_TABLES and raw.crawl_runs (`sql/marts/<name>.sql`), made after the tables."""
K = 10


def ensure_night_marts(con: duckdb.DuckDBPyConnection) -> None:
    """Create whichever of NIGHT_TABLES (and raw.crawl_runs) `con`'s database lacks, then the
    views, with their descriptions.

    Why at a night's start and in every published night: readers and the views find every
    table from the first night on, empty if need be, rather than a missing-table error.
    Tables that exist keep their rows; one that lacks a column of NIGHT_COLUMNS gets it
    empty (a night's warehouse has it already, from `warehouse.migrate`).
    """
    from warehouse.model_marts import ensure_model_runs

    con.execute("CREATE SCHEMA IF NOT EXISTS raw")
    run_sql_file(con, SQL_DIR / "raw" / "crawl_runs.sql")
    for name in NIGHT_TABLES:
        if name == "model_runs":
            ensure_model_runs(con)
        else:
            ensure_table(con, name)
    for table, column in NIGHT_COLUMNS:
        con.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} VARCHAR")
    con.execute("ALTER TABLE marts.recommendations ADD COLUMN IF NOT EXISTS welcome BOOLEAN")  # migration 004
    for name in NIGHT_VIEWS:
        run_sql_file(con, SQL_DIR / "marts" / f"{name}.sql")
    apply_comments(con, tables=["raw.crawl_runs"] + [f"marts.{name}" for name in NIGHT_VIEWS])


def start_night(con: duckdb.DuckDBPyConnection, *, night_id: str, job: str, started_at: datetime) -> None:
    """The night's row of marts.pipeline_runs, STARTED, unless it has one already.

    Why at the start: the published night then holds its own row (and the table exists
    from the first night), and the release can name its bundle there (`mark_released`);
    the run's end completes the row (`warehouse.model_marts.record_pipeline_run`).
    """
    ensure_table(con, "pipeline_runs")
    con.execute(
        "INSERT INTO marts.pipeline_runs (run_id, job, started_at, status, night_id) "
        "VALUES (?, ?, ?, 'STARTED', ?) ON CONFLICT (run_id) DO NOTHING",
        [night_id, job, started_at, night_id],
    )


def mark_released(con: duckdb.DuckDBPyConnection, *, night_id: str, export_run_id: str | None) -> None:
    """Name (or, with None, un-name) the export bundle the night released in its pipeline_runs row."""
    ensure_table(con, "pipeline_runs")
    con.execute("UPDATE marts.pipeline_runs SET export_run_id = ? WHERE run_id = ?", [export_run_id, night_id])


def record_lists(
    con: duckdb.DuckDBPyConnection, *, night_id: str, run_id: str, model: str, generated_at: datetime, k: int = K
) -> dict[str, Any]:
    """Measure tonight's marts.recommendations against the previous night's; keep tonight's top k.

    Reads marts.recommendations (tonight's, just written) and marts.collections. Writes
    the run's row of marts.recommendation_runs (coverage, stability) and replaces
    marts.served_top10 with tonight's lists, in one transaction. Returns that row.

    Stability is the mean over members with a list on both nights and an unchanged
    collection fingerprint of |A ∩ B| / |A ∪ B| for their top-k lists A (tonight) and B
    (the previous night). Lists of this same night (a re-run) are never the "previous".
    """
    ensure_table(con, "served_top10")
    ensure_table(con, "recommendation_runs")
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE lists_tonight AS
        WITH fingerprints AS (
            SELECT user_id, bit_xor(hash(game_id, have, played, favorite, watching, rating)) AS fingerprint
            FROM marts.collections
            GROUP BY user_id
        ),
        tops AS (
            SELECT user_id, list(game_id ORDER BY rank) AS games
            FROM marts.recommendations
            WHERE rank <= $k
            GROUP BY user_id
        )
        SELECT tops.user_id, $night_id AS night_id, $run_id AS run_id, fingerprints.fingerprint, tops.games,
               $generated_at::TIMESTAMPTZ AS generated_at
        FROM tops LEFT JOIN fingerprints USING (user_id)
        """,
        {"k": k, "night_id": night_id, "run_id": run_id, "generated_at": generated_at},
    )
    previous = con.execute(
        "SELECT arg_max(night_id, generated_at) FROM marts.served_top10 WHERE night_id IS DISTINCT FROM ?",
        [night_id],
    ).fetchall()[0][0]
    stability, compared = con.execute(
        """
        WITH pairs AS (
            SELECT len(list_intersect(n.games, p.games)) AS shared, len(n.games) AS a, len(p.games) AS b
            FROM lists_tonight n JOIN marts.served_top10 p USING (user_id)
            WHERE p.night_id = ? AND n.fingerprint = p.fingerprint
        )
        SELECT avg(shared / (a + b - shared)), count(*) FROM pairs
        """,
        [previous],
    ).fetchall()[0]
    n_members, n_listed_games = con.execute(
        "SELECT count(*), (SELECT count(DISTINCT g) FROM (SELECT unnest(games) AS g FROM lists_tonight)) "
        "FROM lists_tonight"
    ).fetchall()[0]
    n_games = con.execute("SELECT count(*) FROM marts.games").fetchall()[0][0]
    row = {
        "run_id": run_id, "night_id": night_id, "model": model, "generated_at": generated_at, "k": k,
        "n_members": int(n_members), "coverage": n_listed_games / n_games if n_games else None,
        "stability": float(stability) if stability is not None else None,
        "n_compared": int(compared), "previous_night_id": previous,
    }
    try:
        with transaction(con):
            con.execute("DELETE FROM marts.served_top10")
            con.execute("INSERT INTO marts.served_top10 BY NAME SELECT * FROM lists_tonight")
            con.execute(
                "INSERT OR REPLACE INTO marts.recommendation_runs BY NAME SELECT $run_id AS run_id, "
                "$night_id AS night_id, $model AS model, $generated_at::TIMESTAMPTZ AS generated_at, $k AS k, "
                "$n_members AS n_members, $coverage AS coverage, $stability AS stability, "
                "$n_compared AS n_compared, $previous_night_id AS previous_night_id",
                row,
            )
    finally:
        con.execute("DROP TABLE IF EXISTS lists_tonight")
    return row
