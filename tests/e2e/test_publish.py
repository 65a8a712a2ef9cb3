"""The published night: readers' snapshot, swapped in whole, and what it says about itself.

Here: the tests that start real processes; the rest of this subject: tests/unit/test_publish.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.warehouse_fixtures import build_small_warehouse
from warehouse.db import connect
from warehouse.release.publish import publish_snapshot


@pytest.fixture()
def data_dir(tmp_path: Path) -> Path:
    build_small_warehouse(tmp_path / "warehouse.duckdb")
    return tmp_path


def test_a_killed_publish_leaves_nothing_the_next_one_does_not_sweep(data_dir: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    litter = data_dir / f".published.duckdb.{dead.stdout.strip()}.tmp"
    litter.write_bytes(b"half a snapshot")
    with connect(data_dir / "warehouse.duckdb") as con:
        publish_snapshot(con, data_dir, run_id="night-1")
    assert not litter.exists()
    assert [p.name for p in data_dir.glob(".published*")] == []
