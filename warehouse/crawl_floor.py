"""Did tonight's crawl bring in enough to build on? A floor against the last good nights.

Why: a site that answers with error pages, a login wall for everyone or a robots.txt
that suddenly disallows everything still "finishes" a crawl; building marts, models and
an export from what little came in would publish a broken night as if it were fine. So
the night stops (a blocking check) when the crawl wrote nothing, or less than `floor`
times the median of the last few finished crawls of the same site.

The measure is the pages the crawl *accounted for*: pages answered 2xx or 304 (not
modified), plus collections and game pages it skipped because the site's own signals
showed them unchanged (the directory's count and last update, an unchanged catalogue
row). Items written would not do: an incremental night on a quiet site writes almost
nothing, yet it confirmed the whole site. Error answers and quarantined pages do not
count. The baseline is per mode (full or incremental): the median of the last finished
crawls of the same site in the same mode, since a full crawl reads ten times the pages.
Crawls recorded before the measure existed count their written items, as they did.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass

import duckdb

from core.settings import SettingError, read
from warehouse.crawl_runs import crawl_figures

BASELINE_RUNS = 5
_NOT_DATA = {"quarantine", "listing_crawl", "frontier", "page_visit"}


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
    """The floor fraction, BODOGE_CRAWL_FLOOR (`core.settings`); 0 switches the ratio off.

    `text` is the setting as a Dagster resource holds it; None reads the environment.
    """
    try:
        return read("crawl_floor", text)
    except SettingError as exc:
        raise FloorSettingError(str(exc)) from None


def written_items(stats_json: str | None) -> int:
    """Data items a crawl wrote, from its stats (`bodoge/written` by item kind)."""
    try:
        written = json.loads(stats_json or "{}").get("bodoge/written") or {}
    except ValueError:
        return 0
    return sum(int(n) for kind, n in written.items() if kind not in _NOT_DATA)


def crawl_mode(stats_json: str | None) -> str:
    """`full` or `incremental` (crawls from before incremental nights were full)."""
    try:
        return str(json.loads(stats_json or "{}").get("bodoge/mode") or "full")
    except ValueError:
        return "full"


def accounted_pages(stats_json: str | None) -> int:
    """Pages answered 2xx or 304 plus pages skipped as unchanged (see the module docstring)."""
    try:
        stats = json.loads(stats_json or "{}")
    except ValueError:
        return 0
    if "bodoge/mode" not in stats:  # recorded before incremental nights: items written
        return written_items(stats_json)
    figures = crawl_figures(stats)
    return figures["answered"] + figures["skipped_unfetched"]


def crawl_floor(con: duckdb.DuckDBPyConnection, *, run_id: str, floor: float) -> FloorVerdict:
    """Judge crawl `run_id` against the median of the last finished crawls of the same site."""
    row = con.execute("SELECT base_url, stats FROM raw.crawl_runs WHERE run_id = ?", [run_id]).fetchall()
    if not row:
        return FloorVerdict(False, 0, None, floor, f"crawl {run_id} left no record in raw.crawl_runs")
    base_url, stats = row[0]
    mode = crawl_mode(stats)
    written = accounted_pages(stats)
    earlier = con.execute(
        "SELECT stats FROM raw.crawl_runs WHERE base_url = ? AND run_id <> ? AND status = 'finished' "
        "AND started_at < (SELECT started_at FROM raw.crawl_runs WHERE run_id = ?) "
        "ORDER BY started_at DESC",
        [base_url, run_id, run_id],
    ).fetchall()
    counts = [n for n in (accounted_pages(s) for (s,) in earlier if crawl_mode(s) == mode) if n > 0][:BASELINE_RUNS]
    baseline = float(statistics.median(counts)) if counts else None
    if written == 0 or not written_items(stats):
        return FloorVerdict(False, 0, baseline, floor, "the crawl wrote no item at all")
    if baseline is not None and written < floor * baseline:
        return FloorVerdict(
            False, written, baseline, floor,
            f"the {mode} crawl accounted for {written:,} pages, under {floor:.0%} of the last good {mode} "
            f"nights' median {baseline:,.0f}",
        )
    against = f" (median of the last good {mode} nights: {baseline:,.0f})" if baseline is not None \
        else f" (first {mode} crawl)"
    return FloorVerdict(True, written, baseline, floor, f"the {mode} crawl accounted for {written:,} pages{against}")
