"""Staging views and marts: SQL files run inside DuckDB, one asset per table.

The graph comes from `warehouse.build` (what each file reads), so the SQL and the
orchestration cannot drift apart. Downstream assets follow eagerly when raw data changes.
"""

from __future__ import annotations

import dagster as dg
from dagster_duckdb import DuckDBResource

from warehouse.build import MART_DEPS, STAGING_DEPS, build_mart, build_staging
from warehouse.db import SQL_DIR, scalar


def _key(table: str) -> dg.AssetKey:
    return dg.AssetKey(table.split("."))


def _first_comment(path) -> str:  # type: ignore[no-untyped-def]
    lines = [ln.lstrip("- ").strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.startswith("--")]
    return " ".join(lines) or path.stem


def _staging_asset(name: str, deps: list[str]) -> dg.AssetsDefinition:
    @dg.asset(
        key=["staging", name],
        deps=[_key(d) for d in deps],
        group_name="warehouse",
        kinds={"duckdb", "sql"},
        description=_first_comment(SQL_DIR / "staging" / f"{name}.sql"),
        automation_condition=dg.AutomationCondition.eager(),
        pool="warehouse_writer",
    )
    def _view(duckdb: DuckDBResource) -> dg.MaterializeResult:
        with duckdb.get_connection() as con:
            build_staging(con, [name])
            rows = int(scalar(con, f"SELECT count(*) FROM staging.{name}") or 0)
        return dg.MaterializeResult(metadata={"dagster/row_count": rows})

    return _view


def _mart_asset(name: str, deps: list[str]) -> dg.AssetsDefinition:
    @dg.asset(
        key=["marts", name],
        deps=[_key(d) for d in deps],
        group_name="warehouse",
        kinds={"duckdb", "sql"},
        description=_first_comment(SQL_DIR / "marts" / f"{name}.sql"),
        automation_condition=dg.AutomationCondition.eager(),
        pool="warehouse_writer",
    )
    def _mart(duckdb: DuckDBResource) -> dg.MaterializeResult:
        with duckdb.get_connection() as con:
            rows = build_mart(con, name)
        return dg.MaterializeResult(metadata={"dagster/row_count": rows})

    return _mart


staging_assets = [_staging_asset(name, deps) for name, deps in STAGING_DEPS.items()]
mart_assets = [_mart_asset(name, deps) for name, deps in MART_DEPS.items()]
