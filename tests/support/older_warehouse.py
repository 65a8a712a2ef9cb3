"""A warehouse as an older version left it (before migrations, before raw.pages had ETags), and
its raw columns: what the migration tests upgrade."""

from __future__ import annotations

from pathlib import Path

from tests.support.warehouse_fixtures import build_small_warehouse
from warehouse.db import connect


def _columns(path: Path, table: str) -> list[str]:
    with connect(path, read_only=True) as con:
        return [r[0] for r in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE schema_name = 'raw' AND table_name = ? "
            "ORDER BY column_index", [table]).fetchall()]


def _older(tmp_path: Path) -> Path:
    """The small warehouse as a version before migrations and before raw.pages had ETags."""
    path = build_small_warehouse(tmp_path / "data" / "warehouse.duckdb")
    with connect(path) as con:
        con.execute("INSERT INTO raw.pages VALUES ('game', 'khora', '/games/khora', 200, '\"e1\"', NULL, NULL, "
                    "'r1', now())")
        con.execute("ALTER TABLE raw.pages DROP COLUMN etag")
        con.execute("DROP TABLE raw.schema_migrations")
    return path
