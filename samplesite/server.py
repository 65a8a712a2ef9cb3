"""A real HTTP server for a generated sample site, on 127.0.0.1.

Why a real server (not a mocked transport): the spiders must be exercised exactly as
on the real site — sockets, robots.txt, status codes, retries, concurrency. Pages are
rendered on demand by `render.render`; this module adds the per-instance transient
faults (a URL's first request answers 503 or 429, see faults.py) and a request log so
tests can check politeness (e.g. that /login was never fetched).
"""

from __future__ import annotations

import sys
import threading
from email.utils import parsedate_to_datetime
from http.server import BaseHTTPRequestHandler
from typing import Any

from samplesite.faults import FirstRequestFaults
from samplesite.model import Site
from samplesite.pages.layout import HTML, Response
from samplesite.pages.static import error_page
from samplesite.render import render
from samplesite.variants import NO_VALIDATORS, apply as draw_variant, check as check_variants
from samplesite.background import BackgroundServer, OwnedServer


class _Handler(BaseHTTPRequestHandler):
    server: OwnedServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed-ACK stalls
    server_version = "bodoge-samplesite/1.0"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet by design
        return

    def _respond(self, with_body: bool) -> None:
        owner = self.server.owner
        target = self.path
        resp = draw_variant(owner.site, target, render(owner.site, target, crawl_delay=owner.crawl_delay),
                            owner.variants)
        # transient faults only hit pages that exist (a 404 or a broken post stays as it is)
        fault = owner.faults.check(target) if resp.status == 200 else None
        if fault is not None:
            resp = Response(fault, HTML, error_page(fault).encode("utf-8"),
                            {"Retry-After": "1"} if fault == 429 else {})
        if not owner.validators:
            resp = Response(resp.status, resp.content_type, resp.body,
                            {k: v for k, v in resp.headers.items() if k not in ("ETag", "Last-Modified")})
        elif resp.status == 200 and _not_modified(resp.headers, self.headers):
            resp = Response(304, resp.content_type, b"", resp.headers)
        owner._record(self.command, target, resp.status)
        self.send_response(resp.status)
        self.send_header("Content-Type", resp.content_type)
        if resp.status != 304:
            self.send_header("Content-Length", str(len(resp.body)))
        for k, v in resp.headers.items():
            self.send_header(k, v)
        self.end_headers()
        if with_body:
            self.wfile.write(resp.body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._respond(True)

    def do_HEAD(self) -> None:  # noqa: N802
        self._respond(False)


def _not_modified(validators: dict[str, str], request: Any) -> bool:
    """RFC 9110 conditional GET: If-None-Match wins over If-Modified-Since."""
    etag, tags = validators.get("ETag"), request.get("If-None-Match")
    if etag and tags:
        return etag in [t.strip().removeprefix("W/") for t in tags.split(",")] or tags.strip() == "*"
    modified, since = validators.get("Last-Modified"), request.get("If-Modified-Since")
    if modified and since:
        try:
            return parsedate_to_datetime(modified) <= parsedate_to_datetime(since)
        except (TypeError, ValueError):
            return False
    return False


class SampleSiteServer(BackgroundServer):
    """Serve `site` over HTTP in a background thread.

    >>> with SampleSiteServer(site) as srv:      # doctest: +SKIP
    ...     urllib.request.urlopen(srv.base_url + "/games?page=2")

    port=0 picks a free ephemeral port. `transient_faults` defaults to `site.faults`;
    `crawl_delay` adds a Crawl-delay line to robots.txt. `requests` is the log of
    (method, target, status) answered so far. Game pages carry ETag and Last-Modified
    and answer conditional requests with 304; `validators=False` serves them without
    either (a server that offers no validators). `site` may be swapped between
    requests (`srv.site = site_on_night(site, 2)`) to serve the next night.
    """

    handler = _Handler
    thread_name = "samplesite-server"

    def __init__(self, site: Site, host: str = "127.0.0.1", port: int = 0, *,
                 crawl_delay: float | None = None, transient_faults: bool | None = None,
                 validators: bool = True, variants: frozenset[str] | tuple[str, ...] = ()) -> None:
        super().__init__(host, port)
        self.site = site
        self.variants = check_variants(variants)
        self.validators = validators and NO_VALIDATORS not in self.variants
        self.crawl_delay = crawl_delay
        enabled = site.faults if transient_faults is None else transient_faults
        self.faults = FirstRequestFaults(site, enabled)
        self.requests: list[tuple[str, str, int]] = []
        self._log_lock = threading.Lock()

    def _record(self, method: str, target: str, status: int) -> None:
        with self._log_lock:
            self.requests.append((method, target, status))


def serve_forever(site: Site, host: str = "127.0.0.1", port: int = 8765, *,
                  crawl_delay: float | None = None, night: int = 1,
                  variants: frozenset[str] | tuple[str, ...] = ()) -> None:
    """Serve night `night` in the foreground until interrupted (`python -m samplesite serve`)."""
    from samplesite.nights import site_on_night

    site = site_on_night(site, night)
    server = SampleSiteServer(site, host, port, crawl_delay=crawl_delay, variants=variants)
    url = server.start()
    drawn = f", drawn {'+'.join(sorted(server.variants))}" if server.variants else ""
    print(f"sample site: {url}  ({site.n_games} games, {site.n_users} members, seed {site.seed}, "
          f"faults {'on' if site.faults else 'off'}, night {night}{drawn}); Ctrl-C to stop",
          file=sys.stderr, flush=True)
    try:
        while True:
            threading.Event().wait(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
