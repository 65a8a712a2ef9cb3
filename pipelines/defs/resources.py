"""Resources from the environment: the warehouse (one DuckDB writer) and the site settings.

`bodoge run` and `bodoge demo` set BODOGE_WAREHOUSE, BODOGE_DATA_DIR and BODOGE_BASE_URL;
for `dg dev` on its own they default like the CLI does (./data, no base URL).
"""

from __future__ import annotations

import os

import dagster as dg
from dagster_duckdb import DuckDBResource

from bodoge.config import resolve_paths


class SiteSettings(dg.ConfigurableResource):
    """Where to crawl and where the data directory is."""

    base_url: str = ""
    data_dir: str = "data"


class CrawlSettings(dg.ConfigurableResource):
    """The night's crawl options as text (`bodoge run --full/--max-pages/--max-age-days`).

    Checked by `scrapers.options.CrawlOptions.from_text` in the ingest asset.
    """

    full: str = ""
    max_pages: str = ""
    max_age_days: str = ""


@dg.definitions
def resources() -> dg.Definitions:
    paths = resolve_paths()
    os.environ.setdefault("BODOGE_WAREHOUSE", str(paths.warehouse))
    os.environ.setdefault("BODOGE_DATA_DIR", str(paths.data_dir))
    os.environ.setdefault("BODOGE_BASE_URL", "")
    for name in ("BODOGE_CRAWL_FULL", "BODOGE_CRAWL_MAX_PAGES", "BODOGE_CRAWL_MAX_AGE_DAYS"):
        os.environ.setdefault(name, "")
    return dg.Definitions(
        resources={
            "duckdb": DuckDBResource(database=dg.EnvVar("BODOGE_WAREHOUSE")),
            "site": SiteSettings(base_url=dg.EnvVar("BODOGE_BASE_URL"), data_dir=dg.EnvVar("BODOGE_DATA_DIR")),
            "crawl": CrawlSettings(full=dg.EnvVar("BODOGE_CRAWL_FULL"), max_pages=dg.EnvVar("BODOGE_CRAWL_MAX_PAGES"),
                                   max_age_days=dg.EnvVar("BODOGE_CRAWL_MAX_AGE_DAYS")),
        }
    )
