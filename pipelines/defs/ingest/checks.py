"""Checks on the crawl: it finished, and it did not quarantine an unusual share of pages."""

from __future__ import annotations

import json

import dagster as dg
from dagster_duckdb import DuckDBResource

from warehouse.crawl_runs import crawl_figures
from warehouse.db import scalar


@dg.asset_check(asset=dg.AssetKey(["raw", "crawl_runs"]), blocking=True, description="The latest crawl finished.")
def latest_crawl_finished(duckdb: DuckDBResource) -> dg.AssetCheckResult:
    with duckdb.get_connection() as con:
        status = scalar(con, "SELECT status FROM raw.crawl_runs ORDER BY started_at DESC LIMIT 1")
    return dg.AssetCheckResult(passed=status == "finished", metadata={"status": str(status)})


@dg.asset_check(
    asset=dg.AssetKey(["raw", "quarantine"]),
    description="Fewer than 5% of the pages this run accounted for were quarantined (WARN above).",
)
def quarantine_share(duckdb: DuckDBResource) -> dg.AssetCheckResult:
    """Quarantined pages over pages accounted for: fetched, plus skipped as unchanged.

    Why skipped pages count: an incremental night fetches a few hundred pages yet confirms
    the whole site, and retries the few pages broken on purpose every night; against the
    fetched pages alone those few would look like a broken night.
    """
    with duckdb.get_connection() as con:
        run_id, stats = con.execute("SELECT run_id, stats FROM raw.crawl_runs ORDER BY started_at DESC LIMIT 1"
                                    ).fetchall()[0]
        quarantined = int(scalar(con, "SELECT count(*) FROM raw.quarantine WHERE run_id = ?", [run_id]) or 0)
    figures = crawl_figures(json.loads(stats or "{}"))
    pages = figures["fetched"] + figures["skipped_unfetched"]
    share = quarantined / pages if pages else 0.0
    return dg.AssetCheckResult(
        passed=share < 0.05,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={"quarantined": quarantined, "pages": int(pages), "share": round(share, 4)},
    )
