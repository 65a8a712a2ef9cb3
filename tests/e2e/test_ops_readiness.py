"""`ops.readiness`: a wait ends when the server answers, at once when its process died, and
with the caller's line at the deadline. Real sockets and processes."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from ops.readiness import answers, wait_until


class _Ok(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        self.send_response(200)
        self.send_header("Content-Length", "3")
        self.end_headers()
        self.wfile.write(b"ok\n")

    def log_message(self, *args: Any) -> None:
        pass


def _free_port() -> int:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Ok)
    port = server.server_address[1]
    server.server_close()
    return port


def test_a_server_that_starts_late_is_waited_for() -> None:
    port = _free_port()
    server: list[ThreadingHTTPServer] = []

    def start_later() -> None:
        time.sleep(0.5)
        server.append(ThreadingHTTPServer(("127.0.0.1", port), _Ok))
        server[0].serve_forever()

    threading.Thread(target=start_later, daemon=True).start()
    try:
        wait_until(lambda: answers(f"http://127.0.0.1:{port}/", body=b"ok"), timeout=20, interval=0.05,
                   gave_up=lambda: "never")
        assert not answers(f"http://127.0.0.1:{port}/", body=b"no")
    finally:
        if server:
            server[0].shutdown()


def test_a_dead_process_ends_the_wait_at_once_and_the_deadline_says_the_callers_line() -> None:
    port = _free_port()
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="exited with code 0"):
        wait_until(lambda: answers(f"http://127.0.0.1:{port}/"), timeout=60, interval=0.05, gave_up=lambda: "never",
                   exited=lambda: f"exited with code {child.poll()}" if child.poll() is not None else None)
    assert time.monotonic() - started < 5
    with pytest.raises(TimeoutError, match="^nobody on the port$"):
        wait_until(lambda: answers(f"http://127.0.0.1:{port}/"), timeout=0.3, interval=0.05,
                   gave_up=lambda: "nobody on the port")
