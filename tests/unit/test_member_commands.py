"""`bodoge similar`, `collection --max-minutes`, trimmed ids, the summary's counts and the
sample site that continues the demo's, on a demo warehouse (`tests/support/discovery_warehouse.py`).

Here: the tests that need no process, no socket and no Dagster run; the rest of this subject:
tests/integration/test_member_commands.py, tests/e2e/test_member_commands.py.
"""

from __future__ import annotations

import json

import polars as pl
import pytest

from bodoge.demo import DEMO_SITE
from bodoge.summary import checks_lines
from tests.support.discovery_warehouse import shared_discovery_warehouse
from warehouse.db import connect


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return shared_discovery_warehouse(tmp_path_factory)  # read only; a test that writes copies it


def published(demo: dict, query: str, params: list | None = None) -> pl.DataFrame:
    with connect(demo["paths"].data_dir / "published.duckdb", read_only=True) as con:
        return con.sql(query, params=params or []).pl()


def test_the_demos_defaults_are_the_sites_defaults() -> None:
    from argparse import Namespace

    from bodoge.cli import build_parser
    from bodoge.cli_site import DEFAULT_PORT, site_params

    demo = build_parser().parse_args(["demo"])
    assert (demo.games, demo.users, demo.seed) == (DEMO_SITE["games"], DEMO_SITE["users"], DEMO_SITE["seed"])
    args = Namespace(games=None, users=None, seed=None, port=None, no_faults=False, data_dir="/nonexistent/dir")
    params = site_params(args)
    assert {k: params[k] for k in ("games", "users", "seed", "faults", "port")} == dict(DEMO_SITE, port=DEFAULT_PORT)


def test_the_summary_counts_the_checks_the_dashboard_counts() -> None:
    ran = [{"name": "games_unique_key", "asset": "marts/games", "passed": True, "severity": "ERROR"},
           {"name": "games_players_range", "asset": "marts/games", "passed": False, "severity": "WARN"},
           {"name": "bundle_delivered", "asset": "export/delivery", "passed": True, "severity": "ERROR"}]
    published = {"checks": json.dumps(ran[:2])}
    assert checks_lines(published, ran).splitlines() == [
        "  checks: 1/2 passed when the night was published",
        "    WARN: games_players_range on marts/games",
        "  after publishing: bundle_delivered passed",
    ]
    assert checks_lines({"checks": None}, ran).splitlines()[0] == "  checks: 2/3 passed"
