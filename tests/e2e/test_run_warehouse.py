"""The warehouse is opened once per run (pipelines.defs.resources.RunWarehouse), and freed for
whoever opens the file itself.

Why a test: a night's ~70 steps and checks each opened the file (its catalogue read, its
writes checkpointed on close); the run now shares one connection, handed out as cursors.
What must still hold: each step sees the others' committed writes, a step's temporary
objects stay its own, the file is free (for another process) inside `warehouse_file_free`
and after the run, and outside a run the resource is Dagster's plain one.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import dagster as dg
import duckdb

from pipelines.defs.resources import RunWarehouse, warehouse_file_free

OPEN_ELSEWHERE = ("import duckdb, sys; con = duckdb.connect(sys.argv[1]); "
                  "con.execute('INSERT INTO t VALUES (99)'); con.close()")


def _opens(monkeypatch) -> list[str]:
    """Every duckdb.connect() of this process from now on (the database it names)."""
    opened: list[str] = []
    real = duckdb.connect

    def counting(database=":memory:", *args, **kwargs):
        opened.append(str(kwargs.get("database", database)))
        return real(database, *args, **kwargs)

    monkeypatch.setattr(duckdb, "connect", counting)
    return opened


def test_one_connection_per_run_and_the_file_free_for_a_child_process(tmp_path: Path, monkeypatch) -> None:
    path = str(tmp_path / "w.duckdb")
    opened = _opens(monkeypatch)

    @dg.op
    def first(duckdb: RunWarehouse) -> None:
        with duckdb.get_connection() as con:
            con.execute("CREATE TABLE t (i INTEGER)")
            con.execute("INSERT INTO t VALUES (1)")
            con.execute("CREATE TEMP TABLE mine AS SELECT 1 AS x")
        with duckdb.get_connection() as con:  # the step's second block: its own cursor, the same file
            assert con.execute("SELECT count(*) FROM t").fetchone() == (1,)
            assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'mine'").fetchone() == (0,)

    @dg.op(ins={"after": dg.In(dg.Nothing)})
    def child(duckdb: RunWarehouse) -> None:
        with warehouse_file_free(duckdb):  # another process writes the file meanwhile
            subprocess.run([sys.executable, "-c", OPEN_ELSEWHERE, duckdb.database], check=True, timeout=60)
        with duckdb.get_connection() as con:
            assert sorted(r[0] for r in con.execute("SELECT i FROM t").fetchall()) == [1, 99]

    @dg.op(ins={"after": dg.In(dg.Nothing)})
    def third(duckdb: RunWarehouse) -> None:
        with duckdb.get_connection() as con:
            con.execute("INSERT INTO t VALUES (3)")

    @dg.job(resource_defs={"duckdb": RunWarehouse(database=path)}, executor_def=dg.in_process_executor)
    def night() -> None:
        third(after=child(after=first()))

    with dg.DagsterInstance.ephemeral() as instance:
        assert night.execute_in_process(instance=instance).success
    assert opened == [path, path]  # once for the run, once again after the child process
    with duckdb.connect(path, read_only=True) as con:  # closed at the run's end: another process may open it
        assert sorted(r[0] for r in con.execute("SELECT i FROM t").fetchall()) == [1, 3, 99]


def test_a_failed_step_leaves_the_next_one_and_the_file_clean(tmp_path: Path) -> None:
    path = str(tmp_path / "w.duckdb")

    @dg.op
    def fails(duckdb: RunWarehouse) -> None:
        with duckdb.get_connection() as con:
            con.execute("CREATE TABLE t (i INTEGER)")
            con.execute("BEGIN")
            con.execute("INSERT INTO t VALUES (1)")
            raise RuntimeError("boom")  # the cursor's open transaction is rolled back

    @dg.job(resource_defs={"duckdb": RunWarehouse(database=path)}, executor_def=dg.in_process_executor)
    def night() -> None:
        fails()

    with dg.DagsterInstance.ephemeral() as instance:
        assert not night.execute_in_process(instance=instance, raise_on_error=False).success
    with duckdb.connect(path) as con:  # free, and the half-done write did not land
        assert con.execute("SELECT count(*) FROM t").fetchone() == (0,)


def test_outside_a_run_it_is_the_plain_resource(tmp_path: Path) -> None:
    path = str(tmp_path / "w.duckdb")
    resource = RunWarehouse(database=path)
    with resource.get_connection() as con:
        con.execute("CREATE TABLE t AS SELECT 1 AS i")
    with duckdb.connect(path, read_only=True) as con:  # closed: another configuration may open it
        assert con.execute("SELECT i FROM t").fetchall() == [(1,)]
