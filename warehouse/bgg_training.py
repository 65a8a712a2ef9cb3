"""Linked members' BoardGameGeek collections as extra training rows, and only that.

Why a separate step: BGG rows (`marts.bgg_interactions`) inform what the models learn of
a member and which games discovery leaves out (a game they own on BGG is not news to
them), but they are not the member's site collection: the site's own row wins wherever
both exist, and the shelves exported as the member's (play next, from the watch list)
hold only site rows. A member who turned private or was unlinked has no BGG rows
(`marts.bgg_interactions` joins the public members and the latest links file).
"""

from __future__ import annotations

import duckdb
import polars as pl

TRAINING_ROWS_SQL = """
SELECT user_id, game_id, have, played, favorite, watching, rating, updated_at FROM marts.collections
UNION ALL BY NAME
SELECT b.user_id, b.game_id, b.have, b.played, b.favorite, b.watching, b.rating, NULL::TIMESTAMPTZ AS updated_at
FROM marts.bgg_interactions b
ANTI JOIN marts.collections c USING (user_id, game_id)
"""
"""Site rows, plus BGG rows where the site has none; BGG rows have no update time (the time
split counts them as oldest, so they train and are never held out as a member's next step)."""


def has_bgg_rows(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the warehouse holds the BGG interactions mart (a warehouse older than it does not)."""
    return bool(con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'marts' "
                            "AND table_name = 'bgg_interactions' AND database_name = current_database()").fetchall()[0][0])


def training_rows(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every member's interactions for training: `marts.collections` columns, BGG rows added."""
    if not has_bgg_rows(con):
        return con.sql("SELECT user_id, game_id, have, played, favorite, watching, rating, updated_at "
                       "FROM marts.collections").pl()
    return con.sql(TRAINING_ROWS_SQL).pl()


def member_rows(con: duckdb.DuckDBPyConnection, user_id: str) -> pl.DataFrame:
    """One member's training rows as the night ranked them (`bodoge recommend`'s re-ranking): their
    site rows and their BGG rows, told apart by the Boolean column `site` (models.discovery.members)."""
    site = con.sql("SELECT * FROM marts.collections WHERE user_id = ?", params=[user_id]).pl()
    if not has_bgg_rows(con):
        return site.with_columns(pl.lit(True).alias("site"))
    bgg = con.sql("SELECT b.user_id, b.game_id, b.have, b.played, b.favorite, b.watching, b.rating, false AS site "
                  "FROM marts.bgg_interactions b ANTI JOIN marts.collections c USING (user_id, game_id) "
                  "WHERE b.user_id = ?", params=[user_id]).pl()
    return pl.concat([site.with_columns(pl.lit(True).alias("site")), bgg], how="diagonal_relaxed")


def site_rows_only(shelf: pl.DataFrame, collections: pl.DataFrame) -> pl.DataFrame:
    """A shelf (play next, watch list) cut to the games on the member's site collection."""
    if shelf.is_empty():
        return shelf
    return shelf.join(collections.select("user_id", "game_id").unique(), on=["user_id", "game_id"], how="semi")
