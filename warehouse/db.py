"""Opening the warehouse and running its SQL files.

Why one place: every writer (crawl, marts build, models) opens the DuckDB file the same
way, and DuckDB allows one writer at a time, so a clear error beats a hung process.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

SQL_DIR = Path(__file__).resolve().parent


class WarehouseError(Exception):
    """A warehouse problem worth one line to the operator (missing file, locked file)."""


def connect(path: Path | str, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open the warehouse file; read-only opens never create it.

    A lock held by another writer becomes a one-line WarehouseError instead of a traceback.
    """
    path = Path(path)
    if read_only and not path.exists():
        raise WarehouseError(f"no warehouse at {path} (run `bodoge run` or `bodoge demo` first)")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        return duckdb.connect(str(path), read_only=read_only)
    except duckdb.IOException as exc:
        first = str(exc).splitlines()[0]
        raise WarehouseError(f"cannot open warehouse {path}: {first}") from exc


def sql_files(folder: str) -> list[Path]:
    """The SQL files of one layer (`raw`, `staging`, `marts`, ...) in name order."""
    return sorted((SQL_DIR / folder).glob("*.sql"))


def run_sql_file(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Execute one SQL file (it may hold several statements)."""
    con.execute(path.read_text(encoding="utf-8"))


def scalar(con: duckdb.DuckDBPyConnection, query: str, params: list | dict | None = None) -> object:
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
