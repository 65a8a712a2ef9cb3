"""A real `bodoge serve` for the tests: started, talked to over GraphQL, stopped by SIGTERM.

Why a module of its own: the serve tests are among the slowest (a daemon, a web UI and a
nightly each), and the test files that use them run on different workers.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb


def stop(process: subprocess.Popen, *, timeout: float = 10) -> None:
    """SIGTERM, then SIGKILL if it has not ended within `timeout` seconds; reaped either way."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def groups_alive(pgids: set[int]) -> set[int]:
    alive = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[-1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) in pgids:
            alive.add(int(fields[2]))
    return alive


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(p) for p in (task / "children").read_text().split()}
    return found


def process_tree(pid: int) -> dict[int, tuple[str, str]]:
    """Every live process below `pid`: {pid: (kernel start time, command line's start)}."""
    found: dict[int, tuple[str, str]] = {}
    todo = [pid]
    while todo:
        try:
            below = children(todo.pop())
        except OSError:
            continue
        for child in below:
            try:
                start = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[-1].split()[19]
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:100]
            except OSError:
                continue
            found[child] = (start, cmdline)
            todo.append(child)
    return found


def still_running(tree: dict[int, tuple[str, str]]) -> dict[int, str]:
    """Those processes of `tree` still alive (same pid and start time, not a zombie)."""
    left = {}
    for pid, (start, cmdline) in tree.items():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()
        except OSError:
            continue
        if fields[0] != "Z" and fields[19] == start:
            left[pid] = cmdline
    return left


def logged(warehouse: Path, run_id: str, timeout: float = 180.0) -> str:
    """The run's final status in marts.pipeline_runs, once the run-status sensor has written it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with duckdb.connect(str(warehouse), read_only=True) as con:
                rows = con.execute("SELECT status FROM marts.pipeline_runs WHERE run_id = ?", [run_id]).fetchall()
            if rows and rows[0][0] != "STARTED":  # a night writes its row as it starts; wait for its end
                return rows[0][0]
        except duckdb.Error:
            pass  # the sensor is writing it
        time.sleep(2)  # not faster: each open of the file can be in the way of the sensor's write
    raise AssertionError(f"run {run_id} never reached marts.pipeline_runs")


@contextmanager
def serving(data: Path, base_url: str, *extra: str) -> Iterator[tuple[Any, Path]]:
    """`bodoge serve` running; yields a GraphQL client. On leaving: SIGTERM, 143, no process left."""
    from dagster_graphql import DagsterGraphQLClient

    port = free_port()
    serve = subprocess.Popen(
        [sys.executable, "-m", "bodoge.cli", "serve", "--base-url", base_url, "--data-dir", str(data),
         "--port", str(port), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    pgids: set[int] = set()
    try:
        ready = serve.stdout.readline()
        assert ready.startswith("serve: Dagster UI on"), ready + serve.stderr.read()
        pgids = children(serve.pid)
        assert len(pgids) == 3  # the code server, the daemon and the web UI, each leading its own group
        yield DagsterGraphQLClient("127.0.0.1", port_number=port)
    except BaseException:
        for log in sorted((data / "logs").glob("serve-*.log")):  # shown by pytest on failure
            print(f"--- {log}\n" + "\n".join(log.read_text(errors="replace").splitlines()[-80:]))
        raise
    finally:
        serve.send_signal(signal.SIGTERM)
        code = serve.wait(timeout=90)
    assert code == 143
    assert "Traceback" not in serve.stderr.read()
    deadline = time.monotonic() + 10
    while groups_alive(pgids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not groups_alive(pgids), "bodoge serve left processes behind"


def submit(client: Any) -> str:
    """A nightly submitted to the instance's run queue (the daemon dequeues and launches it)."""
    from dagster_graphql import DagsterGraphQLClientError

    deadline = time.monotonic() + 120
    while True:  # the web UI answers before it has loaded the code location
        try:
            return client.submit_job_execution("nightly", repository_location_name="pipelines.definitions",
                                               repository_name="__repository__")
        except DagsterGraphQLClientError as exc:
            if "NotFound" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def submit_and_wait(client: Any, timeout: float = 400) -> tuple[str, str]:
    """A nightly submitted and waited for; (run id, its final status)."""
    run_id = submit(client)
    deadline = time.monotonic() + timeout
    status = None
    while time.monotonic() < deadline:
        status = client.get_run_status(run_id).value
        if status in ("SUCCESS", "FAILURE", "CANCELED"):
            break
        time.sleep(0.5)  # a GraphQL query: cheap (marts.pipeline_runs is polled slower, see logged)
    return run_id, str(status)
