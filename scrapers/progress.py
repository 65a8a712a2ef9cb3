"""A progress line every few seconds, so an operator sees a long crawl move."""

from __future__ import annotations

import sys
import time
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.utils.asyncio import create_looping_call


class CrawlProgress:
    """Prints `crawl: N pages, N items (by kind), N errors, N quarantined` to stderr.

    Why stderr and not the log: the log level is WARNING for a quiet crawl, but the
    operator still wants to see pages, items and errors go up as it runs.
    """

    def __init__(self, crawler: Crawler, interval: float) -> None:
        self.crawler = crawler
        self.interval = interval
        self.started = time.monotonic()
        self.task: Any = None  # the looping call, from spider_opened

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "CrawlProgress":
        ext = cls(crawler, crawler.settings.getfloat("BODOGE_PROGRESS_SECONDS", 5.0))
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_opened(self) -> None:
        self.started = time.monotonic()
        self.task = create_looping_call(self.report)
        self.task.start(self.interval, now=False)

    def spider_closed(self, reason: str) -> None:
        if self.task is not None and self.task.running:
            self.task.stop()
        self.report(final=True, reason=reason)

    def line(self) -> str:
        """The current progress as one line."""
        stats = self.crawler.stats.get_stats() if self.crawler.stats else {}
        pages = stats.get("response_received_count", 0)
        kinds = {k.removeprefix("bodoge/items/"): v for k, v in stats.items() if k.startswith("bodoge/items/")}
        quarantined = kinds.pop("quarantine", 0)
        kinds.pop("listing_crawl", None)
        items = sum(kinds.values())
        errors = stats.get("log_count/ERROR", 0) + stats.get("retry/max_reached", 0)
        detail = ", ".join(f"{k} {v:,}" for k, v in sorted(kinds.items()))
        elapsed = time.monotonic() - self.started
        return (
            f"crawl: {pages:,} pages, {items:,} items ({detail}), {errors:,} errors, "
            f"{quarantined:,} quarantined, {stats.get('retry/count', 0):,} retries, {elapsed:.0f}s"
        )

    def report(self, final: bool = False, reason: str | None = None) -> None:
        suffix = f" — done ({reason})" if final else ""
        print(self.line() + suffix, file=sys.stderr, flush=True)
