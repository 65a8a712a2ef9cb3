"""A local HTTP server run in a background thread: the sample site and the BGG replay.

Why one base: both are started by tests, the demo and `bodoge site serve`/`bodoge bgg
replay`, on an ephemeral port, and must stop cleanly and idempotently (a test's `finally`
and a context manager may both stop it). Subclasses name their request handler; each
request reaches the server object through `self.server.owner`.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar


class OwnedServer(ThreadingHTTPServer):
    """A threading HTTP server whose handlers reach the object that started it as `owner`."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # the default 5 drops SYNs under a concurrent crawl (1 s stalls)
    owner: Any


class BackgroundServer:
    """Bind `host:port` (0: a free port), serve in a daemon thread; `with` starts and stops it."""

    handler: ClassVar[type[BaseHTTPRequestHandler]]
    thread_name: ClassVar[str] = "local-server"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self._httpd: OwnedServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """http://host:port of the running server (no trailing slash)."""
        if self._httpd is None:
            raise RuntimeError(f"{type(self).__name__} not started")
        return f"http://{self.host}:{self._httpd.server_address[1]}"

    def start(self) -> str:
        """Bind, serve in a daemon thread, and return the base URL; a started server stays as it is."""
        if self._httpd is None:
            httpd = OwnedServer((self.host, self.port), self.handler)
            httpd.owner = self
            self._httpd = httpd
            self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                            name=self.thread_name, daemon=True)
            self._thread.start()
        return self.base_url

    def stop(self) -> None:
        """Stop serving and close the socket; safe to call twice."""
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Any:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
