"""Item pipeline: crawled items into the warehouse's raw tables, in batches."""

from __future__ import annotations

import logging
from typing import Any

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from scrapers.items import item_fields
from warehouse.db import connect
from warehouse.raw import RawWriter

log = logging.getLogger("bodoge.crawl")


class WarehousePipeline:
    """Hands every item to a RawWriter bound to this crawl's run id.

    Configured by the settings `BODOGE_WAREHOUSE` and `BODOGE_RUN_ID`; without a warehouse
    it switches itself off (NotConfigured), e.g. for a dry `scrapy crawl`.
    """

    def __init__(self, crawler: Crawler, *, warehouse: str, run_id: str, batch_size: int) -> None:
        self.crawler = crawler
        self.warehouse = warehouse
        self.run_id = run_id
        self.batch_size = batch_size
        self.writer: RawWriter | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "WarehousePipeline":
        settings = crawler.settings
        warehouse = settings.get("BODOGE_WAREHOUSE")
        if not warehouse:
            raise NotConfigured("BODOGE_WAREHOUSE is not set")
        return cls(
            crawler,
            warehouse=warehouse,
            run_id=settings.get("BODOGE_RUN_ID") or "adhoc",
            batch_size=settings.getint("BODOGE_BATCH_SIZE", 2000),
        )

    def open_spider(self) -> None:
        self.writer = RawWriter(connect(self.warehouse), run_id=self.run_id, batch_size=self.batch_size)
        self.writer.start_run(base_url=getattr(self.crawler.spider, "base_url", ""))

    def process_item(self, item: Any) -> Any:
        assert self.writer is not None
        self.writer.add(item.kind, item_fields(item))
        if self.crawler.stats:
            self.crawler.stats.inc_value(f"bodoge/items/{item.kind}")
        return item

    def close_spider(self) -> None:
        assert self.writer is not None
        writer = self.writer
        writer.flush()
        spider = self.crawler.spider
        cleared = writer.clear_quarantine(getattr(spider, "ok_urls", set()))
        if self.crawler.stats:
            self.crawler.stats.set_value("bodoge/written", dict(writer.written))
            self.crawler.stats.set_value("bodoge/quarantine_cleared", cleared)
            self.crawler.stats.set_value("bodoge/private_members", len(writer.private_users))
        stats = dict(self.crawler.stats.get_stats()) if self.crawler.stats else {}
        reason = stats.get("finish_reason", "finished")
        writer.finish_run(status="finished" if reason == "finished" else f"stopped: {reason}", stats=stats)
        writer.con.close()
        log.info("warehouse: %s", dict(writer.written))
