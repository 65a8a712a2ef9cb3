"""The nightly job: the whole graph, one step at a time (DuckDB has one writer), at 03:00 JST.

Every asset that writes requires the `nightly_lock` resource, so every run that
materializes one holds the data directory's nightly lock (pipelines/run_guard.py), whoever
launched it: this job, the UI, or the automation sensor (some assets are eager). The sensors log
every run into marts.pipeline_runs and alert on failures and stale nights.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipelines.defs.recsys.buckets import BUCKET_RANGE_TAGS
from pipelines.defs.resources import AlertSettings, SiteSettings

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
    tags=BUCKET_RANGE_TAGS,  # every member bucket (recsys/discovery_buckets) in the night's one run
)

bucket_job = dg.define_asset_job(
    "discovery_bucket",
    selection=dg.AssetSelection.assets(["recsys", "discovery_buckets"]),
    description="One member bucket's lists again (a partition key), for a night whose bucket failed; "
                "then materialize marts/recommendations and what follows.",
    executor_def=dg.in_process_executor,
)

#: How often the daemon asks whether a nightly run ended (the two run-status sensors). Dagster's
#: default, 30 s, left a finished night's row of marts.pipeline_runs and its failure alert up to
#: half a minute late (15 s on average); each tick is a query of the instance's run records in
#: the code server, so 10 s costs the daemon little and says a night's end three times sooner.
RUN_SENSOR_SECONDS = 10

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
    minimum_interval_seconds=RUN_SENSOR_SECONDS,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Records each finished nightly run and its checks in marts.pipeline_runs.",
)
def nightly_succeeded(context: dg.RunStatusSensorContext, duckdb: DuckDBResource) -> None:
    from pipelines.run_log import log_run

    log_run(context.instance, context.dagster_run.run_id, duckdb.database)


@dg.run_failure_sensor(
    monitored_jobs=[nightly],
    minimum_interval_seconds=RUN_SENSOR_SECONDS,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Records each failed nightly run in marts.pipeline_runs and POSTs one alert "
    "(BODOGE_ALERT_URL): run id, failed step, root cause, where its logs are.",
)
def nightly_failed(
    context: dg.RunFailureSensorContext, duckdb: DuckDBResource, site: SiteSettings, alerts: AlertSettings
) -> None:
    from pipelines import alerts as alerting
    from pipelines.run_log import log_run_safely

    run_id = context.dagster_run.run_id
    log_run_safely(context.instance, run_id, duckdb.database)
    if alerts.alert_url:
        step, cause = failed_step(context.get_step_failure_events(), fallback=context.failure_event.message or "failed")
        logs = Path(context.instance.root_directory) / "storage" / run_id
        alerting.night_failed(site.paths.data_dir, alerts.alert_url, run_id=run_id, step=step, cause=cause,
                              log_path=logs, base_url=site.base_url or None)


@dg.sensor(
    minimum_interval_seconds=600,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="POSTs one alert (BODOGE_ALERT_URL) when no night has been published for 26 hours, "
    "and once per export bundle not delivered to the site (pending, then overdue after 26 hours).",
)
def nightly_freshness(context: dg.SensorEvaluationContext, site: SiteSettings, alerts: AlertSettings) -> dg.SkipReason:
    from pipelines import alerts as alerting

    if not alerts.alert_url:
        return dg.SkipReason("no BODOGE_ALERT_URL: nobody to tell")
    sent = alerting.freshness_missed(site.paths.data_dir, alerts.alert_url)
    deliveries = alerting.deliveries_pending(site.paths.data_dir, alerts.alert_url)
    said = ["stale: alert sent" if sent else "fresh, or already alerted"]
    return dg.SkipReason("; ".join(said + [f"{key} sent" for key in deliveries]))


def failed_step(failures: Sequence[dg.DagsterEvent], *, fallback: str) -> tuple[str | None, str]:
    """(step, one-line root cause) of a failed run's first failed step.

    `failures` is what Dagster's public `get_step_failure_events()` gives (the sensor's
    context, or an execution result's); a run that failed outside any step has none.
    """
    from pipelines.worker import root_cause

    for event in failures:
        error = getattr(event.event_specific_data, "error", None)
        return event.step_key, (root_cause(error) if error else fallback)
    return None, fallback.splitlines()[0] if fallback else "failed"
