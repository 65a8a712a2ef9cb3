"""The nightly job: the whole graph, one step at a time (DuckDB has one writer), at 03:00 JST."""

from __future__ import annotations

import dagster as dg

nightly = dg.define_asset_job(
    "nightly",
    selection=dg.AssetSelection.all(),
    description="Crawl → warehouse → features → models → recommendations → export.",
    executor_def=dg.in_process_executor,
)

nightly_schedule = dg.ScheduleDefinition(
    name="nightly_at_3am_jst",
    job=nightly,
    cron_schedule="0 3 * * *",
    execution_timezone="Asia/Tokyo",
    default_status=dg.DefaultScheduleStatus.RUNNING,
)


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.SUCCESS,
    monitored_jobs=[nightly],
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Records each finished nightly run and its checks in marts.pipeline_runs.",
)
def nightly_succeeded(context: dg.RunStatusSensorContext) -> None:
    import os

    from pipelines.run_log import log_run

    log_run(context.instance, context.dagster_run.run_id, os.environ["BODOGE_WAREHOUSE"])


@dg.run_failure_sensor(
    monitored_jobs=[nightly],
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Records each failed nightly run and its checks in marts.pipeline_runs.",
)
def nightly_failed(context: dg.RunFailureSensorContext) -> None:
    import os

    from pipelines.run_log import log_run

    log_run(context.instance, context.dagster_run.run_id, os.environ["BODOGE_WAREHOUSE"])
