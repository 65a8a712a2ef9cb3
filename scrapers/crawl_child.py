"""The crawl process: one Scrapy crawl in this process, its stats to a file (the child's side).

Started by `scrapers.crawl.run_crawl` as `python -m scrapers.crawl_child ...`, with the
crawl's settings (site, warehouse, data directory, full, page budget, max age) in its
environment (`scrapers.crawl_setup.child_environment`, read here by `Settings.from_env`)
and this crawl's own run id, sections and files as arguments. It dies with its parent, stops gracefully on the first SIGTERM and then dies of that signal, so
the parent can tell a stopped crawl from a finished one.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

from scrapy.crawler import CrawlerProcess

from core.settings import Settings
from ops.children import die_with_parent, orphaned
from ops.errors import fail
from scrapers import settings as default_settings
from scrapers.crawl_setup import (
    CrawlError,
    crawl_settings,
    robots_crawl_delay,
    start_paths,
    validate_base_url,
)
from scrapers.outcome import FAILURE_STAT, first_line
from scrapers.spiders.site import ALL_SECTIONS


class _CrawlerProcess(CrawlerProcess):
    """Scrapy's CrawlerProcess that remembers which signal asked it to stop.

    Why: after a graceful stop the crawl subprocess re-raises that signal on itself, so
    its parent sees "killed by SIGTERM" rather than a success.
    """

    received_signal: int | None = None
    parent_pid: int | None = None

    def _signal_shutdown(self, signum: int, frame: Any) -> None:
        if self.received_signal is None:
            self.received_signal = signum
        super()._signal_shutdown(signum, frame)

    def _signal_kill(self, signum: int, frame: Any) -> None:
        """A second signal forces an unclean stop, except a repeated parent-death SIGTERM."""
        if signum == signal.SIGTERM and orphaned(self.parent_pid):
            return  # the kernel repeating that the parent died: keep stopping gracefully
        super()._signal_kill(signum, frame)


def main(argv: list[str] | None = None) -> int:
    """Subprocess entry point: run one crawl in this process and write its stats.

    Exits 0 only for a crawl that did its job; otherwise prints one `bodoge: error:` line
    and exits 1 (or dies of the signal that stopped it, after a graceful stop).
    """
    parser = argparse.ArgumentParser(prog="python -m scrapers.crawl_child")
    parser.add_argument("--run-id", required=True)
    parser.add_argument("--sections", default=",".join(ALL_SECTIONS))
    parser.add_argument("--users")
    parser.add_argument("--http-cache-dir")
    parser.add_argument("--stats-file", required=True)
    parser.add_argument("--parent-pid", type=int, help="die (SIGTERM) when this parent dies")
    parser.add_argument("--night-id", help="the nightly run this crawl belongs to (raw.crawl_runs.night_id)")
    args = parser.parse_args(argv)
    if args.parent_pid:
        die_with_parent(parent_pid=args.parent_pid)

    from scrapers.spiders.site import SiteSpider

    try:
        settings = Settings.from_env()  # what run_crawl wrote (crawl_setup.child_environment)
        base_url = validate_base_url(settings.base_url or "")
        users = args.users.split(",") if args.users else None
        delay = robots_crawl_delay(base_url, default_settings.USER_AGENT,
                                   starts=start_paths(args.sections.split(","), users))
    except (CrawlError, ValueError) as exc:  # ValueError: a SettingError, when started by hand
        return fail(str(exc), 2)
    scrapy_settings = crawl_settings(
        base_url=base_url,
        warehouse=settings.paths.warehouse,
        run_id=args.run_id,
        http_cache_dir=args.http_cache_dir,
        max_pages=settings.max_pages,
        crawl_delay=delay,
        data_dir=settings.paths.data_dir,
        night_id=args.night_id,
    )
    process = _CrawlerProcess(scrapy_settings)  # installs the root log handler (LOG_INSTALL_ROOT_HANDLER, default on)
    _no_records_below(scrapy_settings.get("LOG_LEVEL"))
    process.parent_pid = args.parent_pid
    crawler = process.create_crawler(SiteSpider)
    start_errors: list[BaseException] = []
    done = process.crawl(crawler, base_url=base_url, sections=args.sections, users=args.users,
                         full=settings.full, max_age_days=settings.max_age_days)
    done.addErrback(lambda failure: start_errors.append(failure.value))
    process.start()
    stats = crawler.stats.get_stats() if crawler.stats else {}
    Path(args.stats_file).write_text(json.dumps(stats, default=str, ensure_ascii=False), encoding="utf-8")
    if process.received_signal is not None:
        _die_of(process.received_signal)
    failure = first_line(start_errors[0]) if start_errors else stats.get(FAILURE_STAT)
    if failure:
        return fail(str(failure), 1)
    return 0


def _no_records_below(level: str | int) -> None:
    """Scrapy's own loggers make no record below `level` (the crawl's LOG_LEVEL).

    Why: Scrapy sets the root logger to NOTSET and filters in its handler, so every
    scraped item still built a DEBUG "Scraped from" record (and each request a "Crawled"
    one) that the handler then dropped: ~1 s of CPU in a 1,660-page crawl (docs/development.md).
    Its handler and its `log_count/*` stats counter take only `level` and above, so nothing
    they see changes.
    Set on the `scrapy` logger, not the root: Scrapy resets the root's level when a
    crawler applies its settings.
    """
    logging.getLogger("scrapy").setLevel(level)


def _die_of(signum: int) -> None:
    """End this process by `signum` itself, the way a process without a handler would."""
    sys.stderr.flush()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    sys.exit(128 + signum)  # not reached: the default action ends the process


if __name__ == "__main__":
    sys.exit(main())
