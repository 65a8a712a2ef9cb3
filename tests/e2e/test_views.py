"""Collection views and cafes for a member: filters, sorts, missing values, bad input.

Here: the tests that start real processes; the rest of this subject: tests/unit/test_views.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.warehouse_fixtures import build_small_warehouse


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    return build_small_warehouse(tmp_path_factory.mktemp("wh") / "warehouse.duckdb")


def run_cli(*args: str, warehouse: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bodoge.cli", *args, "--warehouse", str(warehouse)],
        capture_output=True, text=True, encoding="utf-8",
    )


def test_cli_collection_json_and_table(warehouse) -> None:
    out = run_cli("collection", "17406", "--players", "２", "--sort", "players", "--json", warehouse=warehouse)
    assert out.returncode == 0, out.stderr
    assert [r["game_id"] for r in json.loads(out.stdout)] == ["propolis", "sky-team", "khora"]
    table = run_cli("collection", "17406", "--sort", "time", warehouse=warehouse)
    assert table.returncode == 0 and "プロポリス" in table.stdout and "15–30分" in table.stdout


def test_cli_errors_are_one_line(warehouse, tmp_path) -> None:
    for args, wh in ((("collection", "999"), warehouse), (("cafes", "17406"), tmp_path / "missing.duckdb"),
                     (("collection", "17406", "--players", "many"), warehouse)):
        out = run_cli(*args, warehouse=wh)
        assert out.returncode != 0
        assert out.stderr.count("\n") == 1 and out.stderr.startswith("bodoge: error:"), out.stderr
