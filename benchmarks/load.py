"""Loading into DuckDB: rows per second into a raw table, from Arrow as the crawl does.

Three figures, from the cheapest to the crawl's own path. ``bulk``: `CREATE TABLE AS`
from an Arrow frame (DuckDB's columnar load, no key to maintain). ``upsert``: one
`INSERT OR REPLACE … SELECT` of the whole typed frame into ``raw.collection_entries``,
whose primary key (user, game) makes a re-crawl replace rather than duplicate; keeping
that index is what costs. ``writer``: `RawWriter.add` per item and a flush every
``RAW_BATCH`` items, which also turns each item dict into a frame row.
"""

from __future__ import annotations

import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import polars as pl

from warehouse.raw import RAW_TABLES, RawWriter, ensure_raw_schema

RAW_BATCH = 2_000
"""`RawWriter`'s default batch size (what a crawl flushes at a time)."""


def collection_rows(n_rows: int, seed: int = 0) -> pl.DataFrame:
    """Typed ``raw.collection_entries`` rows for ``n_rows`` distinct (user, game) keys."""
    rng = np.random.default_rng(seed)
    per_user = 40
    users = np.arange(n_rows) // per_user
    games = (np.arange(n_rows) % per_user) * 97 + users % 97
    frame = pl.DataFrame(
        {
            "user_id": pl.Series(users).cast(pl.String),
            "game_id": "game-" + pl.Series(games).cast(pl.String),
            "have": rng.random(n_rows) < 0.4,
            "played": rng.random(n_rows) < 0.6,
            "favorite": rng.random(n_rows) < 0.1,
            "watching": rng.random(n_rows) < 0.3,
            "rating": pl.Series(rng.integers(0, 6, n_rows)).replace(0, None).cast(pl.Int32),
            "updated_at": pl.repeat("2026-01-01T00:00:00+09:00", n_rows, eager=True),
        }
    )
    return frame.select([pl.col(c).cast(t) for c, t in RAW_TABLES["collection_entry"].schema.items()])


def load_rates(n_rows: int = 1_000_000, writer_rows: int = 200_000) -> dict[str, Any]:
    """Rows per second of both paths into fresh warehouses."""
    frame = collection_rows(n_rows)
    stamped = frame.with_columns(
        pl.lit("bench").alias("run_id"),
        pl.lit(datetime.now(timezone.utc)).cast(pl.Datetime("us", "UTC")).alias("fetched_at"),
    )
    with tempfile.TemporaryDirectory(prefix="bodoge-load-") as tmp:
        con = duckdb.connect(str(Path(tmp) / "frame.duckdb"))
        con.execute("SET enable_progress_bar = false")
        ensure_raw_schema(con)
        started = time.perf_counter()
        con.register("batch", stamped.to_arrow())
        con.execute("CREATE TABLE bulk AS SELECT * FROM batch")
        bulk_seconds = time.perf_counter() - started
        started = time.perf_counter()
        con.execute("INSERT OR REPLACE INTO raw.collection_entries BY NAME SELECT * FROM batch")
        frame_seconds = time.perf_counter() - started
        con.close()

        con = duckdb.connect(str(Path(tmp) / "writer.duckdb"))
        ensure_raw_schema(con)
        writer = RawWriter(con, run_id="bench", batch_size=RAW_BATCH)
        rows = frame.head(writer_rows).to_dicts()
        started = time.perf_counter()
        for row in rows:
            writer.add("collection_entry", row)
        writer.flush()
        writer_seconds = time.perf_counter() - started
        con.close()
    return {
        "rows": n_rows,
        "bulk_rows_per_s": round(n_rows / bulk_seconds),
        "upsert_rows_per_s": round(n_rows / frame_seconds),
        "writer_rows": len(rows),
        "writer_batch": RAW_BATCH,
        "writer_rows_per_s": round(len(rows) / writer_seconds),
    }
