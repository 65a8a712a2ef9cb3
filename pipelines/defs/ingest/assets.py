"""The crawl: the site's pages into the warehouse's raw tables (Scrapy in a subprocess)."""


import dagster as dg
from dagster_duckdb import DuckDBResource

from bodoge.config import resolve_paths
from pipelines.defs.resources import SiteSettings
from scrapers.crawl import run_crawl
from warehouse.db import scalar

RAW_TABLES = [
    "games", "game_summaries", "game_counters", "posts", "members",
    "collection_entries", "cafe_games", "listing_crawls", "quarantine", "crawl_runs",
]


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            ["raw", name],
            description=f"raw.{name}: crawled rows, one per natural key, with run_id and fetched_at.",
            group_name="ingest",
            kinds={"scrapy", "duckdb"},
        )
        for name in RAW_TABLES
    ],
    pool="warehouse_writer",
)
def raw_tables(context: dg.AssetExecutionContext, duckdb: DuckDBResource, site: SiteSettings):
    """Crawls the site (catalogue, game pages, posts, members' collections, cafes) into raw tables.

    Runs Scrapy in a subprocess (its reactor cannot restart in-process); obeys robots.txt,
    throttles itself and quarantines pages it cannot read.
    """
    if not site.base_url:
        raise dg.Failure("no site to crawl: set BODOGE_BASE_URL (or run `bodoge run --base-url URL`)")
    paths = resolve_paths(data_dir=site.data_dir, warehouse=duckdb.database)
    context.log.info(f"crawling {site.base_url} into {paths.warehouse}")
    result = run_crawl(base_url=site.base_url, warehouse=paths.warehouse, run_id=None)
    context.log.info(f"crawl {result.run_id}: {result.pages} pages, written {result.written}")
    with duckdb.get_connection() as con:
        for name in RAW_TABLES:
            rows = int(scalar(con, f"SELECT count(*) FROM raw.{name}") or 0)
            yield dg.MaterializeResult(
                asset_key=["raw", name],
                metadata={
                    "dagster/row_count": rows,
                    "crawl_run_id": result.run_id,
                    "pages": result.pages,
                    "written_this_run": int(result.written.get(_KIND.get(name, ""), 0)),
                },
            )


_KIND = {
    "games": "game", "game_summaries": "game_summary", "game_counters": "game", "posts": "post",
    "members": "member", "collection_entries": "collection_entry", "cafe_games": "cafe_game",
    "listing_crawls": "listing_crawl", "quarantine": "quarantine",
}
