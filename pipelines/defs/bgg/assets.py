"""BGG's raw tables, synced each night after the site's crawl (scrapers.bgg_sync, Scrapy in a subprocess).

Why the stage never fails: BGG is a second source. Without a token or a links file it
is skipped; when BGG refuses, throttles past the retries or is down, the stage says so
in its log and metadata and succeeds, so the site's night goes on with the BGG rows it
already had, and the next night asks again.
"""

import sys

import dagster as dg
from dagster_duckdb import DuckDBResource

from core.config import resolve_paths
from core.settings import SettingError
from pipelines.defs.bgg.resources import BggSettings
from pipelines.defs.resources import NightlyLock, warehouse_file_free
from pipelines.described import described
from scrapers.bgg_sync import NightOutcome, night_sync
from warehouse.db import scalar
from warehouse.raw import ensure_raw_schema

BGG_RAW = ["bgg_member_links", "bgg_collection_fetches", "bgg_collection_items", "bgg_things", "bgg_game_matches"]


@dg.multi_asset(
    specs=[
        dg.AssetSpec(["raw", name], **described("raw", name), deps=[dg.AssetKey(["raw", "games"])],
                     group_name="bgg", kinds={"scrapy", "duckdb"})
        for name in BGG_RAW
    ],
    pool="warehouse_writer",
)
def bgg_raw_tables(context: dg.AssetExecutionContext, duckdb: DuckDBResource, bgg: BggSettings,
                   nightly_lock: NightlyLock):
    """Syncs linked members' BoardGameGeek collections and the things they hold, politely and
    incrementally, and matches BGG things to site games. Powered by BGG."""
    warehouse = resolve_paths(warehouse=duckdb.database).warehouse
    try:
        settings = bgg.settings()
    except SettingError as exc:  # `dg dev` with a malformed variable: reported like any BGG failure
        outcome = NightOutcome(status="failed", detail=str(exc))
    else:
        with warehouse_file_free(duckdb):  # the sync opens the file itself, and its child process does
            outcome = night_sync(warehouse=warehouse, links_file=settings.bgg_links, api_url=settings.bgg_api_url,
                                 overrides_file=settings.bgg_overrides, delay=settings.bgg_delay,
                                 max_age_days=settings.bgg_max_age_days)
    line = f"bgg: {outcome.status}: {outcome.detail}"
    (context.log.warning if outcome.status == "failed" else context.log.info)(line)
    print(f"nightly: {line}", file=sys.stderr, flush=True)
    with duckdb.get_connection() as con:
        ensure_raw_schema(con)  # a skipped stage on an older warehouse still reports its (empty) tables
        for name in BGG_RAW:
            yield dg.MaterializeResult(asset_key=["raw", name], metadata={
                "dagster/row_count": int(scalar(con, f"SELECT count(*) FROM raw.{name}") or 0),
                "bgg/status": outcome.status, "bgg/detail": outcome.detail})
