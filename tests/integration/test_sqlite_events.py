"""The SQLite instance's event log keeps its files open (pipelines/sqlite_events.py) and still
behaves as Dagster's own for every other reader.

What must hold: the instance bodoge configures is Dagster's with that storage, in the same
folder (a copied data directory reads its own); events one instance writes are read at
once by another (as the daemon and the UI read a night's run); a watcher of a live run (the
UI's run page) hears each new event; a wipe leaves no connection to deleted files.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import dagster as dg

from pipelines.instance import configure
from pipelines.sqlite_events import KEPT_OPEN, BodogeInstance, KeptOpenSqliteEventLogStorage


@dg.op
def _noop() -> None:
    pass


@dg.job
def _tiny() -> None:
    _noop()


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "dagster_home"
    configure(home, {})
    return home


def test_the_configured_instance_keeps_dagsters_storage_in_its_own_folder(tmp_path: Path) -> None:
    home = _home(tmp_path)
    with dg.DagsterInstance.from_config(str(home)) as instance:
        assert isinstance(instance, BodogeInstance)
        assert isinstance(instance.event_log_storage, KeptOpenSqliteEventLogStorage)
        assert type(instance.run_storage).__name__ == "SqliteRunStorage"
        run_id = _tiny.execute_in_process(instance=instance).run_id
    assert (home / "history" / "runs" / f"{run_id}.db").is_file() and (home / "history" / "runs.db").is_file()
    copy = shutil.copytree(home, tmp_path / "copy")  # a copied data directory reads its own history
    with dg.DagsterInstance.from_config(str(copy)) as instance:
        assert instance.event_log_storage._base_dir == str(copy / "history" / "runs")  # noqa: SLF001
        assert instance.get_run_by_id(run_id) is not None
        assert any(e.dagster_event and e.dagster_event.event_type == dg.DagsterEventType.RUN_SUCCESS
                   for e in instance.all_logs(run_id))


def test_another_instance_reads_and_watches_what_one_writes(tmp_path: Path) -> None:
    home = _home(tmp_path)
    with dg.DagsterInstance.from_config(str(home)) as writer, dg.DagsterInstance.from_config(str(home)) as ui:
        result = _tiny.execute_in_process(instance=writer)
        run = writer.get_run_by_id(result.run_id)
        assert run is not None
        assert len(ui.all_logs(run.run_id)) == len(writer.all_logs(run.run_id))  # nothing held back
        with writer.event_log_storage.run_connection(run.run_id) as conn:  # WAL, synced at checkpoints
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
        shard = home / "history" / "runs" / f"{run.run_id}.db"
        os.utime(shard, (0, 0))
        ui.all_logs(run.run_id)
        assert shard.stat().st_mtime == 0  # a read changes nothing
        heard: list[str] = []
        got = threading.Event()

        def hear(entry, _cursor) -> None:
            heard.append(entry.message)
            if entry.message == "one more event":
                got.set()

        ui.watch_event_logs(run.run_id, None, hear)  # what the UI's page of a live run does
        try:
            time.sleep(0.5)
            writer.report_engine_event("one more event", run)
            assert got.wait(timeout=20), f"the watcher did not hear the new event: {heard}"
            assert shard.stat().st_mtime > 0
        finally:
            ui.end_watch_event_logs(run.run_id, hear)


def test_a_process_keeps_a_few_files_open_and_a_wipe_closes_them(tmp_path: Path) -> None:
    home = _home(tmp_path)
    with dg.DagsterInstance.from_config(str(home)) as instance:
        storage = instance.event_log_storage
        assert isinstance(storage, KeptOpenSqliteEventLogStorage)
        runs = [_tiny.execute_in_process(instance=instance).run_id for _ in range(KEPT_OPEN)]
        assert len(storage._engines) == KEPT_OPEN  # noqa: SLF001 - the index and the latest runs
        assert all(instance.all_logs(r) for r in runs)
        instance.wipe()
        assert set(storage._engines) <= {"index"}  # noqa: SLF001 - no run's file is held
        assert not list((home / "history" / "runs").glob("*-*.db"))
        run_id = _tiny.execute_in_process(instance=instance).run_id  # and it starts again afresh
        assert instance.all_logs(run_id)
