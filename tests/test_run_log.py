"""Recording a finished run waits for a warehouse another process holds for a moment."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from pipelines.run_log import _connect_when_free
from warehouse.db import WarehouseError

HOLD = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1])
print("held", flush=True)
time.sleep(float(sys.argv[2]))
con.close()
"""


def _hold(path: Path, seconds: float) -> subprocess.Popen:
    """A real process holding the warehouse's write lock for `seconds`."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_waits_while_another_process_holds_the_warehouse_then_writes(tmp_path: Path) -> None:
    path = tmp_path / "warehouse.duckdb"
    duckdb.connect(str(path)).close()
    holder = _hold(path, 2.0)
    started = time.monotonic()
    con = _connect_when_free(str(path), wait=30.0)
    try:
        assert time.monotonic() - started >= 1.0  # it did wait for the holder
        con.execute("CREATE TABLE t AS SELECT 1 AS x")
    finally:
        con.close()
    holder.wait(timeout=10)


def test_gives_up_in_one_error_when_the_holder_stays(tmp_path: Path) -> None:
    path = tmp_path / "warehouse.duckdb"
    duckdb.connect(str(path)).close()
    holder = _hold(path, 10.0)
    try:
        with pytest.raises(WarehouseError, match="lock"):
            _connect_when_free(str(path), wait=1.0)
    finally:
        holder.kill()
        holder.wait(timeout=10)
