"""A `bodoge run` killed at any stage never blocks the next (real processes, real signals).

SIGTERM in the crawl, SIGINT in the build, kill -9 of the whole group in training, kill -9
of the supervisor alone before the export; then a plain `bodoge run` completes with no
manual step, the dead runs are marked failed (INTERRUPTED where the process died), no
pool slot stays claimed and nothing of a killed run is left running or lying around.
A file of its own so that xdist runs it beside the other slow end-to-end tests.
"""

from __future__ import annotations

import signal

import duckdb
import pytest

from tests.support.nightly_process import NightlyProcess, one_error_line, wait_until_gone
from tests.support.nightly_process import site, site_url, slow_site_url  # noqa: F401 - module-scoped fixtures


@pytest.mark.slow
def test_a_run_killed_at_any_stage_never_blocks_the_next(tmp_path, site_url, slow_site_url) -> None:
    """SIGTERM in the crawl, SIGINT in the build, kill -9 of the group in training, kill -9 of
    the supervisor alone before the export: then a plain `bodoge run` completes."""
    stages = [
        ("crawl", lambda ln: ln.startswith("crawl:"), "SIGTERM", 143),
        ("build", lambda ln: ln.startswith("nightly: done marts__games"), "SIGINT", 130),
        ("training", lambda ln: ln.startswith("nightly: done recsys__interactions"), "KILL_GROUP", None),
        ("export", lambda ln: ln.startswith("nightly: done discovery"), "KILL_SUPERVISOR", None),
    ]
    every_line: list[str] = []
    for stage, seen, how, expected_code in stages:
        run = NightlyProcess(tmp_path, slow_site_url if stage == "crawl" else site_url)
        run.wait_for(seen)
        if how == "SIGTERM":
            run.signal(signal.SIGTERM)
        elif how == "SIGINT":
            run.signal(signal.SIGINT)
        elif how == "KILL_GROUP":
            run.kill_group()
        else:
            run.signal(signal.SIGKILL)
        code, lines = run.finish(timeout=120)
        every_line += lines
        if expected_code is not None:
            assert code == expected_code, (stage, lines)
            last = one_error_line(lines)
            assert last.startswith(f"bodoge: interrupted by {how}") and "next run starts cleanly" in last
        else:
            assert code == -signal.SIGKILL
        # Whatever was killed, nothing of that run is left running for long (the crawl of
        # this site alone takes longer than the grace given here).
        assert not wait_until_gone(str(tmp_path), timeout=8), f"{stage}: processes left behind"

    final = NightlyProcess(tmp_path, site_url)
    code, lines = final.finish(timeout=400)
    assert code == 0, "\n".join(lines)
    recovered = [ln for ln in every_line + lines if "was dead: marked failed" in ln]
    assert len(recovered) >= 1, every_line  # at least the kill -9 of the group left a STARTED run

    import dagster as dg

    with dg.DagsterInstance.from_config(str(tmp_path / "dagster_home")) as instance:
        runs = instance.get_runs()
        statuses = sorted(r.status.value for r in runs)
        assert statuses.count("SUCCESS") == 1 and statuses.count("FAILURE") == 4, statuses
        assert not instance.event_log_storage.get_concurrency_run_ids()
    with duckdb.connect(str(tmp_path / "warehouse.duckdb"), read_only=True) as con:
        outcomes = dict(con.execute("SELECT status, count(*) FROM marts.pipeline_runs GROUP BY status").fetchall())
        running = con.execute("SELECT count(*) FROM raw.crawl_runs WHERE status = 'running'").fetchone()[0]
    assert outcomes.get("SUCCESS") == 1 and outcomes.get("INTERRUPTED", 0) >= 1, outcomes
    assert running == 0
    assert (tmp_path / "exports" / "LATEST").exists()
    assert not list((tmp_path / "exports").glob(".tmp-*"))
