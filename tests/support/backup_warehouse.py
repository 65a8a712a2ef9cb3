"""The small warehouse the backup tests copy, and one backup of it at a given moment."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.support.warehouse_fixtures import build_small_warehouse
from warehouse.backup.backup import make_backup
from warehouse.db import connect


T0 = datetime(2026, 11, 25, 18, 5, tzinfo=timezone.utc)  # 03:05 JST, a Wednesday night


@pytest.fixture()
def warehouse(tmp_path: Path) -> Path:
    return build_small_warehouse(tmp_path / "data" / "warehouse.duckdb")


def _backup(warehouse: Path, backups: Path, at: datetime, run_id: str = "night") -> object:
    with connect(warehouse) as con:
        return make_backup(con, warehouse, backups, run_id=run_id, now=at)
