"""Each SQL check file is one Dagster asset check at the severity the file declares.

A failing `-- severity: error` check blocks: the marts downstream of its table are not
built in that run. A failing `warn` check reports and the run goes on. There is no second
implementation of the key checks beside the SQL files.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest
from dagster_duckdb import DuckDBResource

from pipelines.defs.resources import NightlyLock
from pipelines.defs.warehouse.assets import mart_assets
from pipelines.defs.warehouse.checks import sql_checks
from tests.support.warehouse_fixtures import build_small_warehouse
from warehouse.db import SQL_DIR, connect
from warehouse.quality import check_specs


def _specs_by_name() -> dict[str, dg.AssetCheckSpec]:
    return {spec.name: spec for checks in sql_checks for spec in checks.check_specs}


def test_one_asset_check_per_sql_file_blocking_where_the_file_says_error() -> None:
    files = sorted(path.stem for path in (SQL_DIR / "checks").glob("*.sql"))
    dagster_checks = _specs_by_name()
    assert sorted(dagster_checks) == files
    for spec in check_specs():
        check = dagster_checks[spec.name]
        assert check.blocking == (spec.severity == "error"), spec.name
        assert check.asset_key == dg.AssetKey(["marts", spec.table])
    assert {name for name, c in dagster_checks.items() if c.blocking} == {
        "games_unique_key", "collections_unique_key", "cafe_games_unique_key"
    }


def test_the_whole_definitions_hold_each_key_check_once() -> None:
    from pipelines.definitions import defs

    names = [key.name for key in defs().resolve_asset_graph().asset_check_keys]
    for table in ("games", "collections", "cafe_games"):
        assert names.count(f"{table}_unique_key") == 1


@pytest.fixture()
def warehouse(tmp_path: Path) -> Path:
    return build_small_warehouse(tmp_path / "warehouse.duckdb")


def _materialize(warehouse: Path) -> dg.ExecuteInProcessResult:
    wanted = {dg.AssetKey(["marts", "games"]), dg.AssetKey(["marts", "member_profiles"])}
    assets = [a for a in mart_assets if a.key in wanted]
    checks = [c for c in sql_checks if next(iter(c.check_specs)).asset_key == dg.AssetKey(["marts", "games"])]
    return dg.materialize(
        [*assets, *checks],
        resources={"duckdb": DuckDBResource(database=str(warehouse)),
                   "nightly_lock": NightlyLock(data_dir=str(warehouse.parent), warehouse=str(warehouse))},
        raise_on_error=False,
    )


def _evaluations(result: dg.ExecuteInProcessResult) -> dict[str, dg.AssetCheckEvaluation]:
    return {e.check_name: e for e in result.get_asset_check_evaluations()}


def test_a_failing_error_check_blocks_what_is_downstream(warehouse: Path) -> None:
    con = connect(warehouse)
    # A staging view gone wrong: every game page twice.
    con.execute("ALTER VIEW staging.stg_games RENAME TO stg_games_once")
    con.execute("CREATE VIEW staging.stg_games AS "
                "SELECT * FROM staging.stg_games_once UNION ALL SELECT * FROM staging.stg_games_once")
    con.close()
    result = _materialize(warehouse)
    checks = _evaluations(result)
    assert not checks["games_unique_key"].passed
    assert checks["games_unique_key"].severity == dg.AssetCheckSeverity.ERROR
    materialized = {e.asset_key for e in result.get_asset_materialization_events()}
    assert dg.AssetKey(["marts", "games"]) in materialized
    assert dg.AssetKey(["marts", "member_profiles"]) not in materialized
    con = connect(warehouse, read_only=True)
    stored = dict(con.execute("SELECT check_name, passed FROM marts.quality_checks").fetchall())
    con.close()
    assert stored["games_unique_key"] is False


def test_a_failing_warn_check_lets_the_run_go_on(warehouse: Path) -> None:
    result = _materialize(warehouse)
    checks = _evaluations(result)
    assert not checks["games_players_range"].passed  # 1人～65536人, flagged
    assert checks["games_players_range"].severity == dg.AssetCheckSeverity.WARN
    assert checks["games_unique_key"].passed
    assert result.success
    materialized = {e.asset_key for e in result.get_asset_materialization_events()}
    assert dg.AssetKey(["marts", "member_profiles"]) in materialized
