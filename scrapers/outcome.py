"""How a crawl went, in one word for `raw.crawl_runs.status` and one line for the operator.

Why a module of its own: the item pipeline writes the run's status into the warehouse and
the crawl subprocess chooses its exit code, and both must judge a crawl by the same rules.
A crawl that fetched nothing but errors, or wrote nothing at all, did not succeed, however
calmly Scrapy closed it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

STATUS_PREFIX = "bodoge/pages/status/"
FAILURE_STAT = "bodoge/failure"  # set by the item pipeline: why the crawl failed, one line
# Scrapy's close reasons that end a crawl normally: done, or the night's page budget spent.
NORMAL_ENDS = {"finished", "closespider_pagecount"}
INTERRUPTED = "shutdown"  # Scrapy's reason after SIGTERM/SIGINT: a graceful stop


def page_statuses(stats: Mapping[str, Any]) -> dict[int, int]:
    """Pages by the HTTP status of their final answer (robots.txt and retried attempts excluded)."""
    counts: dict[int, int] = {}
    for key, value in stats.items():
        if key.startswith(STATUS_PREFIX) and key.removeprefix(STATUS_PREFIX).isdigit():
            counts[int(key.removeprefix(STATUS_PREFIX))] = int(value)
    return counts


def crawl_problem(stats: Mapping[str, Any]) -> str | None:
    """Why a crawl that ran to its end still failed, as one line; None when it did its job.

    A crawl fails when no page answered 2xx (a site answering 500 everywhere, or not at
    all), or when it wrote no item at all to the warehouse.
    """
    statuses = page_statuses(stats)
    pages = sum(statuses.values())
    if not any(200 <= status < 300 for status in statuses):
        if not pages:
            errors = int(stats.get("downloader/exception_count", 0))
            forbidden = int(stats.get("robotstxt/forbidden", 0))
            if forbidden and not errors:
                return f"the site answered no page: robots.txt forbade all {forbidden:,} requests"
            return f"the site answered no page: {errors:,} download errors"
        if len(statuses) == 1:
            return f"the site answered no page successfully: {pages:,} pages, all HTTP {next(iter(statuses))}"
        parts = ", ".join(f"{n:,} HTTP {status}" for status, n in sorted(statuses.items()))
        return f"the site answered no page successfully: {pages:,} pages ({parts})"
    written = stats.get("bodoge/written") or {}
    if not sum(int(n) for n in written.values()):
        return f"the crawl wrote nothing to the warehouse: {pages:,} pages fetched, no item parsed"
    return None


def run_status(*, reason: str, failure: str | None) -> str:
    """`raw.crawl_runs.status` for a crawl closed with Scrapy's `reason`.

    `interrupted` for a graceful stop on a signal (even one that also failed: it did not
    run to its end), `failed` when `failure` says why, `finished` for a normal end, and
    `stopped: <reason>` for anything else (a crawl cancelled by Scrapy, say).
    """
    if reason == INTERRUPTED:
        return "interrupted"
    if failure:
        return "failed"
    if reason in NORMAL_ENDS:
        return "finished"
    return f"stopped: {reason}"


def first_line(exc: BaseException) -> str:
    """An exception's first line, or its type when it says nothing."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
