"""Where the warehouse's SQL files are, and reading them.

Why a module of its own, below `warehouse.db` and `warehouse.comments`: both read the
same files (the DDL to run, the `-- @table/@column` descriptions beside it), and neither
should import the other to find them.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

SQL_DIR = Path(__file__).resolve().parent / "sql"
"""The warehouse contract: `raw/`, `staging/`, `marts/` and `checks/`, one SQL file per table or check."""


def sql_files(folder: str) -> list[Path]:
    """The SQL files of one layer (`raw`, `staging`, `marts`, ...) in name order."""
    return sorted((SQL_DIR / folder).glob("*.sql"))


def run_sql_file(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Execute one SQL file (it may hold several statements)."""
    con.execute(path.read_text(encoding="utf-8"))
