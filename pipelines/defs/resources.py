"""Resources from the environment: the warehouse (one DuckDB writer) and the site settings.

`bodoge run` and `bodoge demo` set BODOGE_WAREHOUSE, BODOGE_DATA_DIR and BODOGE_BASE_URL;
for `dg dev` on its own they default like the CLI does (./data, no base URL).
"""

from __future__ import annotations

import os

import dagster as dg
from dagster_duckdb import DuckDBResource

from core.config import resolve_paths


class SiteSettings(dg.ConfigurableResource):
    """Where to crawl and where the data directory is."""

    base_url: str = ""
    data_dir: str = "data"


@dg.definitions
def resources() -> dg.Definitions:
    paths = resolve_paths()
    os.environ.setdefault("BODOGE_WAREHOUSE", str(paths.warehouse))
    os.environ.setdefault("BODOGE_DATA_DIR", str(paths.data_dir))
    os.environ.setdefault("BODOGE_BASE_URL", "")
    return dg.Definitions(
        resources={
            "duckdb": DuckDBResource(database=dg.EnvVar("BODOGE_WAREHOUSE")),
            "site": SiteSettings(base_url=dg.EnvVar("BODOGE_BASE_URL"), data_dir=dg.EnvVar("BODOGE_DATA_DIR")),
        }
    )
