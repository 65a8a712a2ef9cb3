"""Cleaning up after nightly runs whose process died (kill -9, OOM, a reboot).

Why: a run killed mid-step stays STARTED in the Dagster instance for ever and keeps the
`warehouse_writer` pool slot it had claimed, so every later run waits for a slot that is
never freed. Every run of the nightly job carries the tag `bodoge/pid` naming its process
(`ops.procs.identity`: pid, start time and boot id, so a pid reused after a container
restart is not taken for the dead run's process); before a new run starts (under the data
directory's run lock, so no live run of ours can be missed), every unfinished run whose
process is gone is marked failed and its slots are freed. A tag written before identities
holds a bare pid: its process counts as the run's only if it started before the run did.
Runs without the tag are left to Dagster's own run monitoring.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import dagster as dg

from ops.procs import identity_pid, owner_alive

PID_TAG = "bodoge/pid"
# Every status a run can be in before it ends (Dagster's public enum; its own list of these
# is private). SUSPENDED is one: a suspended run still holds its pool slot.
NOT_FINISHED = [
    dg.DagsterRunStatus.QUEUED, dg.DagsterRunStatus.NOT_STARTED, dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.SUSPENDED, dg.DagsterRunStatus.CANCELING,
]


@dataclass(frozen=True, slots=True)
class Recovered:
    """A dead run that was marked failed, or a finished run whose slots were still held."""

    run_id: str
    pid: int | None
    what: str


def recover_dead_runs(
    instance: dg.DagsterInstance, *, is_alive: Callable[..., bool] = owner_alive
) -> list[Recovered]:
    """Mark unfinished runs of dead nightly processes failed and free every orphaned pool slot.

    `is_alive(tag, written_at=…)` decides (`ops.procs.owner_alive`); a bare-pid tag is
    taken as written when the run started (the process tags its run before or right
    after that, and was started before it).
    """
    recovered: list[Recovered] = []
    for record in instance.get_run_records(dg.RunsFilter(statuses=NOT_FINISHED)):
        run = record.dagster_run
        owner = run.tags.get(PID_TAG)
        pid = identity_pid(owner) if owner is not None else None
        written_at = record.start_time or record.create_timestamp.timestamp()
        if pid is None or is_alive(owner, written_at=written_at):
            continue
        instance.report_run_failed(
            run, message=f"interrupted: the process of this run (pid {pid}) died; marked failed by the next run"
        )
        instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
        recovered.append(Recovered(run_id=run.run_id, pid=pid, what="marked failed, slots freed"))
    storage = instance.event_log_storage
    for run_id in storage.get_concurrency_run_ids():
        holder = instance.get_run_by_id(run_id)
        if holder is None or holder.is_finished:
            storage.free_concurrency_slots_for_run(run_id)
            recovered.append(Recovered(run_id=run_id, pid=None, what="finished run's slots freed"))
    return recovered
