"""The warehouse's schema brought up to this version before the night writes (warehouse/migrate.py,
under a backup: warehouse/backup/migration.py), and the night's own row (warehouse/nights.py)."""

from datetime import datetime, timezone
from pathlib import Path

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipelines.defs.resources import NightlyLock, SiteSettings, warehouse_file_free
from pipelines.run_log import settle_unfinished
from warehouse.backup.migration import migrate_safely
from warehouse.migrate import MigrationFailed
from warehouse.nights import ensure_night_marts, start_night


@dg.asset(
    key=["warehouse", "schema"],
    group_name="ingest",
    kinds={"duckdb"},
    pool="warehouse_writer",
)
def warehouse_schema(context: dg.AssetExecutionContext, duckdb: DuckDBResource, site: SiteSettings, nightly_lock: NightlyLock) -> dg.MaterializeResult:
    """Applies pending migrations (numbered SQL files, declared raw columns the file lacks),
    then records the night as started.

    First in the night, so a warehouse written by an older version is migrated before the
    crawl writes to it; backed up first, and put back from that backup when a migration
    fails (the night then fails and alerts, and nothing else runs). Then every mart a night
    writes exists (empty on a first night) with the views over them (marts.nights,
    marts.model_quality), and marts.pipeline_runs holds the night's row (STARTED), keyed by
    the run's id: the night id every table of the night carries. Rows of earlier nights
    still STARTED take the outcome Dagster recorded for them.
    """
    try:
        with warehouse_file_free(duckdb):  # migrating opens (and may restore) the file itself
            steps = migrate_safely(Path(duckdb.database), site.backups, run_id=context.run.run_id)
    except MigrationFailed as exc:
        raise dg.Failure(str(exc)) from None
    with duckdb.get_connection() as con:
        ensure_night_marts(con)
        start_night(con, night_id=context.run.run_id, job=context.run.job_name,
                    started_at=datetime.now(timezone.utc))
    settled = settle_unfinished(context.instance, duckdb.database, current=context.run.run_id)
    if settled:
        context.log.info(f"earlier nights recorded as Dagster ended them: {', '.join(settled)}")
    if steps:
        context.log.info(f"warehouse migrated: {', '.join(steps)}")
    return dg.MaterializeResult(metadata={"migrated": ", ".join(steps) or "nothing pending",
                                          "night_id": context.run.run_id})
