"""Each SQL check file is one Dagster asset check at the severity the file declares.

A failing `-- severity: error` check blocks: the marts downstream of its table are not
built in that run. A failing `warn` check reports and the run goes on. There is no second
implementation of the key checks beside the SQL files.
"""

from __future__ import annotations


import dagster as dg

from pipelines.defs.warehouse.checks import sql_checks
from warehouse.db import SQL_DIR
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
