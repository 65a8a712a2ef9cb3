"""Loading into DuckDB: rows per second from Arrow/Polars frames, on the paths the pipeline uses.

Four figures, each into a fresh warehouse file:

* ``marts``: `warehouse.model_marts.replace_table` of a ``marts.recommendations``-shaped
  frame, the pipeline's bulk load (the night writes ~9M recommendation rows so, and
  similar games and the next-to-play shelf the same way): one `DELETE` and one
  `INSERT … BY NAME SELECT` from the registered Arrow table, in one transaction.
  The target (≥ 1M rows/s) is read on this one.
* ``bulk``: `CREATE TABLE AS` from the same kind of Arrow frame, DuckDB's columnar load
  with nothing to check: the ceiling the others are measured against.
* ``upsert``: one `INSERT OR REPLACE … SELECT` of typed ``raw.collection_entries`` rows
  into the keyed raw table: the primary key (user, game) makes a re-crawl replace
  rather than duplicate. Building that index and checking each row against it is what
  costs (measured under load at 1M rows: CTAS 0.85M rows/s, plain `INSERT` into the keyed
  table 0.32M, `INSERT OR REPLACE` 0.19M): the crawl pays it 2,000 rows at a time.

Why ``marts`` is not faster than ``bulk``: both are DuckDB's columnar append of an Arrow
scan (two threads here), compressed and checkpointed into the file at commit; the DELETE
of an empty table is free. `SET preserve_insertion_order = false` bought ~25 % on both
under load, but it lets every query on the connection return rows in any order, so the
warehouse does not set it.
* ``writer``: the crawl's own path, `RawWriter.add` per item dict and a flush every
  ``RAW_BATCH`` items; bounded by the crawl's pages per second, not by DuckDB.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import polars as pl

from warehouse.model_marts import replace_table
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


def recommendation_rows(n_rows: int, seed: int = 0) -> pl.DataFrame:
    """``marts.recommendations`` rows as discovery hands them over: 100 per member, best first."""
    rng = np.random.default_rng(seed)
    reasons = pl.Series(["「カタン」が好きなあなたに", "「カタン」に興味があるあなたに", "人気のゲーム"])
    return pl.DataFrame(
        {
            "user_id": pl.Series(np.arange(n_rows) // 100).cast(pl.String),
            "rank": pl.Series(np.arange(n_rows) % 100 + 1).cast(pl.Int32),
            "game_id": "game-" + pl.Series(rng.integers(0, 25_000, n_rows)).cast(pl.String),
            "score": rng.random(n_rows),
            "model": pl.repeat("ease", n_rows, eager=True),
            "run_id": pl.repeat("20260101T000000", n_rows, eager=True),
            "reason": reasons.gather(rng.integers(0, len(reasons), n_rows)),
            "generated_at": pl.repeat(datetime(2026, 1, 1, tzinfo=timezone.utc), n_rows, eager=True)
            .cast(pl.Datetime("us", "UTC")),
            "night_id": pl.repeat("night-1", n_rows, eager=True),
        }
    )


def _rate(tmp: Path, name: str, n_rows: int, load: Callable[[duckdb.DuckDBPyConnection], object]) -> int:
    """Rows per second of one load into a fresh warehouse file (schemas made untimed)."""
    con = duckdb.connect(str(tmp / f"load-{name}.duckdb"))  # a file "marts.duckdb" would shadow the schema
    try:
        con.execute("SET enable_progress_bar = false")
        ensure_raw_schema(con)
        started = time.perf_counter()
        load(con)
        return round(n_rows / (time.perf_counter() - started))
    finally:
        con.close()


def load_rates(n_rows: int = 2_000_000, writer_rows: int = 200_000) -> dict[str, Any]:
    """Rows per second of each path, ``n_rows`` each (the writer: ``writer_rows``)."""
    recs = recommendation_rows(n_rows)
    entries = collection_rows(n_rows).with_columns(
        pl.lit("bench").alias("run_id"),
        pl.lit(datetime.now(timezone.utc)).cast(pl.Datetime("us", "UTC")).alias("fetched_at"),
    )

    def bulk(con: duckdb.DuckDBPyConnection) -> None:
        con.register("frame", recs.to_arrow())
        con.execute("CREATE TABLE bulk AS SELECT * FROM frame")

    def upsert(con: duckdb.DuckDBPyConnection) -> None:
        con.register("batch", entries.to_arrow())
        con.execute("INSERT OR REPLACE INTO raw.collection_entries BY NAME SELECT * FROM batch")

    rows = entries.drop("run_id", "fetched_at").head(writer_rows).to_dicts()

    def writer(con: duckdb.DuckDBPyConnection) -> None:
        raw = RawWriter(con, run_id="bench", batch_size=RAW_BATCH)
        for row in rows:
            raw.add("collection_entry", row)
        raw.flush()

    with tempfile.TemporaryDirectory(prefix="bodoge-load-") as tmp:
        work = Path(tmp)
        figures = {
            "marts_rows_per_s": _rate(work, "marts", n_rows, lambda con: replace_table(con, "recommendations", recs)),
            "bulk_rows_per_s": _rate(work, "bulk", n_rows, bulk),
            "upsert_rows_per_s": _rate(work, "upsert", n_rows, upsert),
            "writer_rows_per_s": _rate(work, "writer", len(rows), writer),
        }
    return {"rows": n_rows, **figures, "writer_rows": len(rows), "writer_batch": RAW_BATCH}
