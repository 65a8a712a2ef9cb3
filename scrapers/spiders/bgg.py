"""The BoardGameGeek spider: linked members' collections, then the things they hold, over XML API2.

Why in this order: which things to fetch is only known once the collections are in, so
things are queued when the collections are done (the engine's idle signal), in batches
of at most 20 ids (BGG's limit). A collection BGG is still preparing (202) is asked for
again after a growing pause, up to a limit, then reported for that user; 429 and 503
are retried by `BackoffRetryMiddleware`, honouring Retry-After. A 401 (no or a refused
token) stops the sync at once: nothing else can succeed.

The token is added to each API request by `BggTokenMiddleware` and nowhere else: not
in the spider's arguments, not in any URL, log line or stat.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlencode

import scrapy
from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import CloseSpider, DontCloseSpider
from scrapy.http import Response

from scrapers.bgg import BggError
from scrapers.bgg_facts import bgg_collection, bgg_things
from scrapers.bgg_store import BggStore

THING_BATCH = 20
TOKEN_REFUSED = "token_refused"
"""The close reason after a 401: the child exits with TOKEN_EXIT and one line."""


class BggTokenMiddleware:
    """Adds `Authorization: Bearer <token>` to requests for the API, and only those.

    Why a middleware: the header is set at the last moment from the setting, so no
    Request object the spider logs or retries carries the token in its repr or URL.
    """

    def __init__(self, *, token: str, api_url: str) -> None:
        self._header = f"Bearer {token}".encode("latin-1")
        self.api_url = api_url

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "BggTokenMiddleware":
        return cls(token=crawler.settings.get("BGG_TOKEN", ""), api_url=crawler.settings.get("BGG_API_URL", ""))

    def process_request(self, request: Request) -> None:
        if self.api_url and request.url.startswith(self.api_url):
            request.headers[b"Authorization"] = self._header


class BggSpider(scrapy.Spider):
    """Fetch the plan's collections (full or `modifiedsince`), then the things due, into `raw.bgg_*`."""

    name = "bgg"
    handle_httpstatus_list = [202, 400, 401, 404, 429, 500, 502, 503, 504]

    def __init__(self, *, api_url: str, plan_file: str, warehouse: str, run_id: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.api_url = api_url.rstrip("/")
        plan = json.loads(open(plan_file, encoding="utf-8").read())
        self.users: list[dict[str, Any]] = plan["users"]
        self.extra_things: list[int] = plan["things"]
        self.max_age_days = float(plan["max_age_days"])
        self.prepare_retries = int(plan["prepare_retries"])
        self.prepare_delay = float(plan["prepare_delay"])
        self.store = BggStore(warehouse, run_id=run_id)
        self.outcomes: dict[str, str] = {}
        self._things_queued = False

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> "BggSpider":
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider._idle, signal=signals.spider_idle)
        crawler.signals.connect(spider._closed, signal=signals.spider_closed)
        return spider

    # -- collections --------------------------------------------------------------
    def _collection_request(self, user: dict[str, Any], attempt: int = 0) -> Request:
        query = {"username": user["bgg_user"], "stats": "1"}
        if user.get("modifiedsince"):
            query["modifiedsince"] = user["modifiedsince"]
        return Request(f"{self.api_url}/collection?{urlencode(query)}", callback=self.parse_collection,
                       errback=self.failed, dont_filter=True, meta={"bgg_user": user, "prepare_attempt": attempt})

    async def start(self) -> AsyncIterator[Any]:
        for user in self.users:
            yield self._collection_request(user)

    async def parse_collection(self, response: Response) -> AsyncIterator[Any]:
        user, attempt = response.meta["bgg_user"], response.meta["prepare_attempt"]
        name = user["bgg_user"]
        self._check_token(response)
        if response.status == 202:
            if attempt >= self.prepare_retries:
                self._outcome(name, "not_ready")
                return
            self.crawler.stats.inc_value("bodoge/bgg/prepare_retries")
            await asyncio.sleep(self.prepare_delay * (2 ** attempt))  # growing: BGG is still preparing it
            yield self._collection_request(user, attempt + 1)
            return
        if response.status != 200:
            self._failed(name, response, f"http {response.status}")
            return
        try:
            items = bgg_collection(response.body, bgg_user=name)
        except BggError as exc:
            if "invalid username" in str(exc).lower():
                self._outcome(name, "unknown_user")
            else:
                self._failed(name, response, str(exc))
            return
        full = not user.get("modifiedsince")
        self.store.collection(name, items, full=full, url=response.url)
        self.outcomes[name] = "full" if full else "changes"
        self.crawler.stats.inc_value("bodoge/bgg/collection_items", len(items))

    def _outcome(self, bgg_user: str, status: str) -> None:
        self.store.collection_failed(bgg_user, status=status)
        self.outcomes[bgg_user] = status

    def _failed(self, bgg_user: str, response: Response, reason: str) -> None:
        self.store.quarantine(url=response.url, reason=reason, http_status=response.status, body=response.body)
        self._outcome(bgg_user, "failed")

    # -- things -------------------------------------------------------------------
    def _idle(self) -> None:
        if self._things_queued:
            return
        self._things_queued = True
        due = self.store.things_due(extra=self.extra_things, max_age_days=self.max_age_days)
        self.crawler.stats.set_value("bodoge/bgg/things_due", len(due))
        for start in range(0, len(due), THING_BATCH):
            ids = ",".join(str(i) for i in due[start:start + THING_BATCH])
            self.crawler.engine.crawl(Request(f"{self.api_url}/thing?id={ids}&stats=1", callback=self.parse_things,
                                              errback=self.failed, dont_filter=True))
        if due:
            raise DontCloseSpider

    def parse_things(self, response: Response) -> None:
        self._check_token(response)
        if response.status != 200:
            self.store.quarantine(url=response.url, reason=f"http {response.status}", http_status=response.status,
                                  body=response.body)
            self.crawler.stats.inc_value("bodoge/bgg/thing_batches_failed")
            return
        try:
            things = bgg_things(response.body)
        except BggError as exc:
            self.store.quarantine(url=response.url, reason=str(exc), http_status=200, body=response.body)
            self.crawler.stats.inc_value("bodoge/bgg/thing_batches_failed")
            return
        self.crawler.stats.inc_value("bodoge/bgg/things", self.store.things(things, url=response.url))

    # -- failures -----------------------------------------------------------------
    def _check_token(self, response: Response) -> None:
        if response.status == 401:
            self.crawler.stats.set_value("bodoge/bgg/token_refused", True)
            raise CloseSpider(TOKEN_REFUSED)

    def failed(self, failure: Any) -> None:
        """No answer at all (connection refused, timeout) after the retries."""
        request = failure.request
        self.store.quarantine(url=request.url, reason=f"fetch failed: {failure.value!r}"[:300], http_status=None,
                              body=None)
        user = request.meta.get("bgg_user")
        if user:
            self._outcome(user["bgg_user"], "failed")
        else:
            self.crawler.stats.inc_value("bodoge/bgg/thing_batches_failed")

    def _closed(self, spider: scrapy.Spider, reason: str) -> None:
        self.crawler.stats.set_value("bodoge/bgg/outcomes", dict(self.outcomes))
        self.store.close()
