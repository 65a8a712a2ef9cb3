"""Scrapy settings, written as the crawler's politeness policy.

We are guests on a community site run by a small company. The crawler says who it is,
obeys robots.txt (including its Crawl-delay, applied by `scrapers.crawl_setup`), lets
AutoThrottle slow down when the server does, retries 429 and 5xx answers with
exponential backoff (honouring Retry-After), and never leaves the host it was given.
`LOCAL_OVERRIDES` relaxes only the pace, for the sample site on 127.0.0.1.
"""

from __future__ import annotations

BOT_NAME = "bodoge-pipeline"
SPIDER_MODULES = ["scrapers.spiders"]
NEWSPIDER_MODULE = "scrapers.spiders"

# Who we are, and how to reach us.
from core.http import USER_AGENT  # noqa: E402 - the identity the push uses too
ROBOTSTXT_OBEY = True

# Pace for a real site: one page at a time per host, at least a second apart,
# slower whenever the server's latency grows.
CONCURRENT_REQUESTS = 8
CONCURRENT_REQUESTS_PER_DOMAIN = 2
DOWNLOAD_DELAY = 1.0
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 2.0
AUTOTHROTTLE_MAX_DELAY = 30.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 1.0
DOWNLOAD_TIMEOUT = 30

# Retries with exponential backoff (scrapers.middlewares.BackoffRetryMiddleware).
RETRY_ENABLED = True
RETRY_TIMES = 4
RETRY_HTTP_CODES = [408, 429, 500, 502, 503, 504, 522, 524]
BACKOFF_BASE_SECONDS = 1.0
BACKOFF_MAX_SECONDS = 60.0
DOWNLOADER_MIDDLEWARES = {
    "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
    "scrapers.middlewares.BackoffRetryMiddleware": 550,
    # Below retries and redirects: counts each page's final answer (scrapers.outcome).
    "scrapers.middlewares.PageStatusStats": 540,
}

# Non-2xx answers still reach the spider's errback, which quarantines them.
HTTPERROR_ALLOW_ALL = False

COOKIES_ENABLED = False
TELNETCONSOLE_ENABLED = False
REDIRECT_ENABLED = True

ITEM_PIPELINES = {"scrapers.pipelines.WarehousePipeline": 500}
# The warehouse pipeline is synchronous and batches by itself: one item at a time per
# response avoids ~100 idle asyncio workers per page (about 1.5 ms of CPU a page).
CONCURRENT_ITEMS = 1
EXTENSIONS = {"scrapers.progress.CrawlProgress": 500}
LOG_LEVEL = "WARNING"

# The HTTP cache is for development only (`bodoge crawl --http-cache`).
HTTPCACHE_ENABLED = False
HTTPCACHE_EXPIRATION_SECS = 24 * 3600
HTTPCACHE_IGNORE_HTTP_CODES = [429, 500, 502, 503, 504]

FEED_EXPORT_ENCODING = "utf-8"

# The sample site on 127.0.0.1 is ours: same policy, local pace.
LOCAL_OVERRIDES = {
    "CONCURRENT_REQUESTS": 32,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
    "DOWNLOAD_DELAY": 0.0,
    "AUTOTHROTTLE_START_DELAY": 0.0,
    "AUTOTHROTTLE_MAX_DELAY": 2.0,
    "AUTOTHROTTLE_TARGET_CONCURRENCY": 16.0,
    "BACKOFF_BASE_SECONDS": 0.2,
    "BACKOFF_MAX_SECONDS": 5.0,
}
