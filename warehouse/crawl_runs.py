"""The crawl's run records (`raw.crawl_runs`): a killed crawl never stays `running`.

Why this exists: a crawl killed by a signal (or the machine going down) cannot close its
own record, so the row would say `running` forever and every later reader (the ingest
check, the dashboard, the next night's planner) would believe a crawl is still going.
DuckDB lets one process write the file at a time, so a writer that starts a run knows any
other `running` row belongs to a dead process and closes it as `interrupted`. The run
orchestration can also close a run it has just seen killed (`mark_interrupted`).
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta, timezone
from typing import Any

import duckdb

log = logging.getLogger("bodoge.warehouse")

INTERRUPTED = "interrupted"


def start_run(con: duckdb.DuckDBPyConnection, *, run_id: str, base_url: str, night_id: str | None = None) -> int:
    """Record `run_id` as running (re-running a run id replaces its record), as the crawl of
    `night_id` when a night runs it (marts.nights).

    Returns how many stale `running` rows of other runs were closed as interrupted.
    """
    stale = interrupt_stale_runs(con, current_run_id=run_id)
    con.execute(
        "INSERT OR REPLACE INTO raw.crawl_runs (run_id, base_url, started_at, finished_at, status, stats) "
        "VALUES (?, ?, ?, NULL, 'running', NULL)",
        [run_id, base_url, _now()],
    )
    if night_id:  # only a night's crawl names the column: a lone crawl writes any version's table
        con.execute("UPDATE raw.crawl_runs SET night_id = ? WHERE run_id = ?", [night_id, run_id])
    return stale


def finish_run(con: duckdb.DuckDBPyConnection, *, run_id: str, status: str, stats: dict[str, Any]) -> None:
    """Close the run record with its outcome and stats."""
    con.execute(
        "UPDATE raw.crawl_runs SET finished_at = ?, status = ?, stats = ? WHERE run_id = ?",
        [_now(), status, json.dumps(stats, default=str, ensure_ascii=False), run_id],
    )


def record_signals(con: duckdb.DuckDBPyConnection, *, run_id: str, rows: list[dict[str, Any]]) -> None:
    """Write what the run measured of each site signal (`raw.crawl_signals`, see scrapers.signals).

    The site is the run's own `base_url`; re-running a run id replaces its rows.
    """
    if not rows:
        return
    con.execute("DELETE FROM raw.crawl_signals WHERE run_id = ?", [run_id])
    con.executemany(
        "INSERT INTO raw.crawl_signals BY NAME SELECT ? AS run_id, (SELECT base_url FROM raw.crawl_runs "
        "WHERE run_id = ?) AS base_url, ? AS signal, ? AS state, ? AS strategy, ? AS remembered, ? AS seen, "
        "? AS missing, ? AS agree, ? AS contradict, ? AS example, ? AS finished_at",
        [[run_id, run_id, r["signal"], r["state"], r["strategy"], r["remembered"], r["seen"], r["missing"],
          r["agree"], r["contradict"], r["example"], _now()] for r in rows])


def mark_interrupted(con: duckdb.DuckDBPyConnection, *, run_id: str) -> bool:
    """Close `run_id` as interrupted if its record still says running; True if it did.

    For the run orchestration, right after it saw the crawl subprocess die by a signal.
    A run that managed to close its own record (finished, failed) is left as it is.
    """
    rows = con.execute(
        "UPDATE raw.crawl_runs SET finished_at = ?, status = ? WHERE run_id = ? AND status = 'running' "
        "RETURNING run_id",
        [_now(), INTERRUPTED, run_id],
    ).fetchall()
    return bool(rows)


def interrupt_stale_runs(con: duckdb.DuckDBPyConnection, *, current_run_id: str) -> int:
    """Close every other `running` record as interrupted (its process is gone); logs one line."""
    rows = con.execute(
        "UPDATE raw.crawl_runs SET finished_at = ?, status = ? WHERE status = 'running' AND run_id <> ? "
        "RETURNING run_id",
        [_now(), INTERRUPTED, current_run_id],
    ).fetchall()
    if rows:
        ids = ", ".join(sorted(r[0] for r in rows))
        log.warning("crawl runs left running by a dead process marked interrupted: %s", ids)
    return len(rows)


def crawl_state(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """What the next night inherits, for the run's stats: the queue left and the oldest page's age.

    Pages are game and post pages (raw.pages, gone ones aside) and collections (as last
    read or confirmed unchanged by the directory, raw.listing_crawls).
    """
    queue = con.execute("SELECT count(*) FROM raw.crawl_frontier").fetchall()[0][0]
    _, oldest = stale_pages(con, max_age_days=0)
    return {"bodoge/queue_left": int(queue), "bodoge/oldest_page_days": oldest}


_STATUS = "bodoge/pages/status/"


def crawl_figures(stats: dict[str, Any]) -> dict[str, Any]:
    """What a crawl read, from its stats: the figures operators see (summary, dashboard, floor).

    `fetched`: pages answered at all (robots.txt and retried attempts aside);
    `answered`: of those, 2xx or 304; `not_modified`: 304; `skipped`: pages not fetched
    because the site's signals showed them unchanged, plus bodies identical to last time.
    """
    statuses = {int(k[len(_STATUS):]): int(v) for k, v in stats.items()
                if k.startswith(_STATUS) and k[len(_STATUS):].isdigit()}
    skipped = sum(int(v) for k, v in stats.items() if k.startswith("bodoge/skipped/"))
    return {
        "mode": str(stats.get("bodoge/mode") or "full"),
        "fetched": sum(statuses.values()),
        "answered": sum(n for code, n in statuses.items() if 200 <= code < 300 or code == 304),
        "not_modified": statuses.get(304, 0),
        "skipped": skipped + int(stats.get("bodoge/pages/same_body") or 0),
        "skipped_unfetched": skipped,
        "queue_left": int(stats.get("bodoge/queue_left") or 0),
        "oldest_page_days": stats.get("bodoge/oldest_page_days"),
    }


_PAGE_AGES = ("SELECT fetched_at AS t FROM raw.pages WHERE http_status <> 404 "
              "UNION ALL SELECT fetched_at FROM raw.listing_crawls")


def stale_pages(con: duckdb.DuckDBPyConnection, *, max_age_days: float) -> tuple[int, float | None]:
    """How many pages are older than `max_age_days`, and the oldest page's age in days."""
    n, oldest = con.execute(
        f"SELECT count(*) FILTER (WHERE t < ?), min(t) FROM ({_PAGE_AGES})",
        [_now() - timedelta(days=max_age_days)]).fetchall()[0]
    return int(n), (round((_now() - oldest).total_seconds() / 86400, 3) if oldest is not None else None)


def page_age_range(con: duckdb.DuckDBPyConnection) -> tuple[datetime | None, datetime | None]:
    """(oldest, newest) time a page behind the warehouse was last confirmed (200 or 304).

    The same pages `stale_pages` counts: game and post pages (raw.pages, gone games left
    out) and listings (raw.listing_crawls). (None, None) before any crawl wrote them.
    """
    present = {r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'raw' AND database_name = current_database()"
    ).fetchall()}
    if not {"pages", "listing_crawls"} <= present:
        return None, None
    lo, hi = con.execute(f"SELECT min(t), max(t) FROM ({_PAGE_AGES})").fetchall()[0]
    return lo, hi


def _now() -> datetime:
    return datetime.now(timezone.utc)


def has_complete_crawl(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the warehouse holds a finished crawl of the whole site (what makes a night incremental).

    A crawl recorded before the `bodoge/complete` stat existed counts when it finished normally.
    """
    return bool(con.execute(
        "SELECT count(*) FROM raw.crawl_runs WHERE status = 'finished' "
        "AND coalesce(json_extract_string(stats, '$.\"bodoge/complete\"'), "
        "    CASE WHEN json_extract_string(stats, '$.finish_reason') = 'finished' THEN 'true' END) = 'true'"
    ).fetchall()[0][0])
