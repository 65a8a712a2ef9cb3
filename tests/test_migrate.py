"""A warehouse written by an older version is migrated in place, after a backup; a failed
migration puts that backup back and says so in one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from warehouse.backup import list_backups, verify_backup
from warehouse.db import WarehouseError, connect
from warehouse.migrate import MIGRATIONS_DIR, MigrationFailed, migrate, pending
from tests.warehouse_fixtures import build_small_warehouse


def _columns(path: Path, table: str) -> list[str]:
    con = connect(path, read_only=True)
    try:
        return [r[0] for r in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE schema_name = 'raw' AND table_name = ? "
            "ORDER BY column_index", [table]).fetchall()]
    finally:
        con.close()


def _older(tmp_path: Path) -> Path:
    """The small warehouse as a version before migrations and before raw.pages had ETags."""
    path = build_small_warehouse(tmp_path / "data" / "warehouse.duckdb")
    con = connect(path)
    try:
        con.execute("INSERT INTO raw.pages VALUES ('game', 'khora', '/games/khora', 200, '\"e1\"', NULL, NULL, "
                    "'r1', now())")
        con.execute("ALTER TABLE raw.pages DROP COLUMN etag")
        con.execute("DROP TABLE raw.schema_migrations")
    finally:
        con.close()
    return path


def test_an_older_warehouse_gets_its_missing_columns_after_a_backup(tmp_path: Path) -> None:
    warehouse = _older(tmp_path)
    backups = tmp_path / "data" / "backups"
    assert "etag" not in _columns(warehouse, "pages")
    assert migrate(warehouse, backups, run_id="night-7") == ["001_baseline", "add raw.pages.etag"]
    assert "etag" in _columns(warehouse, "pages")
    [backup] = list_backups(backups)
    assert backup.run_id == "pre-migration-night-7" and verify_backup(backup.path)
    con = connect(warehouse, read_only=True)
    try:
        assert con.execute("SELECT version FROM raw.schema_migrations").fetchall() == [(1,)]
        assert con.execute("SELECT key, etag FROM raw.pages").fetchall() == [("khora", None)]
        assert pending(con) == []
    finally:
        con.close()
    assert migrate(warehouse, backups, run_id="night-8") == []  # up to date: no second backup
    assert len(list_backups(backups)) == 1


def test_a_failed_migration_puts_the_backup_back(tmp_path: Path) -> None:
    warehouse = _older(tmp_path)
    backups = tmp_path / "data" / "backups"
    folder = tmp_path / "migrations"
    folder.mkdir()
    shutil.copy(MIGRATIONS_DIR / "001_baseline.sql", folder)
    (folder / "002_rename_ratings.sql").write_text("ALTER TABLE raw.no_such_table RENAME COLUMN a TO b;\n")
    before = warehouse.read_bytes()
    with pytest.raises(MigrationFailed, match="002_rename_ratings failed .* put back from backup"):
        migrate(warehouse, backups, run_id="night-9", folder=folder)
    [backup] = list_backups(backups)
    assert warehouse.read_bytes() == (backup.path / "warehouse.duckdb").read_bytes()
    assert "etag" not in _columns(warehouse, "pages")  # as the older version left it, nothing half-done
    assert list(warehouse.parent.glob("warehouse.duckdb.replaced-*")), "the failed file is kept beside it"
    assert len(before) > 0


def test_a_fresh_warehouse_only_records_the_migrations(tmp_path: Path) -> None:
    warehouse = tmp_path / "warehouse.duckdb"
    assert migrate(warehouse, tmp_path / "backups", run_id=None) == []
    assert not (tmp_path / "backups").exists()
    con = connect(warehouse, read_only=True)
    try:
        assert con.execute("SELECT version, name FROM raw.schema_migrations").fetchall() == [(1, "001_baseline")]
    finally:
        con.close()


def test_a_missing_not_null_column_and_a_misnamed_file_are_refused(tmp_path: Path) -> None:
    warehouse = build_small_warehouse(tmp_path / "warehouse.duckdb")
    con = connect(warehouse)
    try:
        con.execute("ALTER TABLE raw.pages DROP COLUMN url")
        with pytest.raises(MigrationFailed, match="NOT NULL column url"):
            pending(con)
    finally:
        con.close()
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "2-fix.sql").write_text("SELECT 1;")
    con = connect(warehouse)
    try:
        with pytest.raises(WarehouseError, match="not named NNN_name.sql"):
            pending(con, folder)
    finally:
        con.close()
