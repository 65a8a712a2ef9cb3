"""A dead night's pid given to another process (pids repeat, soonest after a container
restart) is not taken for the night's process: its run is failed, its pool slot freed, its
scratch folder swept, and the next night does not wait for ever.

Here: the tests that need no process, no socket and no Dagster run; the rest of this subject:
tests/e2e/test_pid_reuse.py.
"""

from __future__ import annotations





def test_recovery_looks_at_every_status_dagster_counts_as_unfinished() -> None:
    """Recovery names the unfinished statuses from Dagster's public enum; if Dagster adds one,
    this fails rather than leaving a run of that status holding its slot for ever."""
    from dagster._core.storage.dagster_run import NOT_FINISHED_STATUSES  # the private list, pinned here only

    from pipelines.recovery import NOT_FINISHED

    assert set(NOT_FINISHED) == set(NOT_FINISHED_STATUSES)
