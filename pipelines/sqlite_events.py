"""Dagster's SQLite event log with each database file kept open, instead of opened for every event.

Why: Dagster's `SqliteEventLogStorage` makes a new SQLAlchemy engine and connection for
every event it stores or reads, and closing the last connection of a WAL database
checkpoints it (the WAL copied into the file and both synced). A night stores ~700
events (its run's file and the cross-run index), so the open, checkpoint and close were
~2.3 ms of CPU and 7-20 ms of disk waits each on this machine, seconds of every night.
Here each file (the run's, the index) keeps one connection; every event is still one
committed transaction, in the same tables, files and WAL mode, so every other reader and
writer (the daemon, the UI, `bodoge run`'s supervisor) sees exactly what it saw.

Why synchronous=NORMAL on these connections (SQLite's default in WAL mode is FULL, an
fsync of the WAL at every commit): those fsyncs were most of what was left, 1.7-1.8 s of
waits a night here (1,456 commits) against 0.2 s. NORMAL is what SQLite documents for
WAL: nothing committed is lost when a process dies (a killed night, a killed daemon),
and the database never corrupts; only a power cut or an OS crash can roll back the last
events, of runs that the cut killed anyway (the next night recovers them as dead runs,
pipelines/run_guard.py). A service that must keep every event through a power cut runs
on PostgreSQL (pipelines/instance.py).

Why the touch: Dagster's UI follows a live run by watching its run's file for changes
(`SqliteEventLogStorageWatchdog`, watchdog). The closing checkpoint used to change the
file after each event; a kept connection writes to the WAL beside it, so after a
transaction that wrote, the run's file has its times set (a metadata change, which the
watch sees as a change) and the watcher reads the new events.

It is `DagsterInstance`'s storage through `BodogeInstance` (its defaults, for a
`dagster.yaml` that names no storage: `pipelines.instance` writes that for SQLite), so the
daemon, the UI and every run of the instance use it. PostgreSQL instances are untouched.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import sqlalchemy as db
import yaml
from dagster import DagsterInstance
from dagster._core.instance.ref import InstanceRef
from dagster._core.storage.event_log.sqlite.sqlite_event_log import INDEX_SHARD_NAME, SqliteEventLogStorage
from dagster._core.storage.sqlite import SQLITE_BUSY_TIMEOUT_SECONDS
from dagster._core.storage.sqlite_storage import DagsterSqliteStorage, _event_logs_directory
from dagster._serdes import ConfigurableClassData
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import StaticPool

#: How many database files one process keeps open (the index and the runs used last): the
#: UI and the daemon read many runs' files over their life, a night writes two.
KEPT_OPEN = 8


class KeptOpenSqliteEventLogStorage(SqliteEventLogStorage):
    """`SqliteEventLogStorage`, each database file opened once per process (up to KEPT_OPEN)."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None) -> None:
        self._engines: OrderedDict[str, Engine] = OrderedDict()
        self._pid = os.getpid()
        super().__init__(base_dir, inst_data)

    @classmethod
    def from_config_value(  # ty: ignore[invalid-method-override]
        cls, inst_data: ConfigurableClassData | None, config_value: Mapping[str, Any]
    ) -> KeptOpenSqliteEventLogStorage:
        return cls(inst_data=inst_data, **config_value)

    def _engine(self, shard: str) -> Engine:
        """The shard's engine: one connection, used under `_db_lock` only (so from any thread)."""
        if self._pid != os.getpid():  # a forked child: the parent's connections are not its own
            self._engines, self._pid = OrderedDict(), os.getpid()
        engine = self._engines.get(shard)
        if engine is not None:
            self._engines.move_to_end(shard)
            return engine
        engine = db.create_engine(
            self.conn_string_for_shard(shard),
            poolclass=StaticPool,
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS, "check_same_thread": False},
        )
        db.event.listen(engine, "connect", _synchronous_normal)
        self._engines[shard] = engine
        while len(self._engines) > KEPT_OPEN:
            self._engines.popitem(last=False)[1].dispose()
        return engine

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:
        wrote = False
        with self._db_lock:
            engine = self._engine(shard)
            if shard not in self._initialized_dbs:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            with engine.connect() as conn:
                sqlite = conn.connection.dbapi_connection
                before = sqlite.total_changes  # type: ignore[union-attr]
                with conn.begin():
                    yield conn
                wrote = sqlite.total_changes != before  # type: ignore[union-attr]
        if wrote and shard != INDEX_SHARD_NAME:
            touch(self.path_for_shard(shard))

    def close_files(self) -> None:
        """Close every kept connection (each checkpoints its file)."""
        with self._db_lock:
            engines, self._engines = self._engines, OrderedDict()
        for engine in engines.values():
            engine.dispose()

    def wipe(self) -> None:
        self.close_files()  # the run files are deleted: no connection may write to them after
        super().wipe()

    def dispose(self) -> None:
        super().dispose()
        self.close_files()


def _synchronous_normal(dbapi_connection: Any, _record: Any) -> None:
    """WAL's own recommended setting: a commit appends to the WAL without an fsync; the WAL
    is synced at each checkpoint. A process that dies loses nothing it committed; a power
    cut or an OS crash may lose the last commits (the file stays consistent)."""
    dbapi_connection.execute("PRAGMA synchronous=NORMAL")


def touch(path: str) -> None:
    """Set the file's times to now: a change that a watch on the file sees."""
    try:
        os.utime(path)
    except OSError:
        pass  # gone (a wiped run): nobody watches it


class KeptOpenSqliteStorage(DagsterSqliteStorage):
    """Dagster's default SQLite storage (runs, schedules, event log in DAGSTER_HOME), with the
    event log of `KeptOpenSqliteEventLogStorage`."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None) -> None:
        super().__init__(base_dir, inst_data)
        self._event_log_storage = KeptOpenSqliteEventLogStorage(_event_logs_directory(base_dir))

    @classmethod
    def from_config_value(  # ty: ignore[invalid-method-override]
        cls, inst_data: ConfigurableClassData, config_value: Mapping[str, Any]
    ) -> KeptOpenSqliteStorage:
        return cls.from_local(inst_data=inst_data, **config_value)


class BodogeInstance(DagsterInstance):
    """The Dagster instance of `dagster.yaml`'s `instance_class`: Dagster's own, whose default
    storage (a file that names none) is `KeptOpenSqliteStorage` in the instance's folder."""

    @classmethod
    def config_schema(cls) -> dict:
        return {}

    @staticmethod
    def config_defaults(base_dir: str) -> Mapping[str, ConfigurableClassData | None]:
        defaults = dict(InstanceRef.config_defaults(base_dir))
        defaults["storage"] = ConfigurableClassData(
            __name__, KeptOpenSqliteStorage.__name__, yaml.dump({"base_dir": base_dir}, default_flow_style=False))
        return defaults
