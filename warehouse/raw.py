"""The raw layer: crawled items land here in batches, exactly once per natural key.

Why this shape:
- Items arrive as dicts; each batch becomes one Polars frame with an explicit schema and
  is upserted with a single `INSERT OR REPLACE ... SELECT` (never row by row).
- Every row carries the `run_id` and `fetched_at` of the crawl that last saw it, so a
  re-run replaces rather than duplicates, and staging can tell fresh from stale.
- A *complete* crawl of a listing (a member's collection, a cafe's games) deletes the
  entries that listing no longer shows; an incomplete one deletes nothing, so a server
  error mid-crawl never loses data.
- A private member leaves no trace: their entries, directory row and listing record are
  deleted and their posts lose the author id, in this batch and for the rest of the run.
  With an `eraser` (`warehouse.privacy.erasure.Eraser`, the crawl's), the member is journalled the
  moment their login page is read, the batch is committed at once when the published
  night shows them, and the published night and export bundles are cut after the commit.
- A directory row (`member`) is held in memory until that member's collection outcome in
  this run shows a real collection page; only then is it written. The directory lists
  private members too, and a crawl killed between the directory page and the login page
  must not leave their id and name behind: what is held dies with the process.
- A post names its author only once the author's collection is known public (a complete
  listing in an earlier run, or any outcome but private in this one); until then it is
  written without the author, who is filled in then. Why: an incremental night revalidates posts whose
  author turned private nights ago and is no longer read, and must not bring the id back.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from warehouse import crawl_runs
from warehouse.db import registered, run_sql_file, scalar, sql_files, transaction
from warehouse.privacy.erase import purge_members
from warehouse.privacy.public import shown_in_earlier_runs, shows_collection

log = logging.getLogger("bodoge.warehouse")


@dataclass(frozen=True, slots=True)
class RawTable:
    """Where one item kind lands: table name, its natural key and its column types."""

    name: str
    key: tuple[str, ...]
    schema: dict[str, pl.DataType]  # column -> type, from the DDL (run_id, fetched_at aside)
    rename: tuple[tuple[str, str], ...] = ()  # item field -> column, where they differ


#: Where each item kind lands (`raw.<table>`), and item fields named unlike their column.
ITEM_TABLES: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "game_summary": ("game_summaries", ()),
    "game": ("games", ()),
    "post": ("posts", ()),
    "member": ("members", ()),
    "collection_entry": ("collection_entries", ()),
    "cafe_game": ("cafe_games", ()),
    "listing_crawl": ("listing_crawls", ()),
    "quarantine": ("quarantine", ()),
    "frontier": ("crawl_frontier", (("page_kind", "kind"),)),
    "page_visit": ("pages", (("page_kind", "kind"),)),
}
#: DuckDB column types of the raw DDL, as Polars types.
_POLARS: dict[str, Any] = {"VARCHAR": pl.String, "INTEGER": pl.Int32, "BIGINT": pl.Int64, "BOOLEAN": pl.Boolean,
           "VARCHAR[]": pl.List(pl.String), "DOUBLE": pl.Float64, "INTEGER[]": pl.List(pl.Int32), "TIMESTAMP WITH TIME ZONE": pl.Datetime("us", "UTC"), "JSON": pl.String}
_STAMPS = ("run_id", "fetched_at")  # set by the writer, not by items
def raw_sql_files() -> list[Path]:
    """The raw layer's DDL, one file per table (`warehouse/sql/raw/*.sql`), in name order."""
    return sql_files("raw")


def _raw_tables() -> dict[str, RawTable]:
    """Every item kind's table, key and column types, read from the DDL files.

    Why: the SQL files are the one declaration of the raw columns; the Polars schemas the
    writer builds its frames with are derived here (by creating the tables in an
    in-memory DuckDB and reading its catalogue), so the two can never disagree.
    """
    with duckdb.connect() as con:
        ensure_raw_schema(con)
        columns: dict[str, dict[str, pl.DataType]] = defaultdict(dict)
        for table, column, dtype in con.execute(
                "SELECT table_name, column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = 'raw' ORDER BY table_name, ordinal_position").fetchall():
            if column not in _STAMPS:
                columns[table][column] = _POLARS[dtype]
        keys = {t: tuple(cols) for t, cols in con.execute(
            "SELECT table_name, constraint_column_names FROM duckdb_constraints() "
            "WHERE schema_name = 'raw' AND constraint_type = 'PRIMARY KEY'").fetchall()}
    return {kind: RawTable(f"raw.{table}", keys[table], columns[table], rename)
            for kind, (table, rename) in ITEM_TABLES.items()}


# The frontier first (a page queued and read in one batch must leave it), data tables next,
# page visits and listing outcomes last: a listing's deletions must see its entries.
_LAST = ("page_visit", "listing_crawl")
_WRITE_ORDER = ["frontier"] + [k for k in ITEM_TABLES if k not in ("frontier", *_LAST)] + list(_LAST)
_LISTING_TABLE = {"collection": ("raw.collection_entries", "user_id"), "space": ("raw.cafe_games", "space_slug")}


def ensure_raw_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Create the `raw` schema and every raw table (one SQL file per table); idempotent."""
    con.execute("CREATE SCHEMA IF NOT EXISTS raw")
    for path in raw_sql_files():
        run_sql_file(con, path)


RAW_TABLES: dict[str, RawTable] = _raw_tables()
_COUNTERS = ("n_watching", "n_played", "n_favorite", "n_have")


def frame_for(kind: str, rows: list[dict[str, Any]], *, run_id: str, fetched_at: datetime) -> pl.DataFrame:
    """Rows of one kind as a typed frame, one row per natural key (the last one wins)."""
    table = RAW_TABLES[kind]
    source = {col: field for field, col in table.rename}
    frame = pl.DataFrame(
        [{col: row.get(source.get(col, col)) for col in table.schema} for row in rows],
        schema=table.schema, orient="row",
    )
    frame = frame.unique(subset=list(table.key), keep="last", maintain_order=True)
    return frame.with_columns(
        pl.lit(run_id).alias("run_id"),
        pl.lit(fetched_at).cast(pl.Datetime("us", "UTC")).alias("fetched_at"),
    )


class RawWriter:
    """Buffers items by kind and writes them to the raw tables in transactional batches."""

    def __init__(self, con: duckdb.DuckDBPyConnection, *, run_id: str, batch_size: int = 2000,
                 eraser: Any = None, night_id: str | None = None) -> None:
        self.con = con
        self.night_id = night_id  # the night whose crawl this is (raw.crawl_runs.night_id), if any
        self.eraser = eraser
        self._urgent = False  # a member the published night shows was found private: commit now
        self.run_id = run_id
        self.batch_size = batch_size
        self._buffers: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self._buffered = 0
        self.private_users: set[str] = set()
        self._shown: set[str] = set()  # members whose collection this run showed (not private)
        self._held_members: dict[str, dict[str, Any]] = {}
        self.written: dict[str, int] = defaultdict(int)
        ensure_raw_schema(con)
        self._public = shown_in_earlier_runs(con)
        self._author_pending: dict[str, set[str]] = defaultdict(set)  # author -> posts written without them
        self._author_release: dict[str, str] = {}  # post_id -> author shown since: filled in at the next flush

    # -- runs -------------------------------------------------------------------------
    def start_run(self, *, base_url: str) -> None:
        """Record the run as running; other runs still `running` died, so they become interrupted."""
        crawl_runs.start_run(self.con, run_id=self.run_id, base_url=base_url, night_id=self.night_id)

    def finish_run(self, *, status: str, stats: dict[str, Any], signals: list[dict[str, Any]] | None = None) -> None:
        """Close the run record with its outcome and stats, and what it measured of the site's signals."""
        with transaction(self.con):
            crawl_runs.finish_run(self.con, run_id=self.run_id, status=status, stats=stats)
            crawl_runs.record_signals(self.con, run_id=self.run_id, rows=signals or [])

    @property
    def held_members(self) -> int:
        """Directory rows still held: their collection outcome has not arrived (yet)."""
        return len(self._held_members)

    # -- items ------------------------------------------------------------------------
    def add(self, kind: str, row: dict[str, Any]) -> None:
        """Buffer one item (as a dict of its fields); flushes when the batch is full."""
        if kind not in RAW_TABLES:
            raise ValueError(f"unknown item kind {kind!r}")
        if kind == "member" and row["user_id"] not in self._shown:
            if row["user_id"] not in self.private_users:
                self._held_members[row["user_id"]] = row
            return
        if kind == "listing_crawl" and row["listing"] == "collection":
            self._collection_outcome(row)
        if kind == "post":
            row = self._post_author(row)
        self._append(kind, row)
        if self._urgent:
            self.flush()

    def flush(self) -> dict[str, int]:
        """Write everything buffered in one transaction; returns rows written per kind."""
        if not self._buffered:
            return {}
        fetched_at = _now()
        counts: dict[str, int] = {}
        with transaction(self.con):
            for kind in _WRITE_ORDER:
                rows = self._buffers.get(kind)
                if not rows:
                    continue
                frame = self._scrub(kind, frame_for(kind, rows, run_id=self.run_id, fetched_at=fetched_at))
                if frame.height:
                    self._upsert(RAW_TABLES[kind].name, frame, keep_first=kind == "frontier")
                    if kind == "game":
                        self._record_counters(frame)
                    if kind == "listing_crawl":
                        self._apply_listing_outcomes(frame)
                    if kind in _LAST:
                        self._leave_frontier(kind, frame)
                counts[kind] = frame.height
            self._release_authors()
            self._purge_private()
        for kind, n in counts.items():
            self.written[kind] += n
        self._buffers.clear()
        self._buffered = 0
        self._urgent = False
        if self.eraser is not None:
            self.eraser.committed()  # raw has lost them: now the published night and the bundles
        return counts

    def clear_quarantine(self, urls: set[str]) -> int:
        """Forget quarantined URLs that parsed cleanly in this run (the page was fixed)."""
        if not urls:
            return 0
        with registered(self.con, "ok_urls", pl.DataFrame({"url": sorted(urls)}).to_arrow()):
            n = scalar(
                self.con,
                "DELETE FROM raw.quarantine WHERE run_id <> ? AND url IN (SELECT url FROM ok_urls)",
                [self.run_id],
            )
        return int(n or 0)

    # -- internals --------------------------------------------------------------------
    def _collection_outcome(self, row: dict[str, Any]) -> None:
        """Privacy known: a private member's held row is dropped, a shown one is released."""
        user = row["key"]
        if row["status"] == "private":
            self.private_users.add(user)
            self._held_members.pop(user, None)
            self._author_pending.pop(user, None)
            if self.eraser is not None and self.eraser.learned(user):
                self._urgent = True
        else:  # any outcome but the login page: named as before (a later private one still purges)
            for post_id in self._author_pending.pop(user, ()):
                self._author_release[post_id] = user
        if shows_collection(row):
            self._shown.add(user)
            held = self._held_members.pop(user, None)
            if held is not None:
                self._append("member", held)

    def _post_author(self, row: dict[str, Any]) -> dict[str, Any]:
        """The post as written now: without its author until the author is known public."""
        author = row.get("author_user_id")
        if not author or author in self._shown or author in self._public or author in self.private_users:
            return row  # a private author is blanked by _scrub
        self._author_pending[author].add(row["post_id"])
        return {**row, "author_user_id": None}

    def _release_authors(self) -> None:
        """Name the authors shown public since their posts were written."""
        if not self._author_release:
            return
        released = pl.DataFrame({"post_id": list(self._author_release), "author": list(self._author_release.values())})
        with registered(self.con, "released_authors", released.to_arrow()):
            self.con.execute("UPDATE raw.posts SET author_user_id = r.author FROM released_authors r "
                             "WHERE raw.posts.post_id = r.post_id")
        self._author_release.clear()

    def _append(self, kind: str, row: dict[str, Any]) -> None:
        self._buffers[kind].append(row)
        self._buffered += 1
        if self._buffered >= self.batch_size:
            self.flush()

    def _scrub(self, kind: str, frame: pl.DataFrame) -> pl.DataFrame:
        """Drop or blank what would leave a trace of a private member."""
        private = list(self.private_users)
        if not private:
            return frame
        if kind in ("member", "collection_entry"):
            return frame.filter(~pl.col("user_id").is_in(private))
        if kind == "post":
            return frame.with_columns(
                pl.when(pl.col("author_user_id").is_in(private)).then(None)
                .otherwise(pl.col("author_user_id")).alias("author_user_id")
            )
        if kind == "listing_crawl":
            return frame.filter(~((pl.col("listing") == "collection") & pl.col("key").is_in(private)))
        if kind == "frontier":
            return frame.filter(~((pl.col("kind") == "collection") & pl.col("key").is_in(private)))
        return frame

    def _upsert(self, table: str, frame: pl.DataFrame, *, keep_first: bool = False) -> None:
        """Insert or replace by key (`keep_first`: an existing row wins, e.g. a queue time)."""
        with registered(self.con, "batch", frame.to_arrow()):
            verb = "INSERT OR IGNORE" if keep_first else "INSERT OR REPLACE"
            self.con.execute(f"{verb} INTO {table} BY NAME SELECT * FROM batch")

    def _leave_frontier(self, kind: str, frame: pl.DataFrame) -> None:
        """Pages read to a known outcome leave the frontier; failed ones stay for next night."""
        if kind == "page_visit":
            done = frame.filter(pl.col("http_status").is_in([200, 304, 404])).select("kind", "key")
        else:
            done = frame.filter((pl.col("listing") == "collection") & (pl.col("status") != "incomplete")) \
                .select(pl.lit("collection").alias("kind"), "key")
        if done.height == 0:
            return
        with registered(self.con, "done_pages", done.to_arrow()):
            self.con.execute("DELETE FROM raw.crawl_frontier f USING done_pages d "
                             "WHERE f.kind = d.kind AND f.key = d.key")

    def _record_counters(self, games: pl.DataFrame) -> None:
        counters = games.select("game_id", "run_id", *_COUNTERS, "fetched_at")
        self._upsert("raw.game_counters", counters)

    def _apply_listing_outcomes(self, crawls: pl.DataFrame) -> None:
        """A complete listing crawl removes the entries it no longer shows."""
        complete = crawls.filter(pl.col("status").is_in(["public", "empty"]))
        for listing, (table, key_col) in _LISTING_TABLE.items():
            keys = complete.filter(pl.col("listing") == listing).select(pl.col("key"))
            if keys.height == 0:
                continue
            with registered(self.con, "done", keys.to_arrow()):
                self.con.execute(
                    f"DELETE FROM {table} WHERE {key_col} IN (SELECT key FROM done) AND run_id <> ?",
                    [self.run_id],
                )

    def _purge_private(self) -> None:
        purge_members(self.con, self.private_users)


def _now() -> datetime:
    return datetime.now(timezone.utc)
