"""Every nightly run, whoever launched it, holds the data directory's lock and recovers dead runs.

Why: `bodoge run` takes the kernel lock (`DATA_DIR/.nightly.lock`) in its supervisor and
hands it to its worker; runs the daemon launches under `bodoge serve` (the 03:00 JST
schedule, a run submitted in the UI) have no supervisor. The `nightly_lock` resource
(pipelines/defs/resources.py) calls `guarded_run` when such a run starts, so it waits for
a running night, marks runs of dead processes failed and frees their slots exactly as
`bodoge run` does, tags itself with its process's identity (so the next run can recover it if it dies),
and hands the lock on to the crawler through the environment.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg

from pipelines.instance import describe
from pipelines.recovery import PID_TAG, Recovered, recover_dead_runs
from ops.lock import LOCK_FD_ENV, acquire, inherited_fds
from ops.procs import identity


def say_progress(message: str) -> None:
    """A progress line `bodoge run` shows on the terminal (and every run writes to its log)."""
    print(f"nightly: {message}", file=sys.stderr, flush=True)


def recover(instance: dg.DagsterInstance, warehouse: str, *, data_dir: Path | None = None,
            say: Callable[[str], None] = say_progress) -> list[Recovered]:
    """Mark dead runs failed, free their slots, record them INTERRUPTED in marts.pipeline_runs;
    with `data_dir`, finish what a killed night left half done there (`repair_data_dir`)."""
    from pipelines.run_log import log_run_safely

    recovered = recover_dead_runs(instance)
    for item in recovered:
        say(f"run {item.run_id} (pid {item.pid}) was dead: {item.what}")
        if item.pid is not None:
            log_run_safely(instance, item.run_id, warehouse, status="INTERRUPTED")
    if data_dir is not None:
        repair_data_dir(Path(data_dir), warehouse, say=say)
    return recovered


def repair_data_dir(data_dir: Path, warehouse: str, *, say: Callable[[str], None] = say_progress) -> None:
    """Before a night starts: members a killed crawl found private are purged and cut everywhere
    (warehouse.privacy.erasure), and exports/LATEST is set to the published night's bundle
    (warehouse.release.release), whatever step the previous night died at."""
    from warehouse.privacy.erasure import settle_pending
    from warehouse.release.publish import published_path, unreadable, unreadable_line
    from warehouse.release.release import repair_release

    if why := unreadable(published_path(data_dir)):
        say(unreadable_line(published_path(data_dir), why))
    settled = settle_pending(data_dir, warehouse)
    if settled:
        say(f"{len(settled)} member(s) a killed crawl found private: cut from the warehouse, "
            "the published night and every export bundle")
    for line in repair_release(data_dir):
        say(line)


@contextmanager
def guarded_run(
    instance: dg.DagsterInstance, run_id: str | None, *, data_dir: Path, warehouse: str,
    say: Callable[[str], None] = say_progress,
) -> Iterator[None]:
    """Hold the nightly lock for the run (unless `bodoge run`'s supervisor already handed it over)."""
    if inherited_fds():  # a `bodoge run` worker: locked and recovered before the run began
        yield
        return
    lock = acquire(Path(data_dir), say=say)
    os.environ[LOCK_FD_ENV] = str(lock.fd)  # the crawler subprocess inherits the lock
    try:
        if run_id:
            instance.add_run_tags(run_id, {PID_TAG: identity()})
        say(f"Dagster instance {describe(instance)}")
        recover(instance, warehouse, data_dir=Path(data_dir), say=say)
        yield
    finally:
        os.environ.pop(LOCK_FD_ENV, None)
        lock.release()
