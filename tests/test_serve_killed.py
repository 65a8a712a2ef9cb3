"""`bodoge serve` killed with SIGKILL takes everything it started with it, a night in progress
included, and the next night recovers that night (real processes, a real kill -9).

A file of its own: like the other serve tests it runs a daemon, a web UI and nights, so
xdist puts it beside them on another worker.
"""

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

from tests.support.nightly_process import NightlyProcess
from tests.support.nightly_process import site, site_url, slow_site_url  # noqa: F401 - module-scoped fixtures
from tests.support.serve_process import free_port, process_tree, still_running, submit


def answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except OSError:
        return False
    return True


@pytest.mark.slow
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
        assert len(tree) >= 8  # daemon, web UI, two code servers, the run worker and its helpers, the crawler
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
