"""The warehouse's schema brought up to this version before the night writes (warehouse/migrate.py)."""

from pathlib import Path

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipelines.defs.resources import SiteSettings
from warehouse.migrate import MigrationFailed, migrate


@dg.asset(
    key=["warehouse", "schema"],
    group_name="ingest",
    kinds={"duckdb"},
    pool="warehouse_writer",
)
def warehouse_schema(context: dg.AssetExecutionContext, duckdb: DuckDBResource, site: SiteSettings) -> dg.MaterializeResult:
    """Applies pending migrations (numbered SQL files, declared raw columns the file lacks).

    First in the night, so a warehouse written by an older version is migrated before the
    crawl writes to it; backed up first, and put back from that backup when a migration
    fails (the night then fails and alerts, and nothing else runs).
    """
    try:
        steps = migrate(Path(duckdb.database), site.backups, run_id=context.run.run_id)
    except MigrationFailed as exc:
        raise dg.Failure(str(exc)) from None
    if steps:
        context.log.info(f"warehouse migrated: {', '.join(steps)}")
    return dg.MaterializeResult(metadata={"migrated": ", ".join(steps) or "nothing pending"})
