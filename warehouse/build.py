"""Building staging views and marts inside DuckDB, from the raw tables.

Why plain SQL files run in a fixed order: each file is one table (`source → renamed →
final select`), readable on its own, and every statement is `CREATE OR REPLACE`, so a
build is idempotent and a re-run leaves identical marts. `CREATE OR REPLACE` also drops a
table's comments, so each view and mart gets its descriptions again right after it is
built (`warehouse.comments`), in the same transaction.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import duckdb

from warehouse.comments import apply_comments
from warehouse.db import SQL_DIR, WarehouseError, connect, run_sql_file, scalar, transaction, verify_intact
from warehouse.raw import ensure_raw_schema

log = logging.getLogger("bodoge.warehouse")

# What each staging view and mart reads ("schema.table"), in build order: the orchestrator
# draws its asset graph from this, and a build runs the files in this order.
STAGING_DEPS: dict[str, list[str]] = {
    "stg_games": ["raw.games", "raw.pages"],
    "stg_game_summaries": ["raw.game_summaries", "raw.pages"],
    "stg_collections": ["raw.collection_entries"],
    "stg_members": ["raw.members", "raw.listing_crawls"],
    "stg_posts": ["raw.posts"],
    "stg_cafe_games": ["raw.cafe_games"],
    "stg_game_counters": ["raw.game_counters", "raw.crawl_runs"],
}
MART_DEPS: dict[str, list[str]] = {
    "games": ["staging.stg_games", "staging.stg_game_summaries"],
    "collections": ["staging.stg_collections"],
    "cafe_games": ["staging.stg_cafe_games"],
    "members": ["staging.stg_members", "marts.collections"],
    "game_popularity": ["marts.games", "marts.collections", "staging.stg_game_counters"],
    "member_profiles": ["marts.members", "marts.collections", "marts.games"],
    "cafe_coverage": ["marts.cafe_games", "marts.collections"],
    "play_time_buckets": [],
    # BoardGameGeek, kept apart from the site (docs/bgg.md); empty until a BGG sync ran.
    "bgg_games": ["marts.games", "raw.bgg_things", "raw.bgg_game_matches"],
    "bgg_interactions": ["marts.bgg_games", "marts.members", "raw.bgg_collection_items", "raw.bgg_member_links"],
}
STAGING = list(STAGING_DEPS)
MACROS_SQL = SQL_DIR / "macros.sql"
"""The filter rules as macros of `marts` (playable_with, fits_in, age_plausible): stated once, in SQL."""
MARTS = list(MART_DEPS)


def build_staging(con: duckdb.DuckDBPyConnection, views: list[str] | None = None) -> None:
    """(Re)create staging views over the raw tables (all of them by default), and describe
    them and the raw tables (which the crawl creates without descriptions)."""
    ensure_raw_schema(con)
    con.execute("CREATE SCHEMA IF NOT EXISTS staging")
    names = views or STAGING
    for name in names:
        run_sql_file(con, SQL_DIR / "staging" / f"{name}.sql")
    raw = [r[0] for r in con.execute(
        "SELECT 'raw.' || table_name FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'raw'").fetchall()]
    apply_comments(con, tables=raw + [f"staging.{name}" for name in names])


def build_mart(con: duckdb.DuckDBPyConnection, name: str) -> int:
    """(Re)build one mart, with its descriptions; returns its row count."""
    run_sql_file(con, MACROS_SQL)  # the filter rules the marts use (and readers find beside them)
    run_sql_file(con, SQL_DIR / "marts" / f"{name}.sql")
    apply_comments(con, tables=[f"marts.{name}"])
    return int(scalar(con, f"SELECT count(*) FROM marts.{name}") or 0)


def build_all(con: duckdb.DuckDBPyConnection, marts: list[str] | None = None) -> dict[str, int]:
    """Staging, then every mart in dependency order, in one transaction; row counts per mart."""
    counts: dict[str, int] = {}
    with transaction(con):
        build_staging(con)
        for name in marts or MARTS:
            started = time.perf_counter()
            counts[name] = build_mart(con, name)
            log.info("mart %s: %s rows in %.2fs", name, f"{counts[name]:,}", time.perf_counter() - started)
    return counts


def open_crawled(path: Path | str) -> duckdb.DuckDBPyConnection:
    """Open for a build a warehouse that a crawl has written; a one-line WarehouseError otherwise.

    Why: opening for writing creates a missing file, so `bodoge build --data-dir <typo>`
    would build empty marts in a new warehouse and report every check ok. A build only
    makes sense over raw tables a crawl wrote.
    """
    path = Path(path)
    hint = "run `bodoge run` or `bodoge crawl` first"
    if not path.is_file():
        what = "is a directory, not a warehouse file" if path.is_dir() else "does not exist"
        raise WarehouseError(f"no warehouse to build: {path} {what} ({hint})")
    con = connect(path)
    try:
        verify_intact(con, path)
        crawled = scalar(
            con,
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'raw' AND table_name = 'crawl_runs'",
        )
        if not crawled:
            raise WarehouseError(f"no raw tables in {path}: nothing was crawled into it ({hint})")
    except BaseException:
        con.close()
        raise
    return con
