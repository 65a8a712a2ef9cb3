"""Recording a finished run waits for a warehouse another process holds for a moment, and a
night settles the rows of earlier nights that ended unrecorded."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import duckdb

from pipelines.run_log import _writer

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
    with _writer(str(path)) as con:  # Dagster's DuckDBResource: backoff while the lock is held
        assert time.monotonic() - started >= 1.0  # it did wait for the holder
        con.execute("CREATE TABLE t AS SELECT 1 AS x")
    holder.wait(timeout=10)
