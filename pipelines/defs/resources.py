"""Resources: the one way settings reach assets, checks and sensors (never `os.environ`).

Each field comes from a `BODOGE_…` variable through `dg.EnvVar`, so the Dagster UI shows
where it came from and a run reads it when it starts. `bodoge run` and `bodoge demo` set
the variables for their worker (`bodoge/jobs.py`); a variable left unset (say, `dg dev`
on its own) falls back to the CLI's defaults (`core.config`: ./data, no base URL, no
push). Loading the definitions only reads the environment, it never writes it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg
from dagster_duckdb import DuckDBResource

from core.config import Paths, resolve_paths


class SiteSettings(dg.ConfigurableResource):
    """Where to crawl, where the data directory is, where to push the export, what to keep."""

    base_url: str = ""
    data_dir: str = "data"
    push_url: str = ""
    crawl_floor: str = ""  # BODOGE_CRAWL_FLOOR, as text: parsed (and refused) by crawl_floor_fraction()
    keep_exports: str = ""  # BODOGE_KEEP_EXPORTS, as text: parsed (and refused) by bundles_to_keep()
    backup_dir: str = ""  # BODOGE_BACKUP_DIR; empty: DATA_DIR/backups
    push_retry_seconds: str = ""  # BODOGE_PUSH_RETRY_SECONDS, as text: parsed by push_retry()

    def crawl_floor_fraction(self) -> float:
        """The crawl volume floor (`warehouse.crawl_floor`), default 0.5."""
        from warehouse.crawl_floor import floor_from_env

        return floor_from_env(self.crawl_floor)

    def bundles_to_keep(self) -> int:
        """How many export bundles to keep (`warehouse.export_retention`), default 7."""
        from warehouse.export_retention import KEEP_ENV, keep_exports

        return keep_exports(environ={KEEP_ENV: self.keep_exports})

    def push_retry(self) -> float:
        """How long the night retries delivering its bundle (`warehouse.delivery`), default 300 s."""
        from warehouse.delivery import retry_seconds

        return retry_seconds(self.push_retry_seconds)

    @property
    def backups(self) -> Path:
        """Where the night's backups go (`warehouse.backup.backup_dir`)."""
        from warehouse.backup import backup_dir

        return backup_dir(self.paths.data_dir, self.backup_dir or None)

    @property
    def paths(self) -> Paths:
        """The data directory's layout (exports, models, the champion): `core.config.Paths`."""
        return resolve_paths(data_dir=self.data_dir)


def _env_or(name: str, default: str) -> dg.EnvVar | str:
    """`dg.EnvVar(name)` when the variable is set, else the default the CLI would use."""
    return dg.EnvVar(name) if os.environ.get(name) else default


class NightlyLock(dg.ConfigurableResource):
    """Holds DATA_DIR/.nightly.lock for the whole run and recovers dead runs first (run_guard).

    Required by every asset that writes, so every run that materializes one takes the lock,
    whether `bodoge run`, the schedule under `bodoge serve`, the UI or the automation
    sensor launched it (the in-process executor starts the resource once per run).
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
    return dg.Definitions(
        resources={
            "duckdb": DuckDBResource(database=_env_or("BODOGE_WAREHOUSE", str(paths.warehouse))),
            "site": SiteSettings(
                base_url=_env_or("BODOGE_BASE_URL", ""),
                data_dir=_env_or("BODOGE_DATA_DIR", str(paths.data_dir)),
                push_url=_env_or("BODOGE_PUSH_URL", ""),
                crawl_floor=_env_or("BODOGE_CRAWL_FLOOR", ""),
                keep_exports=_env_or("BODOGE_KEEP_EXPORTS", ""),
                backup_dir=_env_or("BODOGE_BACKUP_DIR", ""),
                push_retry_seconds=_env_or("BODOGE_PUSH_RETRY_SECONDS", ""),
            ),
            "crawl": CrawlSettings(
                full=_env_or("BODOGE_CRAWL_FULL", ""),
                max_pages=_env_or("BODOGE_CRAWL_MAX_PAGES", ""),
                max_age_days=_env_or("BODOGE_CRAWL_MAX_AGE_DAYS", ""),
            ),
            "nightly_lock": NightlyLock(
                data_dir=_env_or("BODOGE_DATA_DIR", str(paths.data_dir)),
                warehouse=_env_or("BODOGE_WAREHOUSE", str(paths.warehouse)),
            ),
            "alerts": AlertSettings(alert_url=_env_or("BODOGE_ALERT_URL", "")),
        },
        # Every run in one process, whoever starts it (the automation sensor's runs too): the
        # nightly lock is taken once per run, and DuckDB has one writer anyway.
        executor=dg.in_process_executor,
    )
