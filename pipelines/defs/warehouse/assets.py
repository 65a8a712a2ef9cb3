"""Staging views and marts: SQL files run inside DuckDB, one asset per table.

The graph comes from `warehouse.build` (what each file reads), so the SQL and the
orchestration cannot drift apart. Downstream assets follow eagerly when raw data changes.
Each asset's description and column schema are its table's (`pipelines.described`).
"""

from __future__ import annotations

from collections.abc import Callable

import dagster as dg
from dagster_duckdb import DuckDBResource
from duckdb import DuckDBPyConnection

from pipelines.defs.resources import NightlyLock
from pipelines.described import described
from warehouse.build import MART_DEPS, STAGING_DEPS, build_mart, build_staging
from warehouse.db import scalar, transaction


def _key(table: str) -> dg.AssetKey:
    return dg.AssetKey(table.split("."))


def _build_view(con: DuckDBPyConnection, name: str) -> None:
    build_staging(con, [name])


def _table_asset(schema: str, name: str, deps: list[str],
                 build: Callable[[DuckDBPyConnection, str], object]) -> dg.AssetsDefinition:
    """One asset for one SQL file: `build(con, name)` (re)creates `schema.name`."""

    @dg.asset(
        key=[schema, name],
        deps=[_key(d) for d in deps],
        group_name="warehouse",
        kinds={"duckdb", "sql"},
        **described(schema, name),
        automation_condition=dg.AutomationCondition.eager(),
        pool="warehouse_writer",
    )
    def _table(duckdb: DuckDBResource, nightly_lock: NightlyLock) -> dg.MaterializeResult:
        with duckdb.get_connection() as con:
            # The table or view and its descriptions commit together, as in `build_all`: one
            # sync of the warehouse's WAL rather than one per COMMENT statement.
            with transaction(con):
                build(con, name)
            rows = int(scalar(con, f"SELECT count(*) FROM {schema}.{name}") or 0)
        return dg.MaterializeResult(metadata={"dagster/row_count": rows})

    return _table


staging_assets = [_table_asset("staging", name, deps, _build_view) for name, deps in STAGING_DEPS.items()]
mart_assets = [_table_asset("marts", name, deps, build_mart) for name, deps in MART_DEPS.items()]
