"""Downloader middlewares: retries (of answers and of connection errors) that back off instead of hammering a struggling server."""

from __future__ import annotations

import asyncio
import logging

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.http import Response
from scrapy.settings import BaseSettings
from scrapy.utils.response import response_status_message

from core.http import backoff_delay

log = logging.getLogger("bodoge.crawl")


class BackoffRetryMiddleware(RetryMiddleware):
    """Scrapy's retry middleware with exponential backoff and Retry-After for 429/5xx.

    Why: Scrapy retries at once by default, which is exactly wrong for a rate limit or an
    overloaded server. The wait happens in this response's coroutine only; other
    requests go on.
    """

    def __init__(self, settings: BaseSettings, crawler: Crawler | None = None) -> None:
        super().__init__(settings)
        self.base = settings.getfloat("BACKOFF_BASE_SECONDS", 1.0)
        self.cap = settings.getfloat("BACKOFF_MAX_SECONDS", 60.0)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "BackoffRetryMiddleware":
        mw = cls(crawler.settings)
        mw.crawler = crawler
        return mw

    async def process_response(self, request: Request, response: Response) -> Request | Response:  # type: ignore[override]
        if request.meta.get("dont_retry", False) or response.status not in self.retry_http_codes:
            return response
        attempt = request.meta.get("retry_times", 0)
        retry = self._retry(request, response_status_message(response.status))
        if retry is None:
            return response
        header = response.headers.get(b"Retry-After")
        delay = backoff_delay(
            attempt, base=self.base, cap=self.cap, retry_after=header.decode("latin-1") if header else None
        )
        if self.crawler.stats:
            self.crawler.stats.inc_value("bodoge/backoff_seconds", delay)
        log.info("retrying %s after HTTP %s in %.1fs", request.url, response.status, delay)
        await asyncio.sleep(delay)
        return retry

    async def process_exception(self, request: Request, exception: Exception) -> Request | None:  # type: ignore[override]
        """A refused or reset connection, a timeout: retried after the same backoff as a 503.

        Why: a server that drops connections is as overloaded as one answering 503, and
        Scrapy's own retry would try again at once.
        """
        if request.meta.get("dont_retry", False) or not isinstance(exception, self.exceptions_to_retry):
            return None
        attempt = request.meta.get("retry_times", 0)
        retry = self._retry(request, exception)
        if retry is None:
            return None
        delay = backoff_delay(attempt, base=self.base, cap=self.cap)
        if self.crawler.stats:
            self.crawler.stats.inc_value("bodoge/backoff_seconds", delay)
        log.info("retrying %s after %s in %.1fs", request.url, type(exception).__name__, delay)
        await asyncio.sleep(delay)
        return retry


class PageStatusStats:
    """Counts the final answer of every page by HTTP status, as `bodoge/pages/status/<code>`.

    Why not Scrapy's `downloader/response_status_count/*`: those count every attempt
    (each retried 500 again) and robots.txt. Placed below the retry and redirect
    middlewares, this one sees only what the spider finally gets, so "no page answered
    2xx" (`scrapers.outcome.crawl_problem`) means exactly that.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "PageStatusStats":
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Response:
        if not request.meta.get("dont_obey_robotstxt") and self.crawler.stats:
            self.crawler.stats.inc_value(f"bodoge/pages/status/{response.status}")
        return response
