"""Where the warehouse's SQL files are, and reading them.

Why a module of its own, below `warehouse.db` and `warehouse.comments`: both read the
same files (the DDL to run, the `-- @table/@column` descriptions beside it), and neither
should import the other to find them.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

SQL_DIR = Path(__file__).resolve().parent / "sql"
"""The warehouse contract: `raw/`, `staging/`, `marts/` and `checks/`, one SQL file per table or check."""
COLUMNS_DIR = SQL_DIR / "columns"
"""Column lists several tables share (`columns/<name>.sql`), written once and placed in a
table's DDL as `{{ columns.<name> }}`."""
_COLUMNS = re.compile(r"\{\{\s*columns\.(\w+)\s*\}\}")


class UnknownColumns(LookupError):
    """A DDL file names a shared column list `warehouse/sql/columns/` does not have."""


def sql_files(folder: str) -> list[Path]:
    """The SQL files of one layer (`raw`, `staging`, `marts`, ...) in name order."""
    return sorted((SQL_DIR / folder).glob("*.sql"))


def sql_text(path: Path) -> str:
    """A SQL file's text with each `{{ columns.<name> }}` replaced by that shared column list.

    Why: DuckDB has no table inheritance, and tables that hold the same thing (a game as
    every list shows it, a member's shelf of games) must keep the same columns and types;
    written once, they cannot drift apart. The placeholder is not SQL, so a file run without
    this step fails to parse instead of creating a table short of columns.
    """
    def columns(match: re.Match[str]) -> str:
        shared = COLUMNS_DIR / f"{match[1]}.sql"
        if not shared.is_file():
            raise UnknownColumns(f"{path.name}: no shared column list {shared.name} in {COLUMNS_DIR}")
        lines = shared.read_text(encoding="utf-8").splitlines()
        return "\n".join(line for line in lines if line.strip() and not line.lstrip().startswith("--")).strip()

    return _COLUMNS.sub(columns, path.read_text(encoding="utf-8"))


def run_sql_file(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Execute one SQL file (it may hold several statements), its shared column lists in place."""
    con.execute(sql_text(path))
