"""Resources: the one way settings reach assets, checks and sensors (never `os.environ`).

Each field comes from a `BODOGE_…` variable through `dg.EnvVar`, so the Dagster UI shows
where it came from and a run reads it when it starts. `bodoge run` and `bodoge demo` set
the variables for their worker (`bodoge/jobs.py`); a variable left unset (say, `dg dev`
on its own) falls back to the CLI's defaults (`core.config`: ./data, no base URL, no
push). Loading the definitions only reads the environment, it never writes it.
"""

from __future__ import annotations

import os

import dagster as dg
from dagster_duckdb import DuckDBResource

from core.config import Paths, resolve_paths


class SiteSettings(dg.ConfigurableResource):
    """Where to crawl, where the data directory is, where to push the export."""

    base_url: str = ""
    data_dir: str = "data"
    push_url: str = ""

    @property
    def paths(self) -> Paths:
        """The data directory's layout (exports, models, the champion): `core.config.Paths`."""
        return resolve_paths(data_dir=self.data_dir)


def _env_or(name: str, default: str) -> dg.EnvVar | str:
    """`dg.EnvVar(name)` when the variable is set, else the default the CLI would use."""
    return dg.EnvVar(name) if os.environ.get(name) else default


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
            ),
        }
    )
