"""Warehouse backups: written, verified, kept 7 daily + 4 weekly; damage is found, litter swept.

Here: the tests that start real processes; the rest of this subject: tests/unit/test_backup.py,
tests/integration/test_backup.py.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from warehouse.backup.backup import (
    DATABASE,
    list_backups,
    make_backup,
)
from warehouse.db import connect
from tests.support.warehouse_fixtures import build_small_warehouse

T0 = datetime(2026, 11, 25, 18, 5, tzinfo=timezone.utc)  # 03:05 JST, a Wednesday night


@pytest.fixture()
def warehouse(tmp_path: Path) -> Path:
    return build_small_warehouse(tmp_path / "data" / "warehouse.duckdb")


def _backup(warehouse: Path, backups: Path, at: datetime, run_id: str = "night") -> object:
    with connect(warehouse) as con:
        return make_backup(con, warehouse, backups, run_id=run_id, now=at)


def test_a_killed_backups_half_written_folder_is_swept(warehouse: Path, tmp_path: Path) -> None:
    backups = tmp_path / "backups"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    litter = backups / f".tmp-20261124T180500Z-{dead}"
    litter.mkdir(parents=True)
    (litter / DATABASE).write_bytes(b"half")
    _backup(warehouse, backups, T0)
    assert not litter.exists()
    assert [b.name for b in list_backups(backups)] == ["20261125T180500Z"]
