"""`bodoge serve` on an instance in PostgreSQL: the daemon's night recovers a night killed with kill -9.

A `bodoge run` is killed while its run holds the `warehouse_writer` slot (in PostgreSQL's
`concurrency_slots`); then `bodoge serve` starts on the same instance and the daemon
launches a nightly, which takes the nightly lock, marks the dead run failed, frees its
slot and succeeds. Runs, event log and pool live in a real PostgreSQL server
(tests/postgres_server.py); nothing of the instance is in SQLite, and the password is
in no log, no line and no file of the data directory.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.instance import PG_URL_ENV
from tests.support.postgres_nights import assert_recovered, kill_a_night_holding_the_slot, pg, small_site_url  # noqa: F401
from tests.support.postgres_server import PASSWORD
from tests.support.serve_process import logged, serving, submit_and_wait


@pytest.mark.slow
def test_serve_on_postgres_recovers_a_killed_night_and_runs_the_next(  # noqa: F811
    tmp_path: Path, small_site_url: str, pg, monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = "serve"
    pg.create_database(db)
    data = tmp_path / "data"
    dead = kill_a_night_holding_the_slot(pg, db, data, small_site_url)
    monkeypatch.setenv(PG_URL_ENV, pg.url(db))  # what the service's environment file would set
    with serving(data, small_site_url) as client:
        run_id, status = submit_and_wait(client)
        assert status == "SUCCESS", status
        assert logged(data / "warehouse.duckdb", run_id) == "SUCCESS"
    serve_logs = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in (data / "logs").glob("serve-*.log"))
    assert f"serve: Dagster instance on PostgreSQL (postgresql://bodoge@127.0.0.1:{pg.port}/{db})" in serve_logs
    assert PASSWORD not in serve_logs
    assert_recovered(pg, db, data, dead, run_id)
