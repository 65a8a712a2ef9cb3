"""kill -9 of a night on an instance in PostgreSQL: the next `bodoge run` recovers it.

The same promise as tests/test_nightly_crashes.py, with the runs, the event log and the
`warehouse_writer` pool slot in a real PostgreSQL server (tests/postgres_server.py):
the dead run is marked failed there and its slot, held in `concurrency_slots`, is freed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.instance import PG_URL_ENV
from tests.support.nightly_process import NightlyProcess, one_error_line
from tests.support.postgres_nights import assert_recovered, kill_a_night_holding_the_slot, pg, small_site_url  # noqa: F401


@pytest.mark.slow
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
