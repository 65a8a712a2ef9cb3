"""Recording a finished run waits for a warehouse another process holds for a moment, and a
night settles the rows of earlier nights that ended unrecorded."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import dagster as dg
import duckdb

from pipelines.run_log import _writer, settle_unfinished
from warehouse.db import connect
from warehouse.nights import start_night

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


def test_an_earlier_night_left_started_takes_the_outcome_dagster_recorded(tmp_path: Path) -> None:
    """A night writes its row of marts.pipeline_runs when it starts; one that ended unrecorded
    (canceled under the daemon) is settled by the next night from Dagster's own record."""
    @dg.op
    def one() -> int:
        return 1

    @dg.job
    def nightly() -> None:
        one()

    path = tmp_path / "warehouse.duckdb"
    with dg.DagsterInstance.ephemeral() as instance:
        earlier = nightly.execute_in_process(instance=instance).run_id
        with connect(path) as con:
            for night in (earlier, "tonight"):
                start_night(con, night_id=night, job="nightly", started_at=datetime.now(timezone.utc))
        assert settle_unfinished(instance, str(path), current="tonight") == [earlier]
    with connect(path, read_only=True) as con:
        rows = con.execute("SELECT run_id, status, finished_at IS NOT NULL FROM marts.pipeline_runs "
                           "ORDER BY status").fetchall()
    assert rows == [("tonight", "STARTED", False), (earlier, "SUCCESS", True)]
