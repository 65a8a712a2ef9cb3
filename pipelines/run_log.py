"""A finished Dagster run, with its check results, as a row of marts.pipeline_runs.

Used by the run-status sensors (scheduled runs under the daemon) and by `bodoge run`
(in-process runs), so the dashboard's overview shows the last nightly run either way.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

import dagster as dg
from dagster_duckdb import DuckDBResource

from warehouse.model_marts import record_pipeline_run


def check_results(instance: dg.DagsterInstance, run_id: str, *,
                  declared: Mapping[tuple[str, str], str] | None = None) -> list[dict]:
    """Every asset check evaluated in the run: name, asset, passed, severity, description.

    The description is the evaluation's own, else the one the check declares (`declared`,
    by (asset, check name); default: the project's definitions, `declared_descriptions`).
    Why: a check's evaluation carries a description only when its result sets one, so a
    `bodoge run` night recorded 23 of 25 empty while `bodoge build` (from the SQL files)
    recorded every one: every publisher records the same words now."""
    entries = instance.all_logs(run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION)
    results = []
    for entry in entries:
        event = entry.dagster_event
        data = event.event_specific_data if event is not None else None
        if not isinstance(data, dg.AssetCheckEvaluation):
            continue  # not one (the log was read for check evaluations only)
        asset = data.asset_key.to_user_string()
        description = data.description
        if not description:
            declared = declared_descriptions() if declared is None else declared
            description = declared.get((asset, data.check_name), "")
        results.append({
            "name": data.check_name,
            "asset": asset,
            "passed": bool(data.passed),
            "severity": data.severity.value,
            "description": description,
        })
    return results


def declared_descriptions(repository: dg.RepositoryDefinition | None = None) -> dict[tuple[str, str], str]:
    """Each asset check's declared description by (asset, check name): of `repository` (an
    asset's `context.repository_def`), else of the project's definitions (loaded once)."""
    if repository is None:
        return dict(_project_descriptions())
    return {(key.asset_key.to_user_string(), key.name): spec.description or ""
            for checks in repository.asset_checks_defs_by_key.values()
            for key, spec in ((s.key, s) for s in checks.check_specs)}


@functools.cache
def _project_descriptions() -> tuple[tuple[tuple[str, str], str], ...]:
    from pipelines.definitions import defs

    return tuple(declared_descriptions(defs().get_repository_def()).items())


def log_run(instance: dg.DagsterInstance, run_id: str, warehouse: str, *, status: str | None = None) -> list[dict]:
    """Write the run's row into marts.pipeline_runs; returns its check results.

    `status` overrides Dagster's (INTERRUPTED for a run whose process died).
    """
    record = instance.get_run_record_by_id(run_id)
    if record is None:
        return []
    checks = check_results(instance, run_id)
    started = datetime.fromtimestamp(record.start_time or record.create_timestamp.timestamp(), timezone.utc)
    finished = datetime.fromtimestamp(record.end_time, timezone.utc) if record.end_time else datetime.now(timezone.utc)
    with _writer(warehouse) as con:
        record_pipeline_run(
            con,
            run_id=run_id,
            job=record.dagster_run.job_name,
            started_at=started,
            finished_at=finished,
            status=status or record.dagster_run.status.value,
            checks=checks,
        )
    return checks


def _writer(warehouse: str) -> Any:
    """The warehouse opened for writing by Dagster's DuckDBResource, which retries a lock
    held elsewhere with exponential backoff (about 100 s in all).

    Why wait: the sensors fire as a run ends, while its process may still be closing the
    file (or a reader has it open for a moment), and a run-status sensor sees each run
    once: giving up at the first refusal lost that night's row of marts.pipeline_runs.
    """
    return DuckDBResource(database=warehouse).get_connection()


def settle_unfinished(instance: dg.DagsterInstance, warehouse: str, *, current: str) -> list[str]:
    """Record the outcome of earlier nights whose row of marts.pipeline_runs still says STARTED.

    Why: a night writes its row when it starts (`warehouse.nights.start_night`), and a run
    that ended without being recorded (canceled in the UI under the daemon, stopped by a
    signal before its worker could write) would otherwise say STARTED for ever in
    marts.nights. Dagster still knows how each ended; one night runs at a time per data
    directory, so any other STARTED row is over. Returns the run ids recorded.
    """
    with _writer(warehouse) as con:
        stale = [r[0] for r in con.execute(
            "SELECT run_id FROM marts.pipeline_runs WHERE status = 'STARTED' AND run_id <> ?", [current]
        ).fetchall()]
    for run_id in stale:
        log_run_safely(instance, run_id, warehouse)
    return stale


def log_run_safely(instance: dg.DagsterInstance, run_id: str, warehouse: str, **kwargs: Any) -> list[dict]:
    """`log_run`, but a warehouse that cannot be written is said, not fatal.

    Why not fatal: the run's outcome must still reach the supervisor (or the sensor's
    alert), and the Dagster instance keeps the run's record either way.
    """
    try:
        return log_run(instance, run_id, warehouse, **kwargs)
    except Exception as exc:  # noqa: BLE001 - reported, and the outcome still goes out
        print(f"nightly: could not record run {run_id} in marts.pipeline_runs: {exc}", file=sys.stderr, flush=True)
        return check_results(instance, run_id)
