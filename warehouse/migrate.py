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

Safety: everything is applied in one transaction, and a migration that fails is rolled
back before the error goes up. Whoever migrates also backs the warehouse up first and puts
that backup back when a migration fails (`warehouse.backup.migration.migrate_safely`: the
night's first step and `bodoge build`), so the night fails and alerts, and the warehouse
is as the older version left it. This module only knows the schema: it calls `before`
(the caller's backup) with the open warehouse once something is pending, and nothing else.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
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


def migrate(warehouse: Path, *, folder: Path = MIGRATIONS_DIR,
            before: Callable[[duckdb.DuckDBPyConnection], object] | None = None) -> list[str]:
    """Apply what is pending to the warehouse file; returns the steps' names.

    [] when it is up to date; a fresh warehouse (no raw tables yet) only records the
    numbered migrations as applied. Otherwise `before` is called first with the open
    warehouse (the caller's backup), then every step in one transaction. When a step fails
    the transaction is rolled back and MigrationFailed goes up once the file is closed, so
    the caller may put its backup back. The caller must hold the nightly lock and no
    connection to the file.
    """
    from warehouse.db import connect

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
        if before is not None:
            before(con)
        failed = _apply(con, steps)
    if failed is not None:
        step, error = failed
        raise MigrationFailed(f"migration {step} failed ({error})")
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
