"""The crawl: the site's pages into the warehouse's raw tables (Scrapy in a subprocess)."""

import dagster as dg
from dagster_duckdb import DuckDBResource

from core.settings import SettingError
from pipelines.defs.resources import CrawlSettings, NightlyLock, SiteSettings, warehouse_file_free
from pipelines.described import described
from scrapers.crawl import run_crawl
from warehouse.crawl_floor import crawl_floor
from warehouse.crawl_runs import stale_pages
from warehouse.db import scalar
from warehouse.privacy.cut import cut_everywhere
from warehouse.raw import RAW_TABLES as ITEM_TABLES, raw_sql_files

# Every raw table (one SQL file each) the site crawl fills (the BGG sync owns bgg_*), and which item kind fills it.
RAW_TABLES = [path.stem for path in raw_sql_files() if not path.stem.startswith("bgg_")]
_KIND = {table.name.removeprefix("raw."): kind for kind, table in ITEM_TABLES.items()} | {"game_counters": "game"}


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            ["raw", name],
            **described("raw", name),
            deps=[dg.AssetKey(["warehouse", "schema"])],
            group_name="ingest",
            kinds={"scrapy", "duckdb"},
        )
        for name in RAW_TABLES
    ],
    check_specs=[
        dg.AssetCheckSpec(
            "pages_fresh",
            asset=["raw", "pages"],
            description="No page (game, post, collection) is older than --max-age-days (WARN): the rolling "
            "refresh keeps up with the site.",
        ),
        dg.AssetCheckSpec(
            "crawl_volume_floor",
            asset=["raw", "crawl_runs"],
            blocking=True,
            description="The crawl wrote items, and at least BODOGE_CRAWL_FLOOR (default 0.5) times the "
            "median of the last good nights: otherwise the night stops and publishes nothing.",
        )
    ],
    pool="warehouse_writer",
)
def raw_tables(
    context: dg.AssetExecutionContext, duckdb: DuckDBResource, site: SiteSettings, crawl: CrawlSettings,
    nightly_lock: NightlyLock,
):
    """Crawls the site (catalogue, game pages, posts, members' collections, cafes) into raw tables.

    Runs Scrapy in a subprocess (its reactor cannot restart in-process); obeys robots.txt,
    throttles itself and quarantines pages it cannot read. Then the privacy cut
    (`warehouse.privacy.cut`): members no longer public leave every copy the night keeps.
    """
    if not site.base_url:
        raise dg.Failure("no site to crawl: set BODOGE_BASE_URL (or run `bodoge run --base-url URL`)")
    try:
        options = crawl.settings()
        paths = site.settings().replace(warehouse=duckdb.database).paths  # both resources, never os.environ
    except SettingError as exc:
        raise dg.Failure(str(exc)) from None
    context.log.info(f"crawling {site.base_url} into {paths.warehouse}")
    with warehouse_file_free(duckdb):  # the crawler's process writes the file
        result = run_crawl(base_url=site.base_url, warehouse=paths.warehouse, run_id=None, full=options.full,
                           max_pages=options.max_pages, max_age_days=options.max_age_days,
                           data_dir=paths.data_dir, night_id=context.run.run_id)
    context.log.info(f"crawl {result.run_id}: {result.pages} pages, written {result.written}")
    with duckdb.get_connection() as con:
        verdict = crawl_floor(con, run_id=result.run_id, floor=site.crawl_floor_fraction())
        # Members no longer public leave every kept export bundle, the night readers see
        # and the kept backups now, even if the night fails later on.
        cut = cut_everywhere(site.paths.data_dir, public_from=con, backups=site.backups,
                             keep=site.bundles_to_keep(), warehouse=paths.warehouse)
        if cut.backups:
            context.log.info(f"backups: members no longer public cut from {len(cut.backups)}")
        if cut.bundles or cut.deleted_bundles:
            context.log.info(f"export bundles: {len(cut.bundles)} scrubbed, {len(cut.deleted_bundles)} deleted by age")
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
        context.log.info(f"crawl volume: {verdict.message}")
        yield dg.AssetCheckResult(
            check_name="crawl_volume_floor",
            asset_key=["raw", "crawl_runs"],
            passed=verdict.passed,
            severity=dg.AssetCheckSeverity.ERROR,
            description=verdict.message,
            metadata={"pages": verdict.written, "baseline": verdict.baseline or 0.0, "floor": verdict.floor},
        )
        stale, oldest = stale_pages(con, max_age_days=options.max_age_days)
        yield dg.AssetCheckResult(
            check_name="pages_fresh",
            asset_key=["raw", "pages"],
            passed=stale == 0,
            severity=dg.AssetCheckSeverity.WARN,
            description=f"{stale:,} pages older than {options.max_age_days:g} days"
            + (f"; the oldest is {oldest:.1f} days old" if oldest is not None else ""),
            metadata={"stale_pages": stale, "oldest_page_days": oldest or 0.0, "max_age_days": options.max_age_days,
                      "queue_left": int(result.stats.get("bodoge/queue_left") or 0)},
        )
