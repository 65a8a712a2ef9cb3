"""Resources from the environment: the warehouse (one DuckDB writer) and the site settings.

`bodoge run` and `bodoge demo` set BODOGE_WAREHOUSE, BODOGE_DATA_DIR and BODOGE_BASE_URL;
for `dg dev` on its own they default like the CLI does (./data, no base URL).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg
from dagster_duckdb import DuckDBResource

from bodoge.config import resolve_paths


class SiteSettings(dg.ConfigurableResource):
    """Where to crawl and where the data directory is."""

    base_url: str = ""
    data_dir: str = "data"


class NightlyLock(dg.ConfigurableResource):
    """Holds DATA_DIR/.nightly.lock for the whole run and recovers dead runs first (run_guard).

    Required by the nightly job's hooks, so every run of it takes the lock, whether
    `bodoge run`, the schedule under `bodoge serve` or the UI launched it.
    """

    data_dir: str = "data"
    warehouse: str = ""

    @contextmanager
    def yield_for_execution(self, context: dg.InitResourceContext) -> Iterator["NightlyLock"]:
        from pipelines.run_guard import guarded_run

        assert context.instance is not None
        with guarded_run(context.instance, context.run_id, data_dir=Path(self.data_dir), warehouse=self.warehouse):
            yield self


class AlertSettings(dg.ConfigurableResource):
    """Where the daemon's sensors POST alerts (BODOGE_ALERT_URL; empty: no alerts)."""

    alert_url: str = ""


@dg.definitions
def resources() -> dg.Definitions:
    paths = resolve_paths()
    os.environ.setdefault("BODOGE_WAREHOUSE", str(paths.warehouse))
    os.environ.setdefault("BODOGE_DATA_DIR", str(paths.data_dir))
    os.environ.setdefault("BODOGE_BASE_URL", "")
    os.environ.setdefault("BODOGE_ALERT_URL", "")
    return dg.Definitions(
        resources={
            "duckdb": DuckDBResource(database=dg.EnvVar("BODOGE_WAREHOUSE")),
            "site": SiteSettings(base_url=dg.EnvVar("BODOGE_BASE_URL"), data_dir=dg.EnvVar("BODOGE_DATA_DIR")),
            "nightly_lock": NightlyLock(data_dir=dg.EnvVar("BODOGE_DATA_DIR"), warehouse=dg.EnvVar("BODOGE_WAREHOUSE")),
            "alerts": AlertSettings(alert_url=dg.EnvVar("BODOGE_ALERT_URL")),
        }
    )
