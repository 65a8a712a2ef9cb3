"""Settings reach Dagster through resources: sensors and assets never read the environment.

Here: the tests that run Dagster in this process, build a demo warehouse or site, or talk to a
local HTTP stub; the rest of this subject: tests/unit/test_settings_resources.py.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipelines.defs.schedules import nightly_succeeded
from warehouse.db import connect


@dg.op
def _noop() -> None:
    """A one-step job whose finished run the sensor records."""


@dg.job
def _tiny() -> None:
    _noop()


def test_the_run_sensor_writes_to_the_warehouse_its_resource_names(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BODOGE_WAREHOUSE", str(tmp_path / "not-this-one.duckdb"))
    warehouse = tmp_path / "warehouse.duckdb"
    with dg.DagsterInstance.ephemeral() as instance:
        result = _tiny.execute_in_process(instance=instance)
        success = next(e for e in result.all_events if e.event_type == dg.DagsterEventType.RUN_SUCCESS)
        context = dg.build_run_status_sensor_context(
            sensor_name="nightly_succeeded", dagster_event=success, dagster_instance=instance,
            dagster_run=result.dagster_run, resources={"duckdb": DuckDBResource(database=str(warehouse))},
        )
        nightly_succeeded(context)
    assert not (tmp_path / "not-this-one.duckdb").exists()
    with connect(warehouse, read_only=True) as con:
        assert con.execute("SELECT run_id, status FROM marts.pipeline_runs").fetchall() == [
            (result.run_id, "SUCCESS")]
