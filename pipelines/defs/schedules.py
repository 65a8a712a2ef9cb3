"""The nightly job: the whole graph, one step at a time (DuckDB has one writer), at 03:00 JST."""

from __future__ import annotations

import sys

import dagster as dg
from dagster_duckdb import DuckDBResource

@dg.success_hook(name="stage_done")
def stage_done(context: dg.HookContext) -> None:
    """One progress line per finished stage, with its row counts (`bodoge run` shows these)."""
    rows = []
    for output, metadata in (context.op_output_metadata or {}).items():
        count = (metadata or {}).get("dagster/row_count") if isinstance(metadata, dict) else None
        if count is not None:
            rows.append(f"{getattr(count, 'value', count):,}")
    detail = f" ({', '.join(rows)} rows)" if len(rows) == 1 else ""
    print(f"nightly: done {context.step_key}{detail}", file=sys.stderr, flush=True)


@dg.failure_hook(name="stage_failed")
def stage_failed(context: dg.HookContext) -> None:
    print(f"nightly: FAILED {context.step_key}", file=sys.stderr, flush=True)


nightly = dg.define_asset_job(
    "nightly",
    selection=dg.AssetSelection.all(),
    description="Crawl → warehouse → features → models → recommendations → export.",
    executor_def=dg.in_process_executor,
    hooks={stage_done, stage_failed},
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
def nightly_succeeded(context: dg.RunStatusSensorContext, duckdb: DuckDBResource) -> None:
    from pipelines.run_log import log_run

    log_run(context.instance, context.dagster_run.run_id, duckdb.database)


@dg.run_failure_sensor(
    monitored_jobs=[nightly],
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Records each failed nightly run and its checks in marts.pipeline_runs.",
)
def nightly_failed(context: dg.RunFailureSensorContext, duckdb: DuckDBResource) -> None:
    from pipelines.run_log import log_run

    log_run(context.instance, context.dagster_run.run_id, duckdb.database)
