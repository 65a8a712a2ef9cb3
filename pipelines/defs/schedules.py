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
