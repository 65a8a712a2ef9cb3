"""`bodoge serve`: the daemon launches a nightly by itself, under the lock, logged; SIGTERM stops all."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipelines.recovery import PID_TAG
from tests.nightly_process import site, site_url  # noqa: F401 - module fixtures
from tests.test_alerts import Receiver, broken_site  # noqa: F401 - a fixture
from warehouse.publish import open_published, publication



def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _groups_alive(pgids: set[int]) -> set[int]:
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


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(p) for p in (task / "children").read_text().split()}
    return found


def _logged(warehouse: Path, run_id: str, timeout: float = 180.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            con = duckdb.connect(str(warehouse), read_only=True)
            try:
                rows = con.execute("SELECT status FROM marts.pipeline_runs WHERE run_id = ?", [run_id]).fetchall()
            finally:
                con.close()
            if rows:
                return rows[0][0]
        except duckdb.Error:
            pass  # the sensor is writing it
        time.sleep(2)
    raise AssertionError(f"run {run_id} never reached marts.pipeline_runs")


@contextmanager
def serving(data: Path, base_url: str, *extra: str) -> Iterator[tuple[Any, Path]]:
    """`bodoge serve` running; yields a GraphQL client. On leaving: SIGTERM, 143, no process left."""
    from dagster_graphql import DagsterGraphQLClient

    port = _free_port()
    serve = subprocess.Popen(
        [sys.executable, "-m", "bodoge.cli", "serve", "--base-url", base_url, "--data-dir", str(data),
         "--port", str(port), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    pgids: set[int] = set()
    try:
        ready = serve.stdout.readline()
        assert ready.startswith("serve: Dagster UI on"), ready + serve.stderr.read()
        pgids = _children(serve.pid)
        assert len(pgids) == 2  # the daemon and the web UI, each leading its own group
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
    while _groups_alive(pgids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _groups_alive(pgids), "bodoge serve left processes behind"


def _submit_and_wait(client: Any, timeout: float = 400) -> tuple[str, str]:
    """A nightly submitted to the instance's run queue (the daemon dequeues and launches it)."""
    from dagster_graphql import DagsterGraphQLClientError

    deadline = time.monotonic() + 120
    while True:  # the web UI answers before it has loaded the code location
        try:
            run_id = client.submit_job_execution("nightly", repository_location_name="pipelines.definitions",
                                                 repository_name="__repository__")
            break
        except DagsterGraphQLClientError as exc:
            if "NotFound" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(2)
    deadline = time.monotonic() + timeout
    status = None
    while time.monotonic() < deadline:
        status = client.get_run_status(run_id).value
        if status in ("SUCCESS", "FAILURE", "CANCELED"):
            break
        time.sleep(2)
    return run_id, str(status)


@pytest.mark.slow
def test_serve_launches_a_nightly_through_the_daemon_and_stops_on_sigterm(tmp_path: Path, site_url: str) -> None:  # noqa: F811
    import dagster as dg

    data = tmp_path / "data"
    with serving(data, site_url) as client:
        run_id, status = _submit_and_wait(client)
        assert status == "SUCCESS", status
        assert _logged(data / "warehouse.duckdb", run_id) == "SUCCESS"
        reader = open_published(data)
        try:
            assert publication(reader)["run_id"] == run_id  # the daemon's night was published
        finally:
            reader.close()
        with dg.DagsterInstance.from_config(str(data / "dagster_home")) as instance:
            tags = instance.get_run_by_id(run_id).tags
        assert tags.get(PID_TAG, "").isdigit()  # the run took the nightly lock (run_guard tags it)


@pytest.mark.slow
def test_a_failed_daemon_night_alerts_once(tmp_path: Path, broken_site: str) -> None:
    receiver = Receiver()
    try:
        data = tmp_path / "data"
        with serving(data, broken_site, "--alert-url", receiver.url) as client:
            run_id, status = _submit_and_wait(client)
            assert status == "FAILURE", status
            assert _logged(data / "warehouse.duckdb", run_id) == "FAILURE"
            deadline = time.monotonic() + 120
            while not receiver.bodies and time.monotonic() < deadline:
                time.sleep(1)
            time.sleep(5)  # a second alert would come now
        assert [(b["kind"], b["run_id"]) for b in receiver.bodies] == [("night_failed", run_id)]
        alert = receiver.bodies[0]
        assert alert["failed_step"] == "raw_tables" and alert["cause"]
        assert not (data / "published.duckdb").exists()
    finally:
        receiver.close()


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


class _Workspace(BaseHTTPRequestHandler):
    """A web UI whose code location failed to load until someone asks for a reload."""

    reloads: list[str] = []

    def do_GET(self) -> None:  # /server_info
        self._answer({})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if "reloadRepositoryLocation" in body["query"]:
            type(self).reloads.append(body["variables"]["name"])
            self._answer({"data": {"reloadRepositoryLocation": {"__typename": "WorkspaceLocationEntry"}}})
            return
        loaded = {"__typename": "RepositoryLocation"} if self.reloads else {
            "__typename": "PythonError", "message": "DagsterUserCodeUnreachableError: timed out\nmore"}
        self._answer({"data": {"workspaceOrError": {"__typename": "Workspace", "locationEntries": [
            {"name": "pipelines.definitions", "loadStatus": "LOADED", "locationOrLoadError": loaded}]}}})

    def _answer(self, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


def test_a_code_location_that_failed_to_load_is_reloaded_before_serve_says_ready() -> None:
    from bodoge.serve import location_state, wait_until_ready

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Workspace)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert location_state(url) == ("error", "DagsterUserCodeUnreachableError: timed out")
        wait_until_ready(url, {"daemon": child}, timeout=30)
        assert _Workspace.reloads == ["pipelines.definitions"]
        assert location_state(url) == ("loaded", "")
    finally:
        child.kill()
        child.wait()
        server.shutdown()


def test_serve_creates_the_instance_storage_once_before_its_children_start(tmp_path: Path) -> None:
    """The daemon and the web UI used to create it together: two migration heads, no job."""
    import sqlite3

    from bodoge.serve import prepare
    from core.config import resolve_paths

    prepare(resolve_paths(data_dir=str(tmp_path / "d")), base_url="http://127.0.0.1:9", alert_url=None)
    home = tmp_path / "d" / "dagster_home"
    databases = sorted(p.relative_to(home).as_posix() for p in home.rglob("*.db"))
    assert databases == ["history/runs.db", "history/runs/index.db", "schedules/schedules.db"]
    for db in databases:
        con = sqlite3.connect(home / db)
        try:
            assert len(con.execute("SELECT * FROM alembic_version").fetchall()) == 1, db
        finally:
            con.close()
