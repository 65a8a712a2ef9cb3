"""A dead night's pid given to another process (pids repeat, soonest after a container
restart) is not taken for the night's process: its run is failed, its pool slot freed, its
scratch folder swept, and the next night does not wait for ever.

The reused pid is simulated with a real `sleep` started after the record was written: a
record that names it (a bare pid, as records were written before identities, or the pid
with another start time or boot id) names a dead process.
"""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipelines.recovery import PID_TAG
from tests.support.nightly_process import NightlyProcess
from tests.support.nightly_process import site, site_url, slow_site_url  # noqa: F401 - module-scoped fixtures


def proc_identity(pid: int) -> str:
    """`<pid>:<start time>:<boot id>`, read here from /proc independently of the code under test."""
    start = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[-1].split()[19]
    return f"{pid}:{start}:{Path('/proc/sys/kernel/random/boot_id').read_text(encoding='utf-8').strip()}"


@pytest.fixture
def stranger() -> Iterator[subprocess.Popen]:
    """A live process unrelated to any night: the one a dead night's pid now belongs to."""
    proc = subprocess.Popen(["sleep", "600"])
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def test_an_identity_names_one_process_of_one_boot(stranger: subprocess.Popen) -> None:
    from ops.procs import identity, owner_alive

    assert identity(stranger.pid) == proc_identity(stranger.pid)
    pid, start, boot = identity(stranger.pid).split(":")
    assert owner_alive(identity(stranger.pid), written_at=None)
    assert not owner_alive(f"{pid}:{int(start) + 1}:{boot}", written_at=None)  # same pid, another process
    assert not owner_alive(f"{pid}:{start}:{uuid.uuid4()}", written_at=None)  # same numbers, another boot
    assert owner_alive(f"{pid} {start}", written_at=None)  # the scratch owner files of older crawls
    assert owner_alive(pid, written_at=time.time())  # a bare pid written after its process started
    assert not owner_alive(pid, written_at=time.time() - 600)  # ... or before: a reused pid
    assert not owner_alive("", written_at=None) and not owner_alive("nobody", written_at=None)


def test_recovery_fails_a_run_whose_pid_now_names_another_process(tmp_path: Path, stranger: subprocess.Popen) -> None:
    """A real instance: three STARTED runs holding pool slots, each tagged with the stranger's pid."""
    import dagster as dg

    from bodoge.jobs import dagster_home
    from core.config import resolve_paths
    from pipelines.run_guard import recover

    pid, start, boot = proc_identity(stranger.pid).split(":")
    tags = {
        "reused": f"{pid}:{int(start) - 1}:{boot}",  # a dead night's pid, now the stranger's
        "rebooted": f"{pid}:{start}:{uuid.uuid4()}",  # the same numbers before a reboot
        "alive": proc_identity(stranger.pid),  # really the stranger's own run
    }
    home = dagster_home(resolve_paths(data_dir=str(tmp_path)))
    with dg.DagsterInstance.from_config(str(home)) as instance:
        run_ids = {}
        for name, tag in tags.items():
            run = dg.DagsterRun(job_name="nightly", run_id=str(uuid.uuid4()), status=dg.DagsterRunStatus.STARTED,
                                tags={PID_TAG: tag})
            instance.add_run(run)
            instance.event_log_storage.claim_concurrency_slot(f"pool-{name}", run.run_id, "raw_tables")
            run_ids[name] = run.run_id
        said: list[str] = []
        recovered = recover(instance, str(tmp_path / "warehouse.duckdb"), say=said.append)
        assert sorted(r.run_id for r in recovered) == sorted([run_ids["reused"], run_ids["rebooted"]])
        assert {r.pid for r in recovered} == {stranger.pid} and len(said) == 2
        status = {name: instance.get_run_by_id(run_id).status for name, run_id in run_ids.items()}
        assert status == {"reused": dg.DagsterRunStatus.FAILURE, "rebooted": dg.DagsterRunStatus.FAILURE,
                          "alive": dg.DagsterRunStatus.STARTED}
        assert instance.event_log_storage.get_concurrency_run_ids() == {run_ids["alive"]}


def test_a_killed_night_whose_pid_was_reused_does_not_hang_the_next(
    tmp_path: Path, site_url: str, slow_site_url: str  # noqa: F811
) -> None:
    """kill -9 of a night in its crawl, then its pid "reused": the next night completes in bounded time.

    The dead night's records are rewritten as a night before identities wrote them (a bare
    pid) naming the stranger, which was started after them.
    """
    import dagster as dg

    killed = NightlyProcess(tmp_path, slow_site_url)
    killed.wait_for(lambda line: line.startswith("crawl:"))
    killed.kill_group()
    killed.finish(timeout=60)
    with dg.DagsterInstance.from_config(str(tmp_path / "dagster_home")) as instance:
        (dead_run,) = instance.get_runs(dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))
        assert instance.event_log_storage.get_concurrency_run_ids() == {dead_run.run_id}  # it holds the slot
    (scratch,) = (tmp_path / "tmp").glob("crawl-*")
    written = time.time()
    time.sleep(3)  # the stranger starts clearly after the records were written (beyond the clock slack)
    stranger = subprocess.Popen(["sleep", "600"])
    nightly = None
    try:
        with dg.DagsterInstance.from_config(str(tmp_path / "dagster_home")) as instance:
            instance.add_run_tags(dead_run.run_id, {PID_TAG: str(stranger.pid)})
        (scratch / "owner").write_text(f"{stranger.pid}\n", encoding="utf-8")
        os.utime(scratch / "owner", (written, written))

        nightly = NightlyProcess(tmp_path, site_url)
        code, lines = nightly.finish(timeout=300)  # before the fix: waits for the dead run's slot for ever
        assert code == 0, "\n".join(lines)
        assert any(f"run {dead_run.run_id} (pid {stranger.pid}) was dead: marked failed" in ln for ln in lines), lines
        assert not scratch.exists()
        assert stranger.poll() is None  # the stranger was left alone
        with dg.DagsterInstance.from_config(str(tmp_path / "dagster_home")) as instance:
            assert instance.get_run_by_id(dead_run.run_id).status == dg.DagsterRunStatus.FAILURE
            assert not instance.event_log_storage.get_concurrency_run_ids()
    finally:
        if nightly is not None and nightly.proc.poll() is None:
            nightly.kill_group()
            nightly.proc.wait()
        stranger.kill()
        stranger.wait()


def test_a_crawl_scratch_folder_owned_by_a_reused_pid_is_swept(tmp_path: Path, stranger: subprocess.Popen) -> None:
    """Owner records written before the stranger started (bare pids, as older crawls wrote them)."""
    from ops.scratch import remove_stale

    finished = tmp_path / "crawl-old"
    finished.mkdir()
    (finished / "owner").write_text(f"{stranger.pid}\n", encoding="utf-8")
    building = tmp_path / f".crawl-half.{stranger.pid}"
    building.mkdir()
    mine = tmp_path / "crawl-mine"
    mine.mkdir()
    (mine / "owner").write_text(proc_identity(os.getpid()) + "\n", encoding="utf-8")
    past = time.time() - 600
    for path in (finished / "owner", building):
        os.utime(path, (past, past))
    assert remove_stale(tmp_path) == [building, finished]
    assert mine.is_dir()


def test_a_publish_copy_named_by_a_reused_pid_is_swept(tmp_path: Path, stranger: subprocess.Popen) -> None:
    from warehouse.release.publish import _fresh_tmp

    target = tmp_path / "published.duckdb"
    litter = tmp_path / f".published.duckdb.{stranger.pid}.tmp"
    litter.write_bytes(b"half a snapshot")
    past = time.time() - 600
    os.utime(litter, (past, past))
    _fresh_tmp(target)
    assert not litter.exists()
