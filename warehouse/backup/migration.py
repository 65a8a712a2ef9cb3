"""Migrating the warehouse under a backup: backed up before the first change, put back on failure.

The rule: whoever migrates (the night's first step, `bodoge build`) goes through
`migrate_safely`. When anything is pending, the warehouse is backed up first (the same
verified copy as every night's, named `pre-migration-<run>`); when a migration fails, it
is rolled back (`warehouse.migrate`) and that backup is put back in place of the file,
byte for byte, the failed file kept beside it (`warehouse.backup.restore.put_back`), before
the error goes up: the night fails and alerts, and the warehouse is as the older version
left it.

Why here and not in `warehouse.migrate`: the migrations know the schema only; taking and
restoring a copy of the file is the backup domain's work, done by the caller around them.
"""

from __future__ import annotations

import logging
from pathlib import Path

import duckdb

from warehouse.backup.backup import Backup, make_backup
from warehouse.backup.restore import put_back
from warehouse.migrate import MIGRATIONS_DIR, MigrationFailed, migrate

log = logging.getLogger("bodoge.migrate")


def migrate_safely(warehouse: Path, backups: Path, *, run_id: str | None, folder: Path = MIGRATIONS_DIR) -> list[str]:
    """Apply what is pending to the warehouse file after a backup; returns the steps' names.

    [] when it is up to date (no backup is made). When a step fails, the pre-migration
    backup is put back in place of the file and MigrationFailed says so in one line. The
    caller must hold the nightly lock and no connection to the file.
    """
    taken: list[Backup] = []

    def back_up(con: duckdb.DuckDBPyConnection) -> None:
        log.info("warehouse %s: migration step(s) pending; backing it up first", warehouse)
        taken.append(make_backup(con, warehouse, backups, run_id=f"pre-migration-{run_id or 'manual'}",
                                 prune_old=False))

    try:
        return migrate(warehouse, folder=folder, before=back_up)
    except MigrationFailed as exc:
        if not taken:  # refused before anything changed (a NOT NULL column, a misnamed file)
            raise
        put_back(taken[0], warehouse)
        raise MigrationFailed(f"{exc}; the warehouse was put back from backup {taken[0].name}") from None
