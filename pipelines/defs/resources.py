"""Resources: the one way settings reach assets, checks and sensors (never `os.environ`).

Each field is one `core.settings.Settings` field as text, from its `BODOGE_…` variable
through `dg.EnvVar`, so the Dagster UI shows where it came from and a run reads it when it
starts; `settings()` parses that text with the same checks the CLI uses. `bodoge run` and
`bodoge serve` write the variables for their children (`Settings.to_env`); a variable
left unset (say, `dg dev` on its own) falls back to the settings' own defaults. Loading
the definitions only reads the environment, it never writes it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

import dagster as dg
import duckdb as duckdb_module
from dagster_duckdb import DuckDBResource
from pydantic import PrivateAttr

from core.settings import Paths, Settings, spec


class FromSettings(dg.ConfigurableResource):
    """A resource whose fields are `Settings` fields as text (each domain's resources too:
    pipelines/defs/bgg/resources.py)."""

    def settings(self) -> Settings:
        """The fields parsed by `core.settings` ("" = the default), never the environment:
        what the resource was given is what it uses; a bad value is a one-line SettingError."""
        return Settings.from_text({name: getattr(self, name) for name in type(self).model_fields})

    @classmethod
    def from_env(cls) -> Self:
        """The resource with each of its fields from its variable (`settings_from_env`)."""
        return cls(**settings_from_env(*cls.model_fields))


class SiteSettings(FromSettings):
    """Where to crawl, where the data directory is, where to push the export, what to keep."""

    base_url: str = ""
    data_dir: str = ""
    push_url: str = ""
    crawl_floor: str = ""
    keep_exports: str = ""
    backup_dir: str = ""
    push_retry_seconds: str = ""
    discovery_engine: str = ""

    def crawl_floor_fraction(self) -> float:
        """The crawl volume floor (`warehouse.crawl_floor`)."""
        return self.settings().crawl_floor

    def bundles_to_keep(self) -> int:
        """How many export bundles to keep (`warehouse.release.retention`)."""
        return self.settings().keep_exports

    def engine(self) -> str:
        """How discovery computes its lists (`models.discovery.model.ENGINES`)."""
        return self.settings().discovery_engine

    def push_retry(self) -> float:
        """How long the night retries delivering its bundle (`warehouse.release.delivery`)."""
        return self.settings().push_retry_seconds

    @property
    def backups(self) -> Path:
        """Where the night's backups go."""
        return self.settings().backups

    @property
    def paths(self) -> Paths:
        """The data directory's layout (exports, models, the champion): `core.settings.Paths`."""
        return self.settings().paths


def settings_from_env(*names: str) -> dict[str, dg.EnvVar | str]:
    """Each named setting as `dg.EnvVar` when its variable is set, else its default as text
    (the data directory and warehouse as `core.config.resolve_paths` finds them)."""
    defaults = Settings.load(only=("data_dir", "warehouse")).to_env()
    return {name: dg.EnvVar(spec(name).env) if os.environ.get(spec(name).env) else defaults[spec(name).env]
            for name in names}


class NightlyLock(FromSettings):
    """Holds DATA_DIR/.nightly.lock for the whole run and recovers dead runs first (run_guard).

    Required by every asset that writes, so every run that materializes one takes the lock,
    whether `bodoge run`, the schedule under `bodoge serve`, the UI or the automation
    sensor launched it (the in-process executor starts the resource once per run).
    """

    data_dir: str = ""
    warehouse: str = ""

    @contextmanager
    def yield_for_execution(self, context: dg.InitResourceContext) -> Iterator["NightlyLock"]:
        from pipelines.run_guard import guarded_run

        assert context.instance is not None and context.run is not None
        paths = self.settings().paths
        with guarded_run(context.instance, context.run.run_id, data_dir=paths.data_dir, warehouse=str(paths.warehouse)):
            yield self


class RunWarehouse(DuckDBResource):
    """Dagster's DuckDBResource, but the warehouse file is opened once per run, not once per step.

    Why: opening the file reads its whole catalogue (every schema, table, view and comment)
    and closing it checkpoints the step's writes: ~30 ms of CPU and an fsync for each of
    the night's ~70 `get_connection()` calls. Within a run (in-process executor: one
    process, one step at a time) the first call opens the file and every call hands out a
    cursor of that one connection (its own transactions and temporary objects, as a
    connection of its own had; closed when the step's `with` ends); the run's end closes
    it. Outside a run (a sensor, a test calling it directly) it is the plain resource.

    Code that opens the file itself, in this process with other settings or in a child
    process (the crawl, the BGG sync, the migrations), runs under `warehouse_file_free`,
    which closes the shared connection first; the next `get_connection()` opens it again.
    The connection has DuckDBResource's own settings, so `pipelines.run_log`'s writer (a
    plain DuckDBResource) still opens the same file in the same process meanwhile.
    """

    _shared: Any = PrivateAttr(default=None)  # DuckDBResource.get_connection(), entered and kept
    _in_run: bool = PrivateAttr(default=False)

    @contextmanager
    def yield_for_execution(self, context: dg.InitResourceContext) -> Iterator["RunWarehouse"]:
        self._in_run = True
        try:
            yield self
        finally:
            self._in_run = False
            self.close_shared()

    @contextmanager
    def get_connection(self) -> Iterator[duckdb_module.DuckDBPyConnection]:
        if not self._in_run:
            with super().get_connection() as con:
                yield con
            return
        if self._shared is None:
            opening = super().get_connection()  # its settings and its retries while another process holds the file
            self._shared = (opening, opening.__enter__())
        cursor = self._shared[1].cursor()
        try:
            yield cursor
        finally:
            cursor.close()

    def close_shared(self) -> None:
        """Close the run's connection (checkpointing the file), if it is open."""
        shared, self._shared = self._shared, None
        if shared is not None:
            shared[0].__exit__(None, None, None)  # DuckDBResource closes its connection


@contextmanager
def warehouse_file_free(warehouse: DuckDBResource) -> Iterator[None]:
    """No connection of this process holds the warehouse file while the block runs.

    For code that opens the file itself: a child process (the crawl, the BGG sync), or this
    process with other settings (DuckDB refuses a second configuration of an open file).
    A plain DuckDBResource holds nothing between its `with` blocks; a RunWarehouse closes
    the run's shared connection (it opens again at the next `get_connection()`).
    """
    if isinstance(warehouse, RunWarehouse):
        warehouse.close_shared()
    yield


class AlertSettings(FromSettings):
    """Where the daemon's sensors POST alerts (BODOGE_ALERT_URL; empty: no alerts)."""

    alert_url: str = ""


class CrawlSettings(FromSettings):
    """The night's crawl options as text (`bodoge run --full/--max-pages/--max-age-days`),
    checked by `settings()` in the ingest asset."""

    full: str = ""
    max_pages: str = ""
    max_age_days: str = ""


@dg.definitions
def resources() -> dg.Definitions:
    return dg.Definitions(
        resources={
            "duckdb": RunWarehouse(database=settings_from_env("warehouse")["warehouse"]),
            "site": SiteSettings.from_env(),
            "crawl": CrawlSettings.from_env(),
            "nightly_lock": NightlyLock.from_env(),
            "alerts": AlertSettings.from_env(),
        },
        # Every run in one process, whoever starts it (the automation sensor's runs too): the
        # nightly lock is taken once per run, and DuckDB has one writer anyway.
        executor=dg.in_process_executor,
    )
