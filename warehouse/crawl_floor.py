"""Did tonight's crawl bring in enough to build on? A floor against the last good nights.

Why: a site that answers with error pages, a login wall for everyone or a robots.txt
that suddenly disallows everything still "finishes" a crawl; building marts, models and
an export from what little came in would publish a broken night as if it were fine. So
the night stops (a blocking check) when the crawl wrote nothing, or less than `floor`
times the median of the last few finished crawls of the same site.

The measure is items written (game pages, catalogue rows, posts, members, collection
entries, cafe rows), not pages: quarantined pages and listing outcomes do not count.
"""

from __future__ import annotations

import json
import os
import statistics
from dataclasses import dataclass

import duckdb

DEFAULT_FLOOR = 0.5
BASELINE_RUNS = 5
_NOT_DATA = {"quarantine", "listing_crawl"}


class FloorSettingError(ValueError):
    """BODOGE_CRAWL_FLOOR is not a number between 0 and 1."""


@dataclass(frozen=True, slots=True)
class FloorVerdict:
    """The crawl's written items against the floor; `passed` is False for an empty or thin crawl."""

    passed: bool
    written: int
    baseline: float | None
    floor: float
    message: str


def floor_from_env(text: str | None = None) -> float:
    """The floor fraction from BODOGE_CRAWL_FLOOR (default 0.5); 0 switches the ratio off.

    `text` is the setting as a Dagster resource holds it; None reads the environment.
    """
    text = (os.environ.get("BODOGE_CRAWL_FLOOR", "") if text is None else text).strip()
    if not text:
        return DEFAULT_FLOOR
    try:
        value = float(text)
    except ValueError:
        raise FloorSettingError(f"BODOGE_CRAWL_FLOOR must be a number between 0 and 1, not {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise FloorSettingError(f"BODOGE_CRAWL_FLOOR must be between 0 and 1, not {value}")
    return value


def written_items(stats_json: str | None) -> int:
    """Data items a crawl wrote, from its stats (`bodoge/written` by item kind)."""
    try:
        written = json.loads(stats_json or "{}").get("bodoge/written") or {}
    except ValueError:
        return 0
    return sum(int(n) for kind, n in written.items() if kind not in _NOT_DATA)


def crawl_floor(con: duckdb.DuckDBPyConnection, *, run_id: str, floor: float) -> FloorVerdict:
    """Judge crawl `run_id` against the median of the last finished crawls of the same site."""
    row = con.execute("SELECT base_url, stats FROM raw.crawl_runs WHERE run_id = ?", [run_id]).fetchall()
    if not row:
        return FloorVerdict(False, 0, None, floor, f"crawl {run_id} left no record in raw.crawl_runs")
    base_url, stats = row[0]
    written = written_items(stats)
    earlier = con.execute(
        "SELECT stats FROM raw.crawl_runs WHERE base_url = ? AND run_id <> ? AND status = 'finished' "
        "AND started_at < (SELECT started_at FROM raw.crawl_runs WHERE run_id = ?) "
        "ORDER BY started_at DESC LIMIT ?",
        [base_url, run_id, run_id, BASELINE_RUNS],
    ).fetchall()
    counts = [n for n in (written_items(s) for (s,) in earlier) if n > 0]
    baseline = float(statistics.median(counts)) if counts else None
    if written == 0:
        return FloorVerdict(False, 0, baseline, floor, "the crawl wrote no item at all")
    if baseline is not None and written < floor * baseline:
        return FloorVerdict(
            False, written, baseline, floor,
            f"the crawl wrote {written:,} items, under {floor:.0%} of the last good nights' median {baseline:,.0f}",
        )
    against = f" (median of the last good nights: {baseline:,.0f})" if baseline is not None else " (first crawl)"
    return FloorVerdict(True, written, baseline, floor, f"the crawl wrote {written:,} items{against}")
