"""Nights on an instance in PostgreSQL: a night killed with kill -9 while it holds the pool slot.

Why a helper: the two PostgreSQL nights (the next night under `bodoge run`, and under
`bodoge serve`, tests/e2e/test_postgres_nights.py) start the same way.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import duckdb
import pytest

from pipelines.instance import PG_URL_ENV
from tests.support.nightly_process import NightlyProcess, wait_until_gone
from samplesite.generator import generate_site
from samplesite.server import SampleSiteServer
from tests.support.postgres_server import PASSWORD, Server, postgres_server

CLAIMED = "SELECT run_id FROM concurrency_slots WHERE run_id IS NOT NULL"


@pytest.fixture(scope="module")
def pg():
    with postgres_server() as server:
        yield server


@pytest.fixture(scope="module")
def small_site_url():
    """A site small enough for two nights in well under three minutes (the storage is the point)."""
    with SampleSiteServer(generate_site(n_games=30, n_users=40, seed=11, faults=False)) as server:
        yield server.base_url


def kill_a_night_holding_the_slot(pg: Server, db: str, data: Path, base_url: str) -> str:
    """Start `bodoge run` on the instance in `db`; once its run holds the `warehouse_writer`
    slot in PostgreSQL, kill -9 its whole process group. Returns the dead run's id."""
    run = NightlyProcess(data, base_url, env={PG_URL_ENV: pg.url(db)})
    run.wait_for(lambda ln: ln.startswith("nightly: Dagster instance on PostgreSQL"))
    # The schema step holds the slot only for an instant; the crawl holds it for seconds.
    run.wait_for(lambda ln: "done warehouse__schema" in ln)
    deadline = time.monotonic() + 120
    claimed: list[tuple] = []
    while not claimed and time.monotonic() < deadline and run.proc.poll() is None:
        claimed = pg.query(db, CLAIMED)
        time.sleep(0.2)
    assert claimed, "the night never claimed a pool slot in PostgreSQL:\n" + "\n".join(run.lines)
    run.kill_group()
    code, lines = run.finish(timeout=60)
    assert code == -signal.SIGKILL, lines
    assert not wait_until_gone(str(data), timeout=10), "the killed night left processes behind"
    dead = claimed[0][0]
    assert pg.query(db, "SELECT status FROM runs WHERE run_id = %s", (dead,)) == [("STARTED",)]
    assert pg.query(db, CLAIMED) == [(dead,)]  # the dead run still holds the slot, in PostgreSQL
    assert not any(PASSWORD in ln for ln in lines)
    return dead


def assert_recovered(pg: Server, db: str, data: Path, dead: str, succeeded: str) -> None:
    """The dead run failed and logged INTERRUPTED, the next one succeeded, no slot is held,
    nothing of the instance is in SQLite, and the password is in no file of the data dir."""
    statuses = dict(pg.query(db, "SELECT run_id, status FROM runs"))
    assert statuses == {dead: "FAILURE", succeeded: "SUCCESS"}, statuses
    assert pg.query(db, CLAIMED) == []
    assert pg.query(db, "SELECT concurrency_key, \"limit\" FROM concurrency_limits") == [("warehouse_writer", 1)]
    assert not list((data / "dagster_home").rglob("*.db")), "the instance wrote SQLite files"
    with duckdb.connect(str(data / "warehouse.duckdb"), read_only=True) as con:
        outcomes = dict(con.execute("SELECT run_id, status FROM marts.pipeline_runs").fetchall())
    assert outcomes.get(dead) == "INTERRUPTED" and outcomes.get(succeeded) == "SUCCESS", outcomes
    for path in data.rglob("*"):
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), f"the password is in {path}"


__all__ = ["pg", "small_site_url", "kill_a_night_holding_the_slot", "assert_recovered"]
