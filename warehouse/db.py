"""Opening the warehouse and running its SQL files.

Why one place: every writer (crawl, marts build, models) opens the DuckDB file the same
way, and DuckDB allows one writer at a time, so a clear error beats a hung process.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from warehouse.ddl import SQL_DIR, run_sql_file, sql_files  # noqa: F401 - where readers of db expect them

# A DuckDB file starts with a main header and two database headers of 4 KiB each.
DUCKDB_HEADER_BYTES = 3 * 4096


class WarehouseError(Exception):
    """A warehouse problem worth one line to the operator (missing file, locked file)."""


def connect(path: Path | str, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open the warehouse file; read-only opens never create it.

    A lock held by another writer or a path that cannot be a file becomes a one-line
    WarehouseError instead of a traceback. (`bodoge build` also runs `verify_intact`.)
    """
    path = Path(path)
    if read_only and not path.exists():
        raise WarehouseError(f"no warehouse at {path} (run `bodoge run` or `bodoge demo` first)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(str(path), read_only=read_only)
    except (duckdb.Error, OSError) as exc:
        raise WarehouseError(f"cannot open warehouse {path}: {first_line(exc)}") from exc
    return con


def verify_intact(con: duckdb.DuckDBPyConnection, path: Path | str) -> None:
    """Raise WarehouseError when the file is too short to hold the blocks in use.

    Why: DuckDB reads blocks lazily, so a truncated file (a copy cut short, a full disk)
    opens without complaint and may even build marts from the parts it still has. Only
    *used* blocks count: `total_blocks` includes free blocks that DuckDB may have cut off
    the end of a healthy file, so a check against it fails good warehouses. A file shorter
    than its used blocks surely lost data (a milder cut can pass unseen).
    """
    rows = con.execute(
        "SELECT block_size, used_blocks FROM pragma_database_size() WHERE database_name = current_database()"
    ).fetchall()
    if not rows:
        return
    block_size, used_blocks = int(rows[0][0]), int(rows[0][1])
    expected = DUCKDB_HEADER_BYTES + block_size * used_blocks
    size = Path(path).stat().st_size
    if size < expected:
        raise WarehouseError(
            f"warehouse {path} is damaged: the file has {size:,} bytes but its header counts "
            f"{used_blocks:,} used blocks ({expected:,} bytes); restore it from a backup or re-crawl"
        )


def first_line(exc: BaseException) -> str:
    """An exception's first line (its type where it has no message): for one-line errors."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__



def ensure_table(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Create `marts.<name>` from its DDL file (`sql/marts/<name>.sql`) unless it exists.

    For the marts written from frames (model runs, recommendations, checks...): their
    shape is declared in SQL like every other table, and writes go `INSERT … BY NAME`.
    Its descriptions are (re)applied too: a table made by an older version, or re-made
    by an upgrade, gets them here, and a comment already right costs one catalogue read.
    """
    from warehouse.comments import apply_comments, describe_if_present  # comments sits above db

    if describe_if_present(con, f"marts.{name}"):
        return  # it exists: its descriptions are right now, and `IF NOT EXISTS` would do nothing
    con.execute("CREATE SCHEMA IF NOT EXISTS marts")
    run_sql_file(con, SQL_DIR / "marts" / f"{name}.sql")
    apply_comments(con, tables=[f"marts.{name}"])


def create_tables(con: duckdb.DuckDBPyConnection, tables: dict[str, Any], *, replace: bool = False) -> None:
    """Each Polars/Arrow frame as the table named by its key (`schema.table`), shaped as the frame.

    One `CREATE TABLE … AS` a frame, never row by row; the schemas are made as needed.
    For tables whose shape is the frame's own (benchmarks, tests that state marts
    outright); the pipeline's marts are declared in SQL and written by `insert_by_name`.
    """
    verb = "CREATE OR REPLACE TABLE" if replace else "CREATE TABLE"
    for name, frame in tables.items():
        schema = name.rpartition(".")[0]
        if schema:
            con.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
        with registered(con, "_frame", frame):
            con.execute(f"{verb} {name} AS SELECT * FROM _frame")


@contextmanager
def registered(con: duckdb.DuckDBPyConnection, name: str, frame: Any) -> Iterator[duckdb.DuckDBPyConnection]:
    """`frame` (Polars or Arrow) readable as the view `name` inside the block, and gone after it.

    Why: DuckDB scans a registered Arrow table in place, the fast way to load a frame
    (never row by row); unregistering it afterwards, also on errors, keeps a name from one
    batch from shadowing the next or holding its memory.
    """
    con.register(name, frame.to_arrow() if hasattr(frame, "to_arrow") else frame)
    try:
        yield con
    finally:
        con.unregister(name)


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """Everything in the block commits together or not at all.

    Why one helper: readers must see a write whole or not at all, and an interrupted
    write (an exception, or Ctrl-C: BaseException) must roll back rather than leave the
    connection inside an open transaction that the next statement would silently join.
    """
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def insert_by_name(
    con: duckdb.DuckDBPyConnection, name: str, frame: object, *, or_replace: bool = False, replace_all: bool = False
) -> int:
    """Write a Polars/Arrow frame into `marts.<name>` by column name (creating it from its DDL).

    `or_replace` replaces rows whose primary key is already there; `replace_all` empties
    the table first, in the same transaction, so readers see the old rows or the new ones.
    Returns the rows written.
    """
    ensure_table(con, name)
    arrow: Any = frame.to_arrow() if hasattr(frame, "to_arrow") else frame
    verb = "INSERT OR REPLACE" if or_replace else "INSERT"
    with registered(con, "_frame", arrow):
        with transaction(con):
            if replace_all:
                con.execute(f"DELETE FROM marts.{name}")
            con.execute(f"{verb} INTO marts.{name} BY NAME SELECT * FROM _frame")
    return int(arrow.num_rows)


def scalar(con: duckdb.DuckDBPyConnection, query: str, params: list | dict | None = None) -> Any:
    """The first value of a query's first row, or None.

    Why fetchall: DuckDB 2.0 keeps a result open until it is read to the end, and an open
    result blocks the next `con.sql(...)` on the same connection.
    """
    rows = con.execute(query, params or []).fetchall()
    return rows[0][0] if rows else None


def dict_rows(con: duckdb.DuckDBPyConnection, query: str, params: list | dict | None = None) -> list[dict]:
    """A query's rows as dicts, without Polars or Arrow.

    Why: the member-facing commands (`bodoge collection`, `cafes`, `recommend`) answer in
    well under a second only if they do not pay ~0.5 s importing Polars and PyArrow.
    """
    cursor = con.execute(query, params or [])
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]
