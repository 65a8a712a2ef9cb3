"""kill -9 of a night on an instance in PostgreSQL: the next night recovers it, under
`bodoge run` and under `bodoge serve`.

The same promise as tests/e2e/test_nightly_supervision.py's killed runs, with the runs, the
event log and the `warehouse_writer` pool slot in a real PostgreSQL server
(tests/support/postgres_server.py): the dead run is marked failed there and its slot, held in
`concurrency_slots`, is freed. Under `bodoge serve`, the daemon launches a nightly on the
same instance, which takes the nightly lock, marks the dead run failed, frees its slot and
succeeds; nothing of the instance is in SQLite, and the password is in no log, no line and
no file of the data directory.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.instance import PG_URL_ENV
from tests.support.nightly_process import NightlyProcess, one_error_line
from tests.support.postgres_nights import assert_recovered, kill_a_night_holding_the_slot, pg, small_site_url  # noqa: F401
from tests.support.postgres_server import PASSWORD
from tests.support.serve_process import logged, serving, submit_and_wait


def test_a_night_killed_holding_the_slot_is_recovered_by_the_next_run(tmp_path: Path, small_site_url: str, pg) -> None:  # noqa: F811
    db = "nights"
    pg.create_database(db)
    dead = kill_a_night_holding_the_slot(pg, db, tmp_path, small_site_url)
    final = NightlyProcess(tmp_path, small_site_url, env={PG_URL_ENV: pg.url(db)})
    code, lines = final.finish(timeout=300)
    assert code == 0, "\n".join(lines)
    one_error_line(lines)  # no traceback reached the terminal
    assert any(ln.startswith(f"nightly: run {dead}") and "was dead: marked failed, slots freed" in ln for ln in lines)
    assert any(ln.startswith("nightly: Dagster instance on PostgreSQL (postgresql://bodoge@127.0.0.1:") for ln in lines)
    succeeded = pg.query(db, "SELECT run_id FROM runs WHERE status = 'SUCCESS'")
    assert len(succeeded) == 1, succeeded
    assert_recovered(pg, db, tmp_path, dead, succeeded[0][0])


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
