"""Item pipeline: crawled items into the warehouse's raw tables, in batches.

Why it is strict about failures: Scrapy logs an exception from a pipeline and carries on,
so left alone a warehouse that cannot be opened or written would end in "0 pages" and
success. The rule: a warehouse that cannot be opened fails the crawl's start (the crawl subprocess turns that
into one line and a non-zero exit), and one that fails mid-crawl closes the spider and
records `bodoge/failure` in the stats, which the subprocess reads the same way.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.utils.defer import deferred_from_coro

from scrapers.items import item_fields
from scrapers.outcome import FAILURE_STAT, crawl_problem, first_line, run_status
from warehouse.db import WarehouseError, connect
from warehouse.crawl_runs import crawl_state
from warehouse.privacy.erasure import Eraser
from warehouse.raw import RawWriter

log = logging.getLogger("bodoge.crawl")

@dataclass(kw_only=True, eq=False)
class WarehousePipeline:
    """Hands every item to a RawWriter bound to this crawl's run id.

    Configured by the settings `BODOGE_WAREHOUSE`, `BODOGE_RUN_ID` and (for a night's crawl)
    `BODOGE_NIGHT_ID`; without a warehouse
    it switches itself off (NotConfigured), e.g. for a dry `scrapy crawl`. With
    `BODOGE_DATA_DIR`, a member found private is also cut at once from the published night
    and the export bundles there (`warehouse.privacy.erasure`), whatever happens to the crawl after.

    Why `eq=False`: a pipeline is one crawl's writer, equal only to itself and hashable like
    any object (a generated `__eq__` would drop `__hash__`).
    """

    crawler: Crawler
    warehouse: str
    run_id: str
    batch_size: int
    data_dir: str | None = None
    night_id: str | None = None
    writer: RawWriter | None = field(default=None, init=False)
    failure: str | None = field(default=None, init=False)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "WarehousePipeline":
        settings = crawler.settings
        warehouse = settings.get("BODOGE_WAREHOUSE")
        if not warehouse:
            raise NotConfigured("BODOGE_WAREHOUSE is not set")
        pipeline = cls(
            crawler=crawler,
            warehouse=warehouse,
            run_id=settings.get("BODOGE_RUN_ID") or "adhoc",
            batch_size=settings.getint("BODOGE_BATCH_SIZE", 2000),
            data_dir=settings.get("BODOGE_DATA_DIR") or None,
            night_id=settings.get("BODOGE_NIGHT_ID") or None,
        )
        # The run's status is written once the close reason is known: Scrapy tells the
        # pipelines to close before it records `finish_reason`, but passes the reason here.
        crawler.signals.connect(pipeline.spider_closed, signal=signals.spider_closed)
        return pipeline

    def open_spider(self) -> None:
        """Open the warehouse and record the run; any failure here fails the crawl's start."""
        try:
            con = connect(self.warehouse)
        except WarehouseError:
            raise
        except Exception as exc:  # duckdb raises several kinds; the operator needs one line
            raise WarehouseError(f"cannot open warehouse {self.warehouse}: {first_line(exc)}") from exc
        try:
            eraser = Eraser(Path(self.data_dir), self.warehouse) if self.data_dir else None
            writer = RawWriter(con, run_id=self.run_id, batch_size=self.batch_size, eraser=eraser,
                               night_id=self.night_id)
            writer.start_run(base_url=getattr(self.crawler.spider, "base_url", ""))
        except Exception as exc:
            con.close()
            raise WarehouseError(f"cannot write to warehouse {self.warehouse}: {first_line(exc)}") from exc
        self.writer = writer
        spider = self.crawler.spider
        if spider is not None and hasattr(spider, "attach_warehouse"):
            try:
                spider.attach_warehouse(con.cursor())
            except Exception as exc:
                raise WarehouseError(f"cannot read warehouse {self.warehouse}: {first_line(exc)}") from exc

    def process_item(self, item: Any) -> Any:
        if self.writer is None or self.failure:
            raise DropItem(f"not written: {self.failure or 'the warehouse is not open'}")
        try:
            self.writer.add(item.kind, item_fields(item))
        except Exception as exc:
            self._fail(f"cannot write to warehouse {self.warehouse}: {first_line(exc)}", close=True)
            raise DropItem(f"not written: {self.failure}") from exc
        if self.crawler.stats:
            self.crawler.stats.inc_value(f"bodoge/items/{item.kind}")
        return item

    def close_spider(self) -> None:
        """Write what is still buffered; the run's status follows in `spider_closed`."""
        writer = self.writer
        if writer is None:
            return
        if not self.failure:
            try:
                writer.flush()
                spider = self.crawler.spider
                cleared = writer.clear_quarantine(getattr(spider, "ok_urls", set()))
                if self.crawler.stats:
                    self.crawler.stats.set_value("bodoge/quarantine_cleared", cleared)
                    for key, value in crawl_state(writer.con).items():
                        self.crawler.stats.set_value(key, value)
            except Exception as exc:
                self._fail(f"cannot write to warehouse {self.warehouse}: {first_line(exc)}")
        if self.crawler.stats:
            self.crawler.stats.set_value("bodoge/written", dict(writer.written))
            self.crawler.stats.set_value("bodoge/private_members", len(writer.private_users))

    def spider_closed(self, reason: str) -> None:
        """Record the run's outcome (finished, interrupted, failed) and close the warehouse."""
        writer = self.writer
        if writer is None:
            return
        self.writer = None
        stats = dict(self.crawler.stats.get_stats()) if self.crawler.stats else {}
        stats.setdefault("finish_reason", reason)
        spider = self.crawler.spider
        # A complete crawl (the base of incremental nights): full, every section, run to its end.
        stats["bodoge/complete"] = bool(
            getattr(spider, "mode", "full") == "full" and getattr(spider, "complete_scope", False)
            and reason == "finished" and not self.failure)
        book = getattr(spider, "signal_book", None)
        if book is not None:  # each signal's strategy tonight, in the run's stats (and on screen, below)
            stats.update(book.stats())
        if self.crawler.stats:
            self.crawler.stats.set_value("bodoge/complete", stats["bodoge/complete"])
            for key, value in (book.stats() if book is not None else {}).items():
                self.crawler.stats.set_value(key, value)
        if not self.failure and reason != "shutdown":
            problem = crawl_problem(stats)
            if problem:
                self._fail(problem)
                stats[FAILURE_STAT] = problem
        try:
            writer.finish_run(status=run_status(reason=reason, failure=self.failure), stats=stats,
                              signals=book.rows() if book is not None else None)
        except Exception as exc:
            if not self.failure:
                self._fail(f"cannot write to warehouse {self.warehouse}: {first_line(exc)}")
        finally:
            writer.con.close()
        log.info("warehouse: %s", dict(writer.written))
        if book is not None:
            # After the record is closed: a parent that died leaves stderr a broken pipe.
            with contextlib.suppress(OSError):
                print(f"crawl: {book.line()}", file=sys.stderr, flush=True)

    def _fail(self, message: str, *, close: bool = False) -> None:
        """Remember the first failure (in the stats too) and, if asked, stop the crawl."""
        if self.failure:
            return
        self.failure = message
        log.error("%s", message)
        if self.crawler.stats:
            self.crawler.stats.set_value(FAILURE_STAT, message)
        if close and self.crawler.engine is not None:
            deferred_from_coro(self.crawler.engine.close_spider_async(reason="warehouse_error"))
