"""A real-size warehouse for the scale benchmark, straight into the raw tables.

Why not crawl it: a 25,000-game, 100,000-member site is ~120,000 pages, hours of polite
crawling; the crawl is measured on its own (`benchmarks.crawl`). The post-crawl night only
reads the raw tables, so the benchmark fills them with what a perfect crawl of the sample
site would write: the site generator's ground truth (taste clusters, long-tail
popularity, Japanese names and overviews, rule/review posts with bodies, private and
empty members, cafes), loaded from Arrow frames with one `INSERT … SELECT` per table.

The site is generated without its planted faults (``faults=False``): malformed and cut
pages exist to test the crawler, which left ~0.6 % of the games out of the raw tables,
so a benchmark asked for 25,000 games measured 24,850. Without them the raw tables hold
exactly the games asked for (the members' collections are the same draw).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from samplesite.generator import generate_site
from samplesite.model import Site
from samplesite.truth import truth_frames
from warehouse.db import registered
from warehouse.raw import RAW_TABLES, ensure_raw_schema

RUN_ID = "scale-benchmark"
BASE_URL = "http://127.0.0.1/scale-benchmark"


def _typed(kind: str, frame: pl.DataFrame, fetched_at: datetime) -> pl.DataFrame:
    """The frame in the raw table's schema (missing columns null), stamped with the run."""
    schema = RAW_TABLES[kind].schema
    columns = [
        (pl.col(name) if name in frame.columns else pl.lit(None)).cast(dtype).alias(name)
        for name, dtype in schema.items()
    ]
    return frame.select(columns).with_columns(
        pl.lit(RUN_ID).alias("run_id"),
        pl.lit(fetched_at).cast(pl.Datetime("us", "UTC")).alias("fetched_at"),
    )


def _insert(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame) -> int:
    with registered(con, "frame", frame.to_arrow()):
        con.execute(f"INSERT OR REPLACE INTO {table} BY NAME SELECT * FROM frame")
    return frame.height


def raw_frames(site: Site) -> dict[str, pl.DataFrame]:
    """What a perfect crawl of ``site`` writes, by item kind (untyped, unstamped).

    The truth frames carry neither overviews nor post bodies; both feed the content
    model, so they are added from the site's own records (a body is the post's sections,
    as the parser's block text reads them).
    """
    truth = truth_frames(site)
    overview = pl.DataFrame(
        {"game_id": [g.game_id for g in site.games], "overview": [g.overview for g in site.games]}
    )
    bodies = pl.DataFrame(
        {
            "post_id": [str(p.post_id) for p in site.posts],
            "body": ["\n".join(f"{h}\n{t}" for h, t in p.sections) for p in site.posts],
        }
    )
    empty = set(truth["empty_users"]["user_id"].to_list())
    entries = truth["collections"].group_by("user_id").len("n_entries")
    listings = truth["members"].join(entries, on="user_id", how="left").select(
        pl.lit("collection").alias("listing"),
        pl.col("user_id").alias("key"),
        pl.when(pl.col("user_id").is_in(list(empty))).then(pl.lit("empty")).otherwise(pl.lit("public")).alias("status"),
        pl.col("n_entries").fill_null(0),
        ((pl.col("n_entries").fill_null(0) + 19) // 20).clip(1).alias("n_pages"),
    )
    return {
        "game": truth["games"].join(overview, on="game_id", how="left"),
        "game_summary": truth["games"],
        "post": truth["posts"].join(bodies, on="post_id", how="left"),
        "member": truth["members"],
        "collection_entry": truth["collections"],
        "cafe_game": truth["cafe_games"],
        "listing_crawl": listings,
    }


def load_warehouse(path: Path, *, games: int, members: int, seed: int = 0) -> dict[str, Any]:
    """Generate the site, write its raw tables into ``path``, record a finished crawl run.

    Returns the row count per raw table.
    """
    site = generate_site(n_games=games, n_users=members, seed=seed, faults=False)
    frames = raw_frames(site)
    del site
    now = datetime.now(timezone.utc)
    counts: dict[str, Any] = {}
    with duckdb.connect(str(path)) as con:
        ensure_raw_schema(con)
        con.execute("BEGIN TRANSACTION")
        for kind, frame in frames.items():
            typed = _typed(kind, frame, now)
            counts[RAW_TABLES[kind].name] = _insert(con, RAW_TABLES[kind].name, typed)
            if kind == "game":
                counters = typed.select("game_id", "run_id", "n_watching", "n_played", "n_favorite", "n_have", "fetched_at")
                counts["raw.game_counters"] = _insert(con, "raw.game_counters", counters)
        con.execute(
            "INSERT OR REPLACE INTO raw.crawl_runs (run_id, base_url, started_at, finished_at, status, stats) "
            "VALUES (?, ?, ?, ?, 'finished', ?)",
            [RUN_ID, BASE_URL, now, now, json.dumps({"source": "benchmarks.scale"})],
        )
        con.execute("COMMIT")
    return counts
