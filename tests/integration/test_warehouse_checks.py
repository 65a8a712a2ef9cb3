"""Each SQL check file is one Dagster asset check at the severity the file declares.

Here: the tests that run Dagster in this process, build a demo warehouse or site, or talk to a
local HTTP stub; the rest of this subject: tests/unit/test_warehouse_checks.py.
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
from warehouse.db import connect


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
