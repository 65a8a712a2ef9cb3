"""The published night: a read-only copy of the marts that readers open instead of the warehouse.

Why a copy: DuckDB lets one process write a file, and a reader's connection (even
read-only) blocks that writer, so while the night writes `warehouse.duckdb` for hours the
member commands, the dashboard and analysts could not open it, and an analyst's open
session made the night fail. Readers open `DATA_DIR/published.duckdb` instead. A
successful night (the last step, after the export) copies the marts and the few raw
tables the dashboard shows into a temporary file in the same folder and swaps it in with
`os.replace`: a reader sees the old night or the new one, never half of one. A failed
night never gets here, so readers keep the previous night. A reader that still has the
old file open keeps reading the old inode until it closes.

`marts.publication` (one row, `snapshot/publication.sql`) in the snapshot says which night
it is and how old its pages are: the overview and `bodoge run` show it.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import duckdb

from warehouse.crawl_runs import page_age_range
from warehouse.db import SQL_DIR, WarehouseError, connect

log = logging.getLogger("bodoge.publish")

PUBLISHED_NAME = "published.duckdb"
# Raw tables readers need besides the marts: the overview's crawl history and post count,
# the quality page's quarantine.
RAW_FOR_READERS = ("crawl_runs", "quarantine", "posts")
# Raw tables whose rows are pages as last fetched (game_counters and quarantine are history).
PUBLICATION_SQL = SQL_DIR / "snapshot" / "publication.sql"


@dataclass(frozen=True, slots=True)
class Publication:
    """What a publish wrote: where, which night, how big and how long it took."""

    path: Path
    run_id: str
    tables: int
    bytes: int
    seconds: float


def published_path(data_dir: Path) -> Path:
    """The snapshot readers open: DATA_DIR/published.duckdb."""
    return Path(data_dir) / PUBLISHED_NAME


def page_ages(con: duckdb.DuckDBPyConnection) -> tuple[datetime | None, datetime | None]:
    """(oldest, newest) time a crawled page behind the night was last confirmed
    (`warehouse.crawl_runs.page_age_range`: the pages the incremental crawl keeps fresh)."""
    return page_age_range(con)


def publish_snapshot(
    con: duckdb.DuckDBPyConnection, data_dir: Path, *, run_id: str, export_run_id: str | None = None
) -> Publication:
    """Copy the marts (and RAW_FOR_READERS) of `con`'s warehouse into DATA_DIR/published.duckdb.

    Written to a temporary file beside it and swapped in with os.replace, so readers see
    either the previous night or this one. The file is left read-only (mode 0444).
    """
    started = time.perf_counter()
    target = published_path(data_dir)
    tmp = _fresh_tmp(target)
    tables = _reader_tables(con)
    if not any(schema == "marts" for schema, _ in tables):
        raise WarehouseError("nothing to publish: the warehouse has no marts (build them first)")
    oldest, newest = page_ages(con)
    home = con.execute("SELECT current_database()").fetchall()[0][0]
    con.execute(f"ATTACH {_quote(str(tmp))} AS published_tmp")
    try:
        for schema in sorted({s for s, _ in tables}):
            con.execute(f"CREATE SCHEMA published_tmp.{schema}")
        for schema, table in tables:
            con.execute(f"CREATE TABLE published_tmp.{schema}.{table} AS SELECT * FROM {schema}.{table}")
        con.execute("USE published_tmp")
        try:
            con.execute(PUBLICATION_SQL.read_text(encoding="utf-8"))
            con.execute(
                "INSERT INTO marts.publication BY NAME SELECT ? AS run_id, ? AS export_run_id, "
                "now() AS published_at, ? AS oldest_page_at, ? AS newest_page_at",
                [run_id, export_run_id, oldest, newest],
            )
        finally:
            con.execute(f"USE {_quote_ident(home)}")
    finally:
        con.execute("DETACH DATABASE IF EXISTS published_tmp")
    try:
        os.chmod(tmp, 0o444)
        os.replace(tmp, target)
    except BaseException:
        _remove(tmp)
        raise
    seconds = time.perf_counter() - started
    size = target.stat().st_size
    log.info("published night %s: %d tables, %.1f MB in %.1fs -> %s", run_id, len(tables) + 1, size / 1e6, seconds, target)
    return Publication(path=target, run_id=run_id, tables=len(tables) + 1, bytes=size, seconds=seconds)


def scrub_published(con: duckdb.DuckDBPyConnection, data_dir: Path) -> list[str]:
    """Cut members who are not public now out of the published night; returns who was cut.

    Why right after the crawl, even if the night fails later: a member who turned private
    must leave no trace, and readers would otherwise keep the previous night's rows of
    them until the next successful night. The snapshot is copied, scrubbed and swapped in
    whole, like a publish, so readers never see it half-scrubbed.
    """
    import shutil

    from warehouse.export_retention import public_users

    target = published_path(data_dir)
    if not target.is_file():
        return []
    public = sorted(public_users(con))
    tmp = _fresh_tmp(target)
    shutil.copyfile(target, tmp)
    os.chmod(tmp, 0o644)
    snap = duckdb.connect(str(tmp))
    try:
        snap.execute("CREATE TEMP TABLE public_now AS SELECT unnest(?::VARCHAR[]) AS user_id", [public])
        columns = snap.execute(
            "SELECT schema_name, table_name, column_name FROM duckdb_columns() "
            "WHERE database_name = current_database() AND column_name IN ('user_id', 'author_user_id')"
        ).fetchall()
        gone: set[str] = set()
        for schema, table, column in columns:
            rows = snap.execute(f"SELECT DISTINCT {column} FROM {schema}.{table} WHERE {column} IS NOT NULL "
                                f"AND {column} NOT IN (SELECT user_id FROM public_now)").fetchall()
            if not rows:
                continue
            gone |= {r[0] for r in rows}
            where = f"{column} NOT IN (SELECT user_id FROM public_now)"
            if column == "user_id":
                snap.execute(f"DELETE FROM {schema}.{table} WHERE {where}")
            else:  # their posts stay, without the author (as in raw.posts)
                snap.execute(f"UPDATE {schema}.{table} SET {column} = NULL WHERE {where}")
        snap.execute("CHECKPOINT")
    finally:
        snap.close()
    if not gone:
        _remove(tmp)
        return []
    os.chmod(tmp, 0o444)
    os.replace(tmp, target)
    log.info("published night: %d member(s) no longer public cut out", len(gone))
    return sorted(gone)


def require_published(data_dir: Path) -> Path:
    """The published night's file; a one-line WarehouseError when no night was published yet."""
    path = published_path(data_dir)
    if not path.is_file():
        raise WarehouseError(
            f"no night has been published in {Path(data_dir)} yet "
            "(run `bodoge run`, `bodoge demo` or `bodoge build` first)"
        )
    return path


def open_published(data_dir: Path) -> duckdb.DuckDBPyConnection:
    """The published night, read-only (see `require_published`)."""
    return connect(require_published(data_dir), read_only=True)


def publication(con: duckdb.DuckDBPyConnection) -> dict | None:
    """The snapshot's publication row (run_id, published_at, page ages), or None (not a snapshot)."""
    try:
        cursor = con.execute("SELECT * FROM marts.publication ORDER BY published_at DESC LIMIT 1")
    except duckdb.Error:
        return None
    rows = cursor.fetchall()
    return dict(zip([d[0] for d in cursor.description], rows[0])) if rows else None


def _reader_tables(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    rows = con.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() "
        "WHERE database_name = current_database() AND (schema_name = 'marts' OR "
        "(schema_name = 'raw' AND list_contains(?, table_name))) AND table_name <> 'publication' "
        "ORDER BY schema_name, table_name",
        [list(RAW_FOR_READERS)],
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


def _fresh_tmp(target: Path) -> Path:
    """This process's temporary file beside `target`, after sweeping those of dead processes.

    Why: a night killed while publishing leaves its half-written copy; the next publish
    removes it (a live process's copy is left alone).
    """
    from core.procs import owner_alive

    for litter in target.parent.glob(f".{target.name}.*.tmp"):
        pid = litter.name.removeprefix(f".{target.name}.").removesuffix(".tmp")
        try:  # a pid alone: its process counts only if it started before the file was last written
            written_at = litter.stat().st_mtime
        except OSError:
            continue
        if pid.isdigit() and (int(pid) == os.getpid() or not owner_alive(pid, written_at=written_at)):
            _remove(litter)
    return target.with_name(f".{target.name}.{os.getpid()}.tmp")


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _quote_ident(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
