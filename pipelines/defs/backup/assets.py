"""The night's warehouse backup, after the night is published (warehouse/backup/backup.py)."""

from pathlib import Path

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipelines.defs.resources import AlertSettings, NightlyLock, SiteSettings
from warehouse.backup.backup import BackupError, make_backup


@dg.asset(
    key=["backup", "warehouse_backup"],
    deps=[dg.AssetKey(["export", "published_night"])],
    group_name="backup",
    kinds={"duckdb"},
    pool="warehouse_writer",
)
def warehouse_backup(
    context: dg.AssetExecutionContext, duckdb: DuckDBResource, site: SiteSettings, alerts: AlertSettings,
    nightly_lock: NightlyLock,
) -> dg.MaterializeResult:
    """A verified copy of the warehouse in DATA_DIR/backups/<UTC time>/ (7 daily, 4 weekly kept).

    After the publish, so a backup always holds a night that readers saw whole; under the
    `warehouse_writer` pool and the nightly lock, so nothing writes during the copy. A
    backup that fails does not fail the night (its data is published): it is one alert
    (`backup_failed`, BODOGE_ALERT_URL) and a warning, and the next night tries again.
    """
    try:
        with duckdb.get_connection() as con:
            backup = make_backup(con, Path(duckdb.database), site.backups, run_id=context.run.run_id)
    except BackupError as exc:
        context.log.warning(f"backup failed: {exc}")
        _alert(site, alerts, run_id=context.run.run_id, cause=str(exc), log=context.log)
        return dg.MaterializeResult(metadata={"ok": False, "error": str(exc)})
    context.log.info(f"backup {backup.describe()} verified in {backup.seconds:.1f}s")
    return dg.MaterializeResult(metadata={
        "ok": True, "path": str(backup.path), "bytes": backup.bytes, "sha256": backup.sha256,
        "tables": len(backup.tables), "seconds": round(backup.seconds, 2)})


def _alert(site: SiteSettings, alerts: AlertSettings, *, run_id: str, cause: str, log: object) -> None:
    """One `backup_failed` alert per night, when an alert endpoint is set."""
    from pipelines.alerts import AlertUndelivered, send_alert

    if not alerts.alert_url:
        return
    payload = {"kind": "backup_failed", "run_id": run_id, "cause": cause}
    try:
        send_alert(site.paths.data_dir, alerts.alert_url, key=f"backup-{run_id}", payload=payload)
    except AlertUndelivered as exc:
        log.warning(f"backup alert not delivered: {exc}")  # type: ignore[attr-defined]
