"""`core.http.post_with_retry` over urllib3's Retry keeps our rules: the first retry waits
the base delay, Retry-After wins when longer but never past the cap, a header that cannot
be read asks for nothing, a 4xx is final, a refused connection is said as the socket said it.
Real HTTP servers on localhost; only the waits are recorded instead of slept."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from core.http import PostGaveUp, PostRefused, Retry, post_with_retry


def _server(status: int, retry_after: str | None, failures: int) -> tuple[ThreadingHTTPServer, list[str]]:
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server name
            self.rfile.read(int(self.headers["Content-Length"]))
            seen.append(self.headers["User-Agent"])
            failing = len(seen) <= failures
            self.send_response(status if failing else 200)
            if failing and retry_after is not None:
                self.send_header("Retry-After", retry_after)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, seen


@pytest.mark.parametrize(("status", "retry_after", "waits"), [
    (503, None, [0.25, 0.5]),        # base·2^n, the first retry included
    (429, "1", [1.0, 1.0]),          # Retry-After asks for longer than the backoff
    (503, "3600", [2.0, 2.0]),       # … but never past the cap
    (500, "soon", [0.25, 0.5]),      # an unreadable header asks for nothing
])
def test_the_waits_between_attempts(status: int, retry_after: str | None, waits: list[float]) -> None:
    server, seen = _server(status, retry_after, failures=2)
    slept: list[float] = []
    try:
        answer = post_with_retry(f"http://127.0.0.1:{server.server_address[1]}/", b"{}", {},
                                 retry=Retry(base_delay=0.25, max_delay=2.0), sleep=slept.append)
    finally:
        server.shutdown()
    assert (answer.status, answer.attempts) == (200, 3)
    assert slept == waits
    assert all(agent.startswith("bodoge-pipeline/") for agent in seen)


def test_a_client_error_is_final_and_a_refused_port_gives_up_saying_so() -> None:
    server, seen = _server(404, None, failures=99)
    try:
        with pytest.raises(PostRefused, match="HTTP 404"):
            post_with_retry(f"http://127.0.0.1:{server.server_address[1]}/", b"{}", {}, sleep=lambda s: None)
    finally:
        server.shutdown()
    assert len(seen) == 1
    held = socket.socket()
    held.bind(("127.0.0.1", 0))  # bound, not listening: every connection is refused
    try:
        with pytest.raises(PostGaveUp, match="after 3 attempts") as gave_up:
            post_with_retry(f"http://127.0.0.1:{held.getsockname()[1]}/", b"{}", {}, retry=Retry(attempts=3),
                            sleep=lambda s: None)
    finally:
        held.close()
    assert "Connection refused" in gave_up.value.last and "urllib3" not in gave_up.value.last
