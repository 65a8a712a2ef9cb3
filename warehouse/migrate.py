"""Bringing a warehouse written by an older version up to this one, safely, at a night's start.

Why: the warehouse outlives every version of the code that writes it; its raw tables are
declared once, in `warehouse/sql/raw/*.sql` (`CREATE TABLE IF NOT EXISTS`), so a table
added by a newer version appears by itself, but a column added to an existing table
would not, and the night would fail (or worse, write around it). Staging views and the
marts built from SQL are rebuilt every night and need nothing; the marts a night writes
from Python (`warehouse.nights.NIGHT_TABLES`: history such as model_runs, and tables
replaced `INSERT … BY NAME`) keep their shape, so a column added to one needs a numbered
migration (`ALTER TABLE IF EXISTS … ADD COLUMN IF NOT EXISTS`, as in 002).

What a migration is:
- **numbered SQL files** in `warehouse/sql/migrations/NNN_name.sql`, applied once each in
  order and recorded in `raw.schema_migrations` (for what a column list cannot say:
  renames, back-fills, new keys);
- **declared columns the file lacks**: every raw table's columns are compared with its
  DDL, and a missing nullable column is added (`ALTER TABLE … ADD COLUMN`). A missing
  NOT NULL column needs a numbered migration (it has no value for old rows): refused.

Safety: before changing anything the warehouse is backed up (`warehouse.backup.backup`, the
same verified copy as every night's), everything is applied in one transaction, and a
migration that fails is rolled back and that backup put back in place of the file, byte
for byte, before the error goes up: the night fails and alerts, and the warehouse is as
the older version left it.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from warehouse.db import SQL_DIR, WarehouseError, first_line
from warehouse.raw import ensure_raw_schema

log = logging.getLogger("bodoge.migrate")

MIGRATIONS_DIR = SQL_DIR / "migrations"
_NUMBERED = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


class MigrationFailed(WarehouseError):
    """A migration that could not be applied (the warehouse was put back as it was)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One change a warehouse needs: a numbered file, or a declared column it lacks."""

    name: str
    sql: str
    version: int | None = None


def numbered(folder: Path = MIGRATIONS_DIR) -> list[tuple[int, Path]]:
    """The numbered migration files, in order; a misnamed file is an error, not skipped."""
    found = []
    for path in sorted(folder.glob("*.sql")):
        match = _NUMBERED.match(path.name)
        if not match:
            raise WarehouseError(f"migration file {path.name} is not named NNN_name.sql")
        found.append((int(match[1]), path))
    versions = [v for v, _ in found]
    if len(set(versions)) != len(versions):
        raise WarehouseError("two migration files share a number")
    return found


def pending(con: duckdb.DuckDBPyConnection, folder: Path = MIGRATIONS_DIR) -> list[Step]:
    """What `con`'s warehouse lacks: numbered migrations not yet applied, then missing columns."""
    tables = {r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'raw' AND database_name = current_database()"
    ).fetchall()}
    applied: set[int] = set()
    if "schema_migrations" in tables:
        applied = {r[0] for r in con.execute("SELECT version FROM raw.schema_migrations").fetchall()}
    steps = [Step(name=path.stem, sql=path.read_text(encoding="utf-8"), version=v)
             for v, path in numbered(folder) if v not in applied]
    return steps + _missing_columns(con, tables)


def _missing_columns(con: duckdb.DuckDBPyConnection, tables: set[str]) -> list[Step]:
    """`ADD COLUMN` steps for declared columns an existing raw table lacks."""
    with duckdb.connect() as declared:
        ensure_raw_schema(declared)
        columns = declared.execute(
            "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns "
            "WHERE table_schema = 'raw' ORDER BY table_name, ordinal_position").fetchall()
    present = {(t, c) for t, c in con.execute(
        "SELECT table_name, column_name FROM duckdb_columns() "
        "WHERE schema_name = 'raw' AND database_name = current_database()").fetchall()}
    steps = []
    for table, column, dtype, nullable in columns:
        if table not in tables or (table, column) in present:
            continue
        if nullable != "YES":
            raise MigrationFailed(f"raw.{table} lacks NOT NULL column {column}: it needs a numbered migration")
        steps.append(Step(name=f"add raw.{table}.{column}",
                          sql=f'ALTER TABLE raw."{table}" ADD COLUMN "{column}" {dtype}'))
    return steps


def migrate(warehouse: Path, backups: Path, *, run_id: str | None, folder: Path = MIGRATIONS_DIR) -> list[str]:
    """Apply what is pending to the warehouse file (after a backup); returns the steps' names.

    [] when it is up to date; a fresh warehouse (no raw tables yet) only records the
    numbered migrations as applied. When a step fails, the transaction is rolled back and
    the pre-migration backup is put back in place of the file (the failed file is kept
    beside it), then MigrationFailed goes up. The caller must hold the nightly lock and
    no connection to the file.
    """
    from warehouse.backup.backup import make_backup
    from warehouse.db import connect
    from warehouse.backup.restore import put_back

    with connect(warehouse) as con:
        fresh = not con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'raw' "
                                "AND database_name = current_database()").fetchall()[0][0]
        steps = pending(con, folder)
        if fresh:
            ensure_raw_schema(con)
            _record(con, [s for s in steps if s.version is not None])
            return []
        if not steps:
            return []
        log.info("warehouse %s: %d migration step(s) pending; backing it up first", warehouse, len(steps))
        backup = make_backup(con, warehouse, backups, run_id=f"pre-migration-{run_id or 'manual'}")
        failed = _apply(con, steps)
    if failed is not None:
        step, error = failed
        put_back(backup, warehouse)
        raise MigrationFailed(f"migration {step} failed ({error}); the warehouse was put back from backup "
                              f"{backup.name}")
    log.info("warehouse %s migrated: %s", warehouse, ", ".join(s.name for s in steps))
    return [s.name for s in steps]


def _apply(con: duckdb.DuckDBPyConnection, steps: list[Step]) -> tuple[str, str] | None:
    """Every step in one transaction; (the failed step, its error) after a rollback, else None."""
    con.execute("BEGIN")
    for step in steps:
        try:
            con.execute(step.sql)
        except duckdb.Error as exc:
            con.execute("ROLLBACK")
            return step.name, first_line(exc)
    _record(con, [s for s in steps if s.version is not None])
    con.execute("COMMIT")
    con.execute("CHECKPOINT")
    return None


def _record(con: duckdb.DuckDBPyConnection, steps: list[Step]) -> None:
    ensure_raw_schema(con)
    for step in steps:
        con.execute("INSERT OR IGNORE INTO raw.schema_migrations VALUES (?, ?, now())", [step.version, step.name])
