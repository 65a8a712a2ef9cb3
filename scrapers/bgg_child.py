"""The BGG sync process: one Scrapy crawl of BGG's XML API2, its stats to a file.

Started by `scrapers.bgg_sync.run_bgg_sync` as `python -m scrapers.bgg_child …` (Scrapy's
reactor cannot restart in one process). Its settings (BGG's address, the pace, the
warehouse) cross as every process boundary of the project does: written by the parent with
`Settings.to_env()`, read here with `Settings.from_env()`; argv carries only this sync's
run id and files. The token comes in the environment too (`BODOGE_BGG_TOKEN`), never on
the command line where `ps` would show it, and is removed from the environment before
Scrapy starts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from core.http import USER_AGENT
from core.settings import Settings
from ops.children import die_with_parent
from ops.errors import fail, one_line

TOKEN_EXIT = 3
"""Exit status for a missing or refused token (the sync's one-line error names which)."""


def bgg_settings(*, api_url: str, token: str, delay: float, backoff_base: float) -> dict[str, object]:
    """Scrapy settings as a politeness policy for BGG: who we are, robots.txt, one request at a time."""
    return {
        "BOT_NAME": "bodoge-pipeline", "USER_AGENT": USER_AGENT, "ROBOTSTXT_OBEY": True,
        "SPIDER_MODULES": [], "CONCURRENT_REQUESTS": 1, "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
        "DOWNLOAD_DELAY": delay, "RANDOMIZE_DOWNLOAD_DELAY": False, "AUTOTHROTTLE_ENABLED": False,
        "DOWNLOAD_TIMEOUT": 60, "RETRY_ENABLED": True, "RETRY_TIMES": 4,
        "RETRY_HTTP_CODES": [429, 500, 502, 503, 504], "BACKOFF_BASE_SECONDS": backoff_base,
        "BACKOFF_MAX_SECONDS": 300.0,
        "DOWNLOADER_MIDDLEWARES": {
            "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
            "scrapers.middlewares.BackoffRetryMiddleware": 550,
            "scrapers.spiders.bgg.BggTokenMiddleware": 560,
        },
        "BGG_TOKEN": token, "BGG_API_URL": api_url,
        "COOKIES_ENABLED": False, "TELNETCONSOLE_ENABLED": False, "LOG_LEVEL": "ERROR",
        "ITEM_PIPELINES": {}, "EXTENSIONS": {}, "HTTPCACHE_ENABLED": False,
    }


def main(argv: list[str] | None = None) -> int:
    """Run one BGG sync crawl; exit 0, TOKEN_EXIT (401), or 1 with one `bodoge: error:` line."""
    parser = argparse.ArgumentParser(prog="python -m scrapers.bgg_child")
    parser.add_argument("--run-id", required=True)
    parser.add_argument("--plan-file", required=True)
    parser.add_argument("--stats-file", required=True)
    parser.add_argument("--backoff-base", type=float, default=2.0)
    parser.add_argument("--parent-pid", type=int)
    args = parser.parse_args(argv)
    if args.parent_pid:
        die_with_parent(parent_pid=args.parent_pid)
    token = os.environ.pop("BODOGE_BGG_TOKEN", "")
    settings = Settings.from_env()
    from scrapy.crawler import CrawlerProcess  # here: the sync's parent imports TOKEN_EXIT, never Scrapy

    from scrapers.spiders.bgg import TOKEN_REFUSED, BggSpider

    api_url = settings.bgg_api_url.rstrip("/")
    process = CrawlerProcess(bgg_settings(api_url=api_url, token=token, delay=settings.bgg_delay,
                                          backoff_base=args.backoff_base))
    crawler = process.create_crawler(BggSpider)
    errors: list[BaseException] = []
    process.crawl(crawler, api_url=api_url, plan_file=args.plan_file, warehouse=str(settings.paths.warehouse),
                  run_id=args.run_id).addErrback(lambda failure: errors.append(failure.value))
    process.start()
    stats = crawler.stats.get_stats() if crawler.stats else {}
    Path(args.stats_file).write_text(json.dumps(stats, default=str), encoding="utf-8")
    if stats.get("finish_reason") == TOKEN_REFUSED:
        return TOKEN_EXIT
    if errors:
        return fail(f"BGG sync failed: {one_line(errors[0])}", 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
