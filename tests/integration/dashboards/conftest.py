"""Fixtures for the dashboard tests: one seeded warehouse for the session, and variants.

Why one full-size warehouse for everything: building it takes a few seconds, and the
dashboard's promises (every page renders, each in under 2 s) are only worth checking at
production size — about 2,000 games, 5,000 members and 125k collection rows.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from tests.support.built_once import built_once
from tests.support.dashboard_warehouse import DashboardWarehouse, build_test_warehouse, empty_warehouse  # noqa: F401 - a fixture



@pytest.fixture(scope="session")
def dashboard_warehouse(tmp_path_factory: pytest.TempPathFactory) -> DashboardWarehouse:
    """The seeded, production-sized test warehouse (read-only for every test; `copy_with` makes
    a changed copy), built once per run for both workers (`tests/support/built_once.py`)."""
    return built_once(tmp_path_factory, "dashboard-warehouse", lambda folder: build_test_warehouse(folder / "warehouse.duckdb"))


@pytest.fixture(scope="session")
def marts_only_warehouse(dashboard_warehouse: DashboardWarehouse, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test warehouse without the tables later parts of the project write (models, runs)."""
    path = tmp_path_factory.mktemp("dashboard-marts-only") / "warehouse.duckdb"
    path.write_bytes(dashboard_warehouse.path.read_bytes())
    with duckdb.connect(str(path)) as con:
        for table in ("marts.model_runs", "marts.recommendations", "marts.similar_games", "marts.pipeline_runs"):
            con.execute(f"DROP TABLE {table}")
    return path


@pytest.fixture
def use_warehouse(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], None]:
    """Point the dashboard (BODOGE_DASHBOARD_DB) at a given file for one test."""

    def use(path: Path) -> None:
        monkeypatch.setenv("BODOGE_DASHBOARD_DB", str(path))

    return use
