"""A warehouse written by an older version is migrated in place, after a backup; a failed
migration puts that backup back and says so in one line."""

from __future__ import annotations

import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from warehouse.backup.backup import list_backups, verify_backup
from warehouse.db import WarehouseError, connect
from warehouse.backup.migration import migrate_safely
from warehouse.migrate import MIGRATIONS_DIR, MigrationFailed, migrate, pending
from warehouse.model_marts import record_pipeline_run
from warehouse.nights import NIGHT_VIEWS, ensure_night_marts, start_night
from warehouse.release.publish import publish_snapshot, published_path
from tests.support.warehouse_fixtures import build_small_warehouse
from tests.support.older_warehouse import _columns, _older

WHEN = datetime(2026, 11, 1, 3, 0, tzinfo=timezone.utc)


def test_an_older_warehouse_gets_its_missing_columns_after_a_backup(tmp_path: Path) -> None:
    warehouse = _older(tmp_path)
    backups = tmp_path / "data" / "backups"
    assert "etag" not in _columns(warehouse, "pages")
    assert migrate_safely(warehouse, backups, run_id="night-7") == [
        "001_baseline", "002_night_ids", "003_watch_list_shelf", "004_welcome_lists", "005_history_times",
        "add raw.pages.etag"]
    assert "etag" in _columns(warehouse, "pages")
    [backup] = list_backups(backups)
    assert backup.run_id == "pre-migration-night-7" and verify_backup(backup.path)
    with connect(warehouse, read_only=True) as con:
        assert con.execute("SELECT version FROM raw.schema_migrations ORDER BY version").fetchall() == [(1,), (2,), (3,), (4,), (5,)]
        assert con.execute("SELECT key, etag FROM raw.pages").fetchall() == [("khora", None)]
        assert pending(con) == []
    assert migrate_safely(warehouse, backups, run_id="night-8") == []  # up to date: no second backup
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
        migrate_safely(warehouse, backups, run_id="night-9", folder=folder)
    [backup] = list_backups(backups)
    assert warehouse.read_bytes() == (backup.path / "warehouse.duckdb").read_bytes()
    assert "etag" not in _columns(warehouse, "pages")  # as the older version left it, nothing half-done
    assert list(warehouse.parent.glob("warehouse.duckdb.replaced-*")), "the failed file is kept beside it"
    assert len(before) > 0


def test_the_migrations_alone_roll_back_and_call_the_callers_step_only_when_something_is_pending(
        tmp_path: Path) -> None:
    """`warehouse.migrate` knows the schema only: the caller's `before` (its backup) runs once
    something is pending, a failed step is rolled back, and putting a backup back is the caller's."""
    warehouse = _older(tmp_path)
    folder = tmp_path / "migrations"
    folder.mkdir()
    shutil.copy(MIGRATIONS_DIR / "001_baseline.sql", folder)
    (folder / "002_rename_ratings.sql").write_text("ALTER TABLE raw.no_such_table RENAME COLUMN a TO b;\n")
    calls: list[object] = []
    with pytest.raises(MigrationFailed, match=r"^migration 002_rename_ratings failed \([^)]*\)$"):
        migrate(warehouse, folder=folder, before=lambda con: calls.append(con.execute("SELECT 1").fetchall()))
    assert calls == [[(1,)]]
    assert "etag" not in _columns(warehouse, "pages") and not (tmp_path / "data" / "backups").exists()
    assert migrate(warehouse, before=calls.append)[-1] == "add raw.pages.etag" and len(calls) == 2
    assert migrate(warehouse, before=calls.append) == [] and len(calls) == 2  # up to date: not called


def test_a_fresh_warehouse_only_records_the_migrations(tmp_path: Path) -> None:
    warehouse = tmp_path / "warehouse.duckdb"
    assert migrate_safely(warehouse, tmp_path / "backups", run_id=None) == []
    assert not (tmp_path / "backups").exists()
    with connect(warehouse, read_only=True) as con:
        assert con.execute("SELECT version, name FROM raw.schema_migrations ORDER BY version").fetchall() == [
            (1, "001_baseline"), (2, "002_night_ids"), (3, "003_watch_list_shelf"), (4, "004_welcome_lists"),
            (5, "005_history_times")]


def test_a_missing_not_null_column_and_a_misnamed_file_are_refused(tmp_path: Path) -> None:
    warehouse = build_small_warehouse(tmp_path / "warehouse.duckdb")
    with connect(warehouse) as con:
        con.execute("ALTER TABLE raw.pages DROP COLUMN url")
        with pytest.raises(MigrationFailed, match="NOT NULL column url"):
            pending(con)
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "2-fix.sql").write_text("SELECT 1;")
    with connect(warehouse) as con:
        with pytest.raises(WarehouseError, match="not named NNN_name.sql"):
            pending(con, folder)


def _before_night_ids(tmp_path: Path) -> Path:
    """The small warehouse after a night of the version before night ids: its marts without
    night_id, export_run_id and selection, no recommendation_runs, served_top10 or views, and
    raw.crawl_runs without night_id; migrations up to 001."""
    path = build_small_warehouse(tmp_path / "data" / "warehouse.duckdb")
    with connect(path) as con:
        ensure_night_marts(con)
        record_pipeline_run(con, run_id="dagster-1", job="nightly", started_at=WHEN, finished_at=WHEN,
                            status="SUCCESS", checks=[])
        con.execute("INSERT INTO marts.model_runs (run_id, model, k, ndcg, champion, split, trained_at) "
                    "VALUES ('20261101T030000Z-aaaaaa', 'ease', 10, 0.2, true, 'time', ?)", [WHEN])
        con.execute("INSERT INTO marts.recommendations (user_id, rank, game_id, run_id) "
                    "VALUES ('17406', 1, 'khora', '20261101T030000Z-aaaaaa')")
        con.execute("INSERT INTO marts.similar_games (game_id, rank, similar_game_id, run_id) "
                    "VALUES ('khora', 1, 'propolis', '20261101T030000Z-aaaaaa')")
        for view in NIGHT_VIEWS:
            con.execute(f"DROP VIEW marts.{view}")
        # the collection history before it kept times (issue 41), with one version recorded
        con.execute("DROP TABLE marts.collection_history")
        con.execute("CREATE TABLE marts.collection_history (user_id VARCHAR NOT NULL, game_id VARCHAR NOT NULL, "
                    "have BOOLEAN NOT NULL, played BOOLEAN NOT NULL, favorite BOOLEAN NOT NULL, watching BOOLEAN "
                    "NOT NULL, rating INTEGER, from_night INTEGER NOT NULL, to_night INTEGER, "
                    "PRIMARY KEY (user_id, game_id, from_night))")
        con.execute("INSERT INTO marts.collection_history VALUES ('17406', 'khora', true, false, false, false, 4, 1, "
                    "NULL)")
        con.execute("DROP TABLE marts.recommendation_runs")
        con.execute("DROP TABLE marts.served_top10")
        for table, column in (("marts.pipeline_runs", "night_id"), ("marts.pipeline_runs", "export_run_id"),
                              ("marts.model_runs", "night_id"), ("marts.model_runs", "selection"),
                              ("marts.recommendations", "night_id"), ("marts.similar_games", "night_id"),
                              ("raw.crawl_runs", "night_id")):
            con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        con.execute("DELETE FROM raw.schema_migrations")
        con.execute("INSERT INTO raw.schema_migrations VALUES (1, '001_baseline', now())")
    return path


def test_a_warehouse_from_before_night_ids_is_upgraded_in_place(tmp_path: Path) -> None:
    """Issue 23: the marts a night writes from Python get the night id columns in place (a
    numbered migration), their rows kept, and the night then writes and joins them."""
    warehouse = _before_night_ids(tmp_path)
    assert migrate_safely(warehouse, tmp_path / "data" / "backups", run_id="night-2") == [
        "002_night_ids", "003_watch_list_shelf", "004_welcome_lists", "005_history_times",
        "add raw.crawl_runs.night_id"]
    with connect(warehouse) as con:
        assert con.execute("SELECT run_id, night_id, export_run_id FROM marts.pipeline_runs").fetchall() == [
            ("dagster-1", "dagster-1", None)]  # an earlier run's id is its night's
        assert con.execute("SELECT run_id, night_id, selection FROM marts.model_runs").fetchall() == [
            ("20261101T030000Z-aaaaaa", None, None)]
        assert con.execute("SELECT game_id, night_id FROM marts.recommendations").fetchall() == [("khora", None)]
        assert con.execute("SELECT game_id, rating, from_night, updated_at FROM marts.collection_history").fetchall() == [
            ("khora", 4, 1, None)]  # the version kept, its time unknown
        ensure_night_marts(con)  # the night's first step, after the migration
        start_night(con, night_id="dagster-2", job="nightly", started_at=WHEN)
        con.execute("UPDATE raw.crawl_runs SET night_id = 'dagster-2'")
        con.execute("INSERT INTO marts.model_runs (run_id, model, champion, split, night_id, selection) "
                    "VALUES ('20261102T030000Z-bbbbbb', 'ease', true, 'time', 'dagster-2', 'best')")
        nights = con.execute("SELECT night_id, status, crawl_run_id, model_run_id FROM marts.nights").fetchall()
        assert nights == [("dagster-1", "SUCCESS", None, None),
                          ("dagster-2", "STARTED", "r1", "20261102T030000Z-bbbbbb")]
        quality = con.execute("SELECT night_id, model_run_id, selection FROM marts.model_quality").fetchall()
        assert quality == [(None, "20261101T030000Z-aaaaaa", None), ("dagster-2", "20261102T030000Z-bbbbbb", "best")]


def test_a_warehouse_no_night_has_migrated_yet_still_publishes_the_views(tmp_path: Path) -> None:
    """`bodoge build` right after an upgrade publishes a warehouse from before night ids: the
    copy gets the missing columns empty so that marts.nights and marts.model_quality bind."""
    warehouse = _before_night_ids(tmp_path)
    with connect(warehouse) as con:
        publish_snapshot(con, tmp_path / "data", run_id="build-1")
        assert "night_id" not in [r[0] for r in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE table_name = 'model_runs'").fetchall()]  # untouched
    with connect(published_path(tmp_path / "data"), read_only=True) as reader:
        assert reader.execute("SELECT night_id, status FROM marts.nights").fetchall() == [("dagster-1", "SUCCESS")]
        assert reader.execute("SELECT night_id, model_run_id FROM marts.model_quality").fetchall() == [
            (None, "20261101T030000Z-aaaaaa")]
        assert reader.execute("SELECT run_id, night_id FROM marts.publication").fetchall() == [("build-1", None)]


def test_a_failed_migration_puts_back_the_backup_as_scrubbed_and_prunes_nothing(tmp_path: Path) -> None:
    """Issue 39 (case 4): the pre-migration backup was scrubbed (rewritten) after its checksum was
    read, so `put_back` refused it ("does not have its checksum (disk full?)") and the warehouse
    was left as the transaction rolled it back, not restored; and that backup had already
    pruned the same day's older one. Here a member the crawl found private (gone from raw, still
    in the marts) makes the scrub rewrite it."""
    from tests.support.backup_warehouse import _backup

    warehouse = _older(tmp_path)
    backups = tmp_path / "data" / "backups"
    with connect(warehouse) as con:
        con.execute("DELETE FROM raw.collection_entries WHERE user_id = '17406'")
        con.execute("DELETE FROM raw.listing_crawls WHERE listing = 'collection' AND key = '17406'")
    earlier = _backup(warehouse, backups, datetime.now(timezone.utc).replace(hour=0, minute=0, second=1),
                      run_id="earlier-today")
    folder = tmp_path / "migrations"
    folder.mkdir()
    shutil.copy(MIGRATIONS_DIR / "001_baseline.sql", folder)
    (folder / "002_rename_ratings.sql").write_text("ALTER TABLE raw.no_such_table RENAME COLUMN a TO b;\n")
    with pytest.raises(MigrationFailed, match="put back from backup"):
        migrate_safely(warehouse, backups, run_id="night-9", folder=folder)
    taken = next(b for b in list_backups(backups) if b.run_id == "pre-migration-night-9")
    assert verify_backup(taken.path)
    assert warehouse.read_bytes() == taken.database.read_bytes()  # put back byte for byte, as scrubbed
    assert list(warehouse.parent.glob("warehouse.duckdb.replaced-*"))
    assert earlier.path.is_dir(), "the pre-migration backup pruned the day's older backup"
