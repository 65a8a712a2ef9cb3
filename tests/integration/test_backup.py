"""Warehouse backups: written, verified, kept 7 daily + 4 weekly; damage is found, litter swept.

Here: the tests that run Dagster in this process, build a demo warehouse or site, or talk to a
local HTTP stub; the rest of this subject: tests/unit/test_backup.py, tests/e2e/test_backup.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.warehouse_fixtures import build_small_warehouse


@pytest.fixture()
def warehouse(tmp_path: Path) -> Path:
    return build_small_warehouse(tmp_path / "data" / "warehouse.duckdb")


def test_a_backup_that_fails_is_one_alert_not_a_failed_night(warehouse: Path, tmp_path: Path) -> None:
    """The night's backup asset, materialized for real by Dagster with a backup dir that cannot be made."""
    import dagster as dg
    from dagster_duckdb import DuckDBResource

    from pipelines.defs.backup.assets import warehouse_backup
    from pipelines.defs.resources import AlertSettings, NightlyLock, SiteSettings
    from tests.support.http_stubs import Receiver

    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    receiver = Receiver()
    try:
        site = SiteSettings(data_dir=str(warehouse.parent), backup_dir=str(blocked / "backups"))
        result = dg.materialize(
            [warehouse_backup],
            resources={"duckdb": DuckDBResource(database=str(warehouse)), "site": site,
                       "alerts": AlertSettings(alert_url=receiver.url),
                       "nightly_lock": NightlyLock(data_dir=str(warehouse.parent), warehouse=str(warehouse))},
            selection=[warehouse_backup],
            raise_on_error=False,
        )
        assert result.success
        [event] = result.get_asset_materialization_events()
        metadata = event.materialization.metadata
        assert metadata["ok"].value is False and "backup into" in metadata["error"].value
        assert len(receiver.posts) == 1 and receiver.posts[0].startswith("backup-")
        body = json.loads(next(iter(receiver.stored.values())))
        assert body["kind"] == "backup_failed" and "a-file" in body["cause"]
    finally:
        receiver.close()
