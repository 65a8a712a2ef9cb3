"""What a night of crawling must land, checked against the sample site's truth: shared by the night tests.

Why a module: the incremental nights and the one-page-listing nights prove the same
thing (every collection row equal to that night's truth, no trace of a private member),
so they read the warehouse through the same few queries.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from samplesite import truth_frames
from samplesite.model import Site
from warehouse.db import connect


def frame(warehouse: Path, sql: str, params: list | None = None) -> pl.DataFrame:
    """A query's rows, read through a read-only connection closed right after."""
    with connect(warehouse, read_only=True) as con:
        return con.sql(sql, params=params).pl() if params else con.sql(sql).pl()


def collections_differ(warehouse: Path, night: Site) -> int:
    """Rows in the truth but not the marts, plus rows in the marts but not the truth."""
    truth = truth_frames(night)["collections"].with_columns(
        pl.col("rating").fill_null(0), pl.col("updated_at").str.to_datetime("%Y-%m-%dT%H:%M:%S%z").dt.epoch("s"))
    got = frame(warehouse, "SELECT user_id, game_id, have, played, favorite, watching, rating, updated_at "
                           "FROM marts.collections").with_columns(
        pl.col("rating").cast(pl.Int64).fill_null(0), pl.col("updated_at").dt.epoch("s"))
    cols = truth.columns
    return truth.join(got.select(cols), on=cols, how="anti").height + got.select(cols).join(truth, on=cols, how="anti").height


def trace_of(warehouse: Path, user_ids: list[str]) -> int:
    """How many rows anywhere still name one of `user_ids` (a private member must leave none)."""
    with connect(warehouse, read_only=True) as con:
        n = 0
        for sql in ("SELECT count(*) FROM raw.collection_entries WHERE list_contains(?, user_id)",
                    "SELECT count(*) FROM raw.members WHERE list_contains(?, user_id)",
                    "SELECT count(*) FROM raw.listing_crawls WHERE list_contains(?, key)",
                    "SELECT count(*) FROM raw.crawl_frontier WHERE list_contains(?, key)",
                    "SELECT count(*) FROM raw.posts WHERE list_contains(?, author_user_id)",
                    "SELECT count(*) FROM marts.members WHERE list_contains(?, user_id)"):
            n += con.execute(sql, [user_ids]).fetchone()[0]
        return n


def models_naming(models: Path, user: str) -> list[str]:
    """Files under a models folder that still name `user` (Parquet with a user_id column)."""
    import polars as pl

    named = []
    for path in sorted(models.rglob("*.parquet")):
        if "user_id" in pl.read_parquet_schema(path) and user in set(pl.read_parquet(path)["user_id"].cast(pl.String)):
            named.append(str(path.relative_to(models)))
    return named
