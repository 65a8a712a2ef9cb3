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
it is, which export bundle goes with it (`export_run_id`: `warehouse.release.release` moves
published.duckdb and exports/LATEST together) and how old its pages are.

Every replacement of published.duckdb (a publish, a cut of members found private) holds
`published_lock`: a cut copies the current file, and without the lock a night published
during that copy would be replaced by the older, cut copy.

A published night DuckDB cannot read (truncated, damaged) is a derived file: no reader can
show anything of it, and the next successful night replaces it whole. So a cut or a scrub
says so in one line and leaves it (`unreadable`), instead of failing the crawl that called
it; before, every night failed with "cannot write to warehouse …: Could not read enough
bytes from file …/published.duckdb", and an operator following that line would restore a
healthy warehouse.
"""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import duckdb

from warehouse.crawl_runs import page_age_range
from warehouse.db import SQL_DIR, WarehouseError

log = logging.getLogger("bodoge.publish")

PUBLISHED_NAME = "published.duckdb"
LOCK_NAME = ".publish.lock"
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
    con: duckdb.DuckDBPyConnection, data_dir: Path, *, run_id: str, export_run_id: str | None = None,
    checks: list[dict] | None = None, night_id: str | None = None,
) -> Publication:
    """Copy the marts (and RAW_FOR_READERS) of `con`'s warehouse into DATA_DIR/published.duckdb.

    Written to a temporary file beside it and swapped in with os.replace, so readers see
    either the previous night or this one. The file is left read-only (mode 0444).
    """
    started = time.perf_counter()
    tmp = write_snapshot(con, data_dir, run_id=run_id, export_run_id=export_run_id, checks=checks, night_id=night_id)
    return swap_snapshot(tmp, data_dir, run_id=run_id, started=started)


def write_snapshot(
    con: duckdb.DuckDBPyConnection, data_dir: Path, *, run_id: str, export_run_id: str | None = None,
    checks: list[dict] | None = None, night_id: str | None = None,
) -> Path:
    """The next published night, written whole into this process's temporary file; returns it.

    Why apart from the swap: `warehouse.release.release` writes it, then replaces published.duckdb
    and exports/LATEST one right after the other. Every table and column carries its
    description (`warehouse.comments`), as in the warehouse: analysts hold this file.
    `checks` (the checks the night ran so far) go into `marts.publication.checks`, so
    readers count the night's own checks (its marts.pipeline_runs row is final only when
    the run ends, after this file). Every mart a night writes is there, empty if this
    warehouse has none yet, with the views over them (`warehouse.nights`: marts.nights,
    marts.model_quality), made anew in the file since a copy takes tables only.
    `night_id` names the night in marts.publication (None for `bodoge build`).
    """
    import json

    from warehouse.comments import apply_comments
    from warehouse.nights import ensure_night_marts

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
            ensure_night_marts(con)
            con.execute((SQL_DIR / "macros.sql").read_text(encoding="utf-8"))  # readers' filter rules
            con.execute(PUBLICATION_SQL.read_text(encoding="utf-8"))
            con.execute(
                "INSERT INTO marts.publication BY NAME SELECT ? AS run_id, ? AS export_run_id, "
                "now() AS published_at, ? AS oldest_page_at, ? AS newest_page_at, ?::JSON AS checks, "
                "? AS night_id",
                [run_id, export_run_id, oldest, newest,
                 None if checks is None else json.dumps(checks, ensure_ascii=False), night_id],
            )
        finally:
            con.execute(f"USE {_quote_ident(home)}")
        apply_comments(con, database="published_tmp")  # CREATE TABLE … AS keeps no comments
    except BaseException:
        con.execute("DETACH DATABASE IF EXISTS published_tmp")
        _remove(tmp)
        raise
    con.execute("DETACH DATABASE IF EXISTS published_tmp")
    return tmp


def swap_snapshot(tmp: Path, data_dir: Path, *, run_id: str, started: float | None = None) -> Publication:
    """Replace published.duckdb with `tmp` (from `write_snapshot`), read-only, under the lock."""
    target = published_path(data_dir)
    try:
        os.chmod(tmp, 0o444)
        with published_lock(data_dir):
            os.replace(tmp, target)
    except BaseException:
        _remove(tmp)
        raise
    seconds = time.perf_counter() - (started if started is not None else time.perf_counter())
    size = target.stat().st_size
    tables = _count_tables(target)
    log.info("published night %s: %d tables, %.1f MB in %.1fs -> %s", run_id, tables, size / 1e6, seconds, target)
    return Publication(path=target, run_id=run_id, tables=tables, bytes=size, seconds=seconds)


@contextmanager
def published_lock(data_dir: Path) -> Iterator[None]:
    """Hold DATA_DIR/.publish.lock (a kernel flock: it dies with its holder) while replacing the file."""
    lock = Path(data_dir) / LOCK_NAME
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def scrub_published(data_dir: Path, public: set[str]) -> list[str]:
    """Cut every member outside `public` (who is public now: `warehouse.privacy.public`) out
    of the published night; returns who was cut.

    Why right after the crawl (`warehouse.privacy.cut`), even if the night fails later: a
    member who turned private must leave no trace, and readers would otherwise keep the
    previous night's rows of them until the next successful night. The snapshot is copied,
    scrubbed and swapped in whole, like a publish, so readers never see it half-scrubbed.
    """
    return _cut(data_dir, sorted(public), keep=True)


def unreadable(path: Path) -> str | None:
    """Why DuckDB cannot read the published night at `path` (one line), or None when it can
    (or there is none). Every column of every table is read: a truncated file opens and lists
    its tables, and fails only on the blocks it lost (a scan of the file, once a night)."""
    if not path.is_file():
        return None
    try:
        with duckdb.connect(str(path), read_only=True) as con:
            for schema, table in con.execute("SELECT schema_name, table_name FROM duckdb_tables() "
                                             "WHERE database_name = current_database()").fetchall():
                con.execute(f"SELECT count(*) FROM {_quote_ident(schema)}.{_quote_ident(table)} "
                            "WHERE hash(COLUMNS(*)) IS NOT NULL").fetchall()
    except duckdb.Error as exc:
        return first_line(exc)
    return None


def first_line(exc: BaseException) -> str:
    return next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), type(exc).__name__)


def unreadable_line(path: Path, why: str) -> str:
    """What a writer says of a published night it cannot read."""
    return (f"{path} cannot be read ({why}): it is only the last published copy of the warehouse, "
            "left for the next successful night to replace (the warehouse itself is not touched)")


def cut_members(data_dir: Path, users: list[str] | set[str]) -> list[str]:
    """Cut these members (found private) out of the published night; returns those it held.

    Checked read-only first: the copy (seconds at the real size) is made only when one of
    them is in the file.
    """
    return _cut(data_dir, sorted(users), keep=False) if users else []


def _cut(data_dir: Path, users: list[str], *, keep: bool) -> list[str]:
    """Copy, cut and swap in the published night under the lock: members outside `users`
    (keep=True) or inside it (keep=False) lose their rows, and posts their author."""
    target = published_path(data_dir)
    with published_lock(data_dir):
        if not target.is_file():
            return []
        try:
            with duckdb.connect(str(target), read_only=True) as reader:
                gone = _members_to_cut(reader, users, keep=keep)
        except duckdb.Error as exc:
            log.warning("published night: %s", unreadable_line(target, first_line(exc)))
            return []
        if not gone:
            return []
        tmp = _fresh_tmp(target)
        shutil.copyfile(target, tmp)
        os.chmod(tmp, 0o644)
        snap = duckdb.connect(str(tmp))
        try:
            drop_members(snap, gone)
            snap.execute("CHECKPOINT")
        except BaseException:
            snap.close()
            _remove(tmp)
            raise
        snap.close()
        os.chmod(tmp, 0o444)
        os.replace(tmp, target)
    log.info("published night: %d member(s) no longer public cut out", len(gone))
    return sorted(gone)


def drop_members(con: duckdb.DuckDBPyConnection, users: set[str] | list[str]) -> None:
    """Delete these members' rows from every member column of `con`'s database; their posts
    stay without the author (as in raw.posts). What a cut does to a copy of the night, and
    what a reader does to its in-memory copy while an erasure is pending (`warehouse.readers`)."""
    con.execute("CREATE OR REPLACE TEMP TABLE cut_now AS SELECT unnest(?::VARCHAR[]) AS user_id", [sorted(users)])
    tables = set(con.execute("SELECT schema_name, table_name FROM duckdb_tables() "
                             "WHERE database_name = current_database()").fetchall())
    try:
        for schema, table, column in (c for c in member_columns(con) if c[:2] in tables):
            where = f"{column} IN (SELECT user_id FROM temp.cut_now)"
            if column == "user_id":
                con.execute(f"DELETE FROM {schema}.{table} WHERE {where}")
            else:
                con.execute(f"UPDATE {schema}.{table} SET {column} = NULL WHERE {where}")
    finally:
        con.execute("DROP TABLE IF EXISTS temp.cut_now")


def _members_to_cut(con: duckdb.DuckDBPyConnection, users: list[str], *, keep: bool) -> set[str]:
    """Member ids in the file that are outside `users` (keep) or inside it (not keep)."""
    con.execute("CREATE TEMP TABLE listed AS SELECT unnest(?::VARCHAR[]) AS user_id", [users])
    op = "NOT IN" if keep else "IN"
    gone: set[str] = set()
    for schema, table, column in member_columns(con):
        rows = con.execute(f"SELECT DISTINCT {column} FROM {schema}.{table} WHERE {column} IS NOT NULL "
                           f"AND {column} {op} (SELECT user_id FROM listed)").fetchall()
        gone |= {r[0] for r in rows}
    return gone


def member_columns(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str]]:
    """Every (schema, table, column) of the open file that names a member (user_id, author_user_id)."""
    return con.execute(
        "SELECT schema_name, table_name, column_name FROM duckdb_columns() "
        "WHERE database_name = current_database() AND column_name IN ('user_id', 'author_user_id') "
        "ORDER BY ALL"
    ).fetchall()


def publication(con: duckdb.DuckDBPyConnection) -> dict | None:
    """The snapshot's publication row (run_id, published_at, page ages), or None (not a snapshot)."""
    try:
        cursor = con.execute("SELECT * FROM marts.publication ORDER BY published_at DESC LIMIT 1")
    except duckdb.Error:
        return None
    rows = cursor.fetchall()
    return dict(zip([d[0] for d in cursor.description], rows[0])) if rows else None


def _count_tables(path: Path) -> int:
    with duckdb.connect(str(path), read_only=True) as con:
        return int(con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database()")
                   .fetchall()[0][0])


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
    from ops.procs import owner_alive

    for litter in target.parent.glob(f".{target.name}.*.tmp*"):  # and its WAL (`….tmp.wal`, a disk full mid-cut)
        pid = litter.name.removeprefix(f".{target.name}.").split(".", 1)[0]
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
