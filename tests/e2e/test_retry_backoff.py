"""Retries back off: a dropped connection waits like a 503 does (a real Scrapy crawl over HTTP).

The server drops the first two connections to /page without an answer, then serves it.
The crawl runs in a child process (one Twisted reactor per process) with the project's
own settings and middlewares.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.support.http_stubs import QuietHandler

CRAWL = r"""
import json, sys
from scrapy import Spider
from scrapy.crawler import CrawlerProcess
from scrapers import settings as project

class One(Spider):
    name = "one"
    start_urls = [sys.argv[1]]
    def parse(self, response):
        yield {"status": response.status, "body": response.text}

settings = {k: getattr(project, k) for k in dir(project) if k.isupper()}
settings.update(BACKOFF_BASE_SECONDS=0.5, ROBOTSTXT_OBEY=False, AUTOTHROTTLE_ENABLED=False,
                HTTPCACHE_ENABLED=False, DOWNLOAD_DELAY=0, ITEM_PIPELINES={}, EXTENSIONS={},
                SPIDER_MIDDLEWARES={}, LOG_LEVEL="ERROR")
items = []
process = CrawlerProcess(settings)
crawler = process.create_crawler(One)
from scrapy import signals
def keep(item, **_):
    items.append(item)
crawler.signals.connect(keep, signal=signals.item_scraped)  # a named function: signals hold weak references
process.crawl(crawler)
process.start()
print(json.dumps({"items": items, "stats": {k: v for k, v in crawler.stats.get_stats().items()
                                            if k.startswith(("bodoge/", "retry/"))}}))
"""


class DropsTwice(QuietHandler):
    seen: list[float] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        DropsTwice.seen.append(time.monotonic())
        if len(DropsTwice.seen) <= 2:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.connection.close()  # a reset, no answer
            return
        self.answer(200, b"<html><body>ok</body></html>")


@pytest.fixture()
def flaky_server():
    DropsTwice.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), DropsTwice)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/page"
    server.shutdown()


def test_a_dropped_connection_is_retried_after_a_growing_wait(flaky_server: str) -> None:
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-c", CRAWL, flaky_server], cwd=root, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert [item["status"] for item in report["items"]] == [200]
    assert report["stats"]["retry/count"] == 2
    assert report["stats"]["bodoge/backoff_seconds"] == pytest.approx(0.5 + 1.0)
    gaps = [b - a for a, b in zip(DropsTwice.seen, DropsTwice.seen[1:])]
    assert len(gaps) == 2 and gaps[0] >= 0.45 and gaps[1] >= 0.95  # base·2^attempt, not at once
