"""`bodoge serve` when things go wrong: a failed daemon night alerts once; a code location
that failed to load is reloaded before serve says it is ready."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


from tests.support.serve_process import logged, serving, submit_and_wait
from tests.support.http_stubs import Receiver, broken_site  # noqa: F401 - a fixture


def test_a_failed_daemon_night_alerts_once(tmp_path: Path, broken_site: str) -> None:
    receiver = Receiver()
    try:
        data = tmp_path / "data"
        with serving(data, broken_site, "--alert-url", receiver.url) as client:
            run_id, status = submit_and_wait(client)
            assert status == "FAILURE", status
            assert logged(data / "warehouse.duckdb", run_id) == "FAILURE"
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


