"""Building staging views and marts inside DuckDB, from the raw tables.

Why plain SQL files run in a fixed order: each file is one table (`source → renamed →
final select`), readable on its own, and every statement is `CREATE OR REPLACE`, so a
build is idempotent and a re-run leaves identical marts.
"""

from __future__ import annotations

import logging
import time

import duckdb

from warehouse.db import SQL_DIR, run_sql_file, scalar
from warehouse.raw import ensure_raw_schema

log = logging.getLogger("bodoge.warehouse")

STAGING = [
    "stg_games", "stg_game_summaries", "stg_collections", "stg_members",
    "stg_posts", "stg_cafe_games", "stg_game_counters",
]
# Order matters: later marts read earlier ones.
MARTS = ["games", "collections", "cafe_games", "members", "game_popularity", "member_profiles", "cafe_coverage"]


def build_staging(con: duckdb.DuckDBPyConnection) -> None:
    """(Re)create the staging views over the raw tables."""
    ensure_raw_schema(con)
    con.execute("CREATE SCHEMA IF NOT EXISTS staging")
    for name in STAGING:
        run_sql_file(con, SQL_DIR / "staging" / f"{name}.sql")


def build_mart(con: duckdb.DuckDBPyConnection, name: str) -> int:
    """(Re)build one mart; returns its row count."""
    con.execute("CREATE SCHEMA IF NOT EXISTS marts")
    run_sql_file(con, SQL_DIR / "marts" / f"{name}.sql")
    return int(scalar(con, f"SELECT count(*) FROM marts.{name}") or 0)


def build_all(con: duckdb.DuckDBPyConnection, marts: list[str] | None = None) -> dict[str, int]:
    """Staging, then every mart in dependency order, in one transaction; row counts per mart."""
    counts: dict[str, int] = {}
    con.execute("BEGIN TRANSACTION")
    try:
        build_staging(con)
        for name in marts or MARTS:
            started = time.perf_counter()
            counts[name] = build_mart(con, name)
            log.info("mart %s: %s rows in %.2fs", name, f"{counts[name]:,}", time.perf_counter() - started)
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    return counts
