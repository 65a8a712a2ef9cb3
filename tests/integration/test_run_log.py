"""Recording a finished run waits for a warehouse another process holds for a moment, and a
night settles the rows of earlier nights that ended unrecorded.

Here: the tests that run Dagster in this process, build a demo warehouse or site, or talk to a
local HTTP stub; the rest of this subject: tests/e2e/test_run_log.py.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import dagster as dg

from pipelines.run_log import settle_unfinished
from warehouse.db import connect
from warehouse.nights import start_night


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


def test_a_check_is_recorded_with_its_declared_description() -> None:
    """Issue 42: a check whose result sets no description was recorded with an empty one by a
    `bodoge run` night (23 of 25), while `bodoge build` recorded them all."""
    from pipelines.run_log import check_results, declared_descriptions

    @dg.asset
    def shelf() -> int:
        return 1

    @dg.asset_check(asset=shelf, description="The shelf holds one game.")
    def shelf_holds_one() -> dg.AssetCheckResult:
        return dg.AssetCheckResult(passed=True)  # no description of its own, as most of ours

    defs = dg.Definitions(assets=[shelf], asset_checks=[shelf_holds_one])
    declared = declared_descriptions(defs.get_repository_def())
    assert declared == {("shelf", "shelf_holds_one"): "The shelf holds one game."}
    with dg.DagsterInstance.ephemeral() as instance:
        run = dg.materialize([shelf, shelf_holds_one], instance=instance)
        assert check_results(instance, run.run_id, declared=declared) == [
            {"name": "shelf_holds_one", "asset": "shelf", "passed": True, "severity": "ERROR",
             "description": "The shelf holds one game."}]
    project = declared_descriptions()  # the project's own checks: every one described
    assert len(project) >= 20 and all(project.values())
