"""The crawl floor per mode (the crawl options' checks: tests/unit/test_settings.py)."""

from __future__ import annotations

import json

import duckdb

from bodoge.display import crawl_line
from warehouse.crawl_floor import accounted_pages, crawl_floor
from warehouse.raw import ensure_raw_schema


def _stats(mode: str, **counts: int) -> str:
    return json.dumps({"bodoge/mode": mode, "bodoge/written": {"member": 5}, **counts})


def _run(con: duckdb.DuckDBPyConnection, run_id: str, day: int, stats: str) -> None:
    con.execute("INSERT INTO raw.crawl_runs (run_id, base_url, started_at, finished_at, status, stats) "
                "VALUES (?, 'http://x', ?, ?, 'finished', ?)",
                [run_id, f"2026-11-0{day} 03:00:00+00", f"2026-11-0{day} 04:00:00+00", stats])


def test_the_floor_counts_pages_accounted_for_against_the_same_mode() -> None:
    con = duckdb.connect()
    ensure_raw_schema(con)
    _run(con, "1-full", 1, _stats("full", **{"bodoge/pages/status/200": 10_000}))
    for day in (2, 3, 4):
        _run(con, f"{day}-inc", day, _stats("incremental", **{"bodoge/pages/status/200": 300,
                                                               "bodoge/pages/status/304": 100,
                                                               "bodoge/skipped/collections": 4_600}))
    assert accounted_pages(_stats("incremental", **{"bodoge/pages/status/200": 300, "bodoge/pages/status/503": 9,
                                                    "bodoge/pages/status/304": 100,
                                                    "bodoge/skipped/collections": 4_600})) == 5_000
    # a quiet incremental night passes against incremental nights, not against the full crawl
    _run(con, "5-inc", 5, _stats("incremental", **{"bodoge/pages/status/200": 150, "bodoge/skipped/collections": 4_700}))
    verdict = crawl_floor(con, run_id="5-inc", floor=0.5)
    assert verdict.passed and verdict.baseline == 5_000 and "incremental" in verdict.message
    # a night of login walls (nothing answered, nothing skipped) fails
    _run(con, "6-inc", 6, _stats("incremental", **{"bodoge/pages/status/200": 40}))
    thin = crawl_floor(con, run_id="6-inc", floor=0.5)
    assert not thin.passed and "under 50% of the last good incremental nights' median" in thin.message
    # the next full crawl is judged against the full one
    _run(con, "7-full", 7, _stats("full", **{"bodoge/pages/status/200": 9_000}))
    assert crawl_floor(con, run_id="7-full", floor=0.5).baseline == 10_000
    # crawls recorded before incremental nights count their written items
    assert accounted_pages(json.dumps({"bodoge/written": {"collection_entry": 7, "quarantine": 3}})) == 7


def test_crawl_line_names_fetched_not_modified_skipped_queue_and_age() -> None:
    line = crawl_line({"bodoge/mode": "incremental", "bodoge/pages/status/200": 300, "bodoge/pages/status/304": 40,
                       "bodoge/skipped/collections": 4_900, "bodoge/skipped/games": 90, "bodoge/pages/same_body": 10,
                       "bodoge/queue_left": 12, "bodoge/oldest_page_days": 5.25})
    assert line == ("crawl (incremental): 340 pages fetched, 40 not modified (304), 5,000 skipped as unchanged, "
                    "12 queued for the next night, oldest page 5.2 days")
