"""`bodoge serve`: the daemon launches a nightly by itself, under the lock, logged; SIGTERM stops all;
killed with SIGKILL it takes everything it started with it, a night in progress included, and
the next night recovers that night (real processes, a real kill -9)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from ops.procs import boot_id
from pipelines.recovery import PID_TAG
from tests.support.nightly_process import NightlyProcess, site, site_url, slow_site_url  # noqa: F401 - module fixtures  # noqa: F401 - module-scoped fixtures
from tests.support.serve_process import free_port, logged, process_tree, serving, still_running, submit, submit_and_wait
from warehouse.release.publish import publication
from warehouse.readers import open_published


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


def answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except OSError:
        return False
    return True


def test_a_killed_serve_leaves_no_process_and_the_next_night_recovers_its_night(
    tmp_path: Path, site_url: str, slow_site_url: str  # noqa: F811
) -> None:
    import dagster as dg
    from dagster_graphql import DagsterGraphQLClient

    data, port = tmp_path / "data", free_port()
    serve = subprocess.Popen(
        [sys.executable, "-m", "bodoge.cli", "serve", "--base-url", slow_site_url, "--data-dir", str(data),
         "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    tree: dict[int, tuple[str, str]] = {}
    try:
        ready = serve.stdout.readline()
        assert ready.startswith("serve: Dagster UI on"), ready
        run_id = submit(DagsterGraphQLClient("127.0.0.1", port_number=port))
        deadline = time.monotonic() + 180  # the daemon dequeues and launches it; its crawl begins
        while not any("scrapers.crawl" in cmd for _, cmd in tree.values()) and time.monotonic() < deadline:
            time.sleep(1)
            tree = process_tree(serve.pid)
        assert any("scrapers.crawl" in cmd for _, cmd in tree.values()), sorted(c for _, c in tree.values())
        assert len(tree) >= 8  # three tethers, the code server, daemon, web UI, the run worker and its helpers, the crawler
        serve.kill()
        assert serve.wait(timeout=10) == -signal.SIGKILL
        deadline = time.monotonic() + 60
        while still_running(tree) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not still_running(tree), f"bodoge serve left processes behind: {still_running(tree)}"
        assert not answers(port), "the web UI still answers"
    finally:
        if serve.poll() is None:
            serve.kill()
        for pid in still_running(tree):
            os.kill(pid, signal.SIGKILL)
        for log in sorted((data / "logs").glob("serve-*.log")):  # shown by pytest on failure
            print(f"--- {log}\n" + "\n".join(log.read_text(errors="replace").splitlines()[-60:]))

    # The killed night ended failed (its run worker reports the interruption itself, or, if
    # it had to be killed, the next night marks it failed); the next night runs in full.
    nightly = NightlyProcess(data, site_url)
    code, lines = nightly.finish(timeout=300)
    assert code == 0, "\n".join(lines)
    with dg.DagsterInstance.from_config(str(data / "dagster_home")) as instance:
        assert instance.get_run_by_id(run_id).status == dg.DagsterRunStatus.FAILURE
        assert not instance.event_log_storage.get_concurrency_run_ids()
    with duckdb.connect(str(data / "warehouse.duckdb"), read_only=True) as con:
        crawls = dict(con.execute("SELECT status, count(*) FROM raw.crawl_runs GROUP BY status").fetchall())
    assert crawls.get("running") is None and crawls.get("finished") == 1, crawls
