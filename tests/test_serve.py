"""`bodoge serve`: the daemon launches a nightly by itself, under the lock, logged; SIGTERM stops all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ops.procs import boot_id
from pipelines.recovery import PID_TAG
from tests.support.nightly_process import site, site_url  # noqa: F401 - module fixtures
from tests.support.serve_process import logged, serving, submit_and_wait
from warehouse.publish import publication
from warehouse.readers import open_published


@pytest.mark.slow
def test_serve_launches_a_nightly_through_the_daemon_and_stops_on_sigterm(tmp_path: Path, site_url: str) -> None:  # noqa: F811
    import dagster as dg

    data = tmp_path / "data"
    with serving(data, site_url) as client:
        run_id, status = submit_and_wait(client)
        assert status == "SUCCESS", status
        assert logged(data / "warehouse.duckdb", run_id) == "SUCCESS"
        reader = open_published(data)
        try:
            assert publication(reader)["run_id"] == run_id  # the daemon's night was published
        finally:
            reader.close()
        with dg.DagsterInstance.from_config(str(data / "dagster_home")) as instance:
            tags = instance.get_run_by_id(run_id).tags
        pid, start, boot = tags.get(PID_TAG, "::").split(":")  # the run took the nightly lock (run_guard
        assert pid.isdigit() and start.isdigit() and boot == boot_id()  # tags it with its process's identity)


@pytest.mark.parametrize("args, expected", [
    ((), "no site to crawl"),
    (("--base-url", "ftp://example.com"), "not an http(s) base URL"),
    (("--base-url", "http://127.0.0.1:9", "--alert-url", "nope"), "--alert-url: not an http(s) URL"),
    (("--base-url", "http://127.0.0.1:9", "--port", "0"), "must be at least 1"),
])
def test_bad_serve_flags_are_one_line_before_anything_starts(tmp_path: Path, args: tuple, expected: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("BODOGE_BASE_URL", "BODOGE_ALERT_URL")}
    run = subprocess.run([sys.executable, "-m", "bodoge.cli", "serve", "--data-dir", str(tmp_path / "d"), *args],
                         capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and expected in run.stderr
    assert not (tmp_path / "d" / "dagster_home").exists()


def test_serve_creates_the_instance_storage_once_before_its_children_start(tmp_path: Path) -> None:
    """The daemon and the web UI used to create it together: two migration heads, no job."""
    import sqlite3

    from bodoge.serve import prepare
    from core.settings import Settings

    prepare(Settings(data_dir=tmp_path / "d", base_url="http://127.0.0.1:9"))
    home = tmp_path / "d" / "dagster_home"
    databases = sorted(p.relative_to(home).as_posix() for p in home.rglob("*.db"))
    assert databases == ["history/runs.db", "history/runs/index.db", "schedules/schedules.db"]
    for db in databases:
        con = sqlite3.connect(home / db)
        try:
            assert len(con.execute("SELECT * FROM alembic_version").fetchall()) == 1, db
        finally:
            con.close()
