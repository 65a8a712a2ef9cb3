"""Tiny HTTP servers for tests of how the project meets a misbehaving peer (a site answering
only errors, a dropped connection, a slow endpoint): a quiet handler base and one way to
write an answer, so each test shows only how its server misbehaves."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler


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
