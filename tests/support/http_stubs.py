"""Tiny HTTP servers for tests of how the project meets a peer: the one receiver the night posts
to (the site's push endpoint, the alert endpoint), a site answering only errors, a quiet
handler base and one way to write an answer, so each test shows only how its server behaves."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


class QuietHandler(BaseHTTPRequestHandler):
    """A handler that logs nothing (the test's output stays the test's)."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's name
        return

    def answer(self, status: int, body: bytes = b"", *, content_type: str = "text/html",
               headers: dict[str, str] | None = None) -> None:
        """One whole answer: status, headers, Content-Length and the body."""
        self.send_response(status)
        for name, value in {"Content-Type": content_type, **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve(handler: type[BaseHTTPRequestHandler], port: int = 0) -> ThreadingHTTPServer:
    """`handler` served on 127.0.0.1 (`port` 0: a free one) from a daemon thread; `shutdown()`
    and `server_close()` it when done."""
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server


class Receiver:
    """A local endpoint the night POSTs to (bundles, alerts): it answers the first `fail_first`
    POSTs with 503 (Retry-After: 0), then `status`, and keeps what it took.

    `requests` counts every POST and `posts` holds each one's Idempotency-Key; an accepted POST's
    body is in `received` (`bodies`: the JSON ones, decoded) and, by key, in `stored`, where a
    repeated key is acknowledged but not stored twice. `port` 0 picks a free one; a given port
    lets a test bring back an endpoint that was down.
    """

    def __init__(self, fail_first: int = 0, status: int = 200, port: int = 0, path: str = "/") -> None:
        self.fail_first, self.status = fail_first, status
        self.requests = 0
        self.posts: list[str | None] = []
        self.received: list[bytes] = []
        self.stored: dict[str, bytes] = {}
        receiver = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                key = self.headers.get("Idempotency-Key")
                receiver.requests += 1
                receiver.posts.append(key)
                if receiver.requests <= receiver.fail_first:
                    self.answer(503, headers={"Retry-After": "0"})
                elif receiver.status != 200:
                    self.answer(receiver.status)
                else:
                    receiver.received.append(body)
                    if key is not None:
                        receiver.stored.setdefault(key, body)
                    self.answer(200)

        self.server = serve(Handler, port)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    @property
    def bodies(self) -> list[Any]:
        """The accepted bodies, read as JSON (what an alert endpoint got)."""
        return [json.loads(body) for body in self.received]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class _Always500(QuietHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.answer(500, b"<html><body>Internal Server Error</body></html>")


@pytest.fixture()
def broken_site() -> Iterator[str]:
    """The base URL of a server on 127.0.0.1 answering HTTP 500 to every request, robots.txt included."""
    server = serve(_Always500)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
