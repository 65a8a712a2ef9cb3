"""Cleaning up after nightly runs whose process died (kill -9, OOM, a reboot).

Why: a run killed mid-step stays STARTED in the Dagster instance for ever and keeps the
`warehouse_writer` pool slot it had claimed, so every later run waits for a slot that is
never freed. Each run that `bodoge run` starts carries the tag `bodoge/pid`; before a new
run starts (under the data directory's run lock, so no live run of ours can be missed),
every unfinished run whose process is gone is marked failed and its slots are freed.
Runs launched by the daemon (no pid tag) are left to Dagster's own run monitoring.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import dagster as dg
from dagster._core.storage.dagster_run import NOT_FINISHED_STATUSES  # no public twin

PID_TAG = "bodoge/pid"


@dataclass(frozen=True, slots=True)
class Recovered:
    """A dead run that was marked failed, or a finished run whose slots were still held."""

    run_id: str
    pid: int | None
    what: str


def recover_dead_runs(instance: dg.DagsterInstance, *, is_alive: Callable[[int], bool]) -> list[Recovered]:
    """Mark unfinished runs of dead `bodoge run` workers failed and free every orphaned pool slot."""
    recovered: list[Recovered] = []
    for run in instance.get_runs(dg.RunsFilter(statuses=NOT_FINISHED_STATUSES)):
        pid_text = run.tags.get(PID_TAG)
        if pid_text is None or not pid_text.isdigit() or is_alive(int(pid_text)):
            continue
        instance.report_run_failed(
            run, message=f"interrupted: the process of this run (pid {pid_text}) died; marked failed by the next run"
        )
        instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
        recovered.append(Recovered(run_id=run.run_id, pid=int(pid_text), what="marked failed, slots freed"))
    storage = instance.event_log_storage
    for run_id in storage.get_concurrency_run_ids():
        run = instance.get_run_by_id(run_id)
        if run is None or run.is_finished:
            storage.free_concurrency_slots_for_run(run_id)
            recovered.append(Recovered(run_id=run_id, pid=None, what="finished run's slots freed"))
    return recovered
