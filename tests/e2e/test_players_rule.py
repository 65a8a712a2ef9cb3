"""One rule for "playable with N players" and "fits in M minutes", whichever path answers.

Here: the tests that start real processes; the rest of this subject:
tests/unit/test_players_rule.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from models.discovery.run import discover
from warehouse.db import connect
from tests.support.players_rule import DISCOVERER, EDGES, EVERYTHING, OWN, _expected, warehouse  # noqa: F401 - warehouse is a fixture


@pytest.fixture(scope="module")
def champion(warehouse: Path) -> Path:
    """A real saved champion (DATA_DIR/models/champion) fitted on the warehouse's collections."""
    con = connect(warehouse, read_only=True)
    games = con.sql("SELECT * FROM marts.games").pl()
    collections = con.sql("SELECT * FROM marts.collections").pl()
    con.close()
    model_dir = warehouse.parent / "models" / "champion"
    discover(collections=collections, games=games, posts=None, champion="ease", params={}, weighting="graded",
             run_id="r1", generated_at=datetime(2026, 11, 1, tzinfo=timezone.utc), model_dir=model_dir)
    return model_dir


def _cli(*args: str, data_dir: Path) -> list[dict]:
    run = subprocess.run([sys.executable, "-m", "bodoge.cli", *args, "--json", "--data-dir", str(data_dir)],
                         capture_output=True, text=True, encoding="utf-8")
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_the_commands_agree(warehouse: Path, champion: Path) -> None:
    """`bodoge collection --players 8` and `bodoge recommend --players 8` show the same games (but the
    one the recommended member has)."""
    con = connect(warehouse, read_only=True)
    games = con.sql("SELECT * FROM marts.games").pl()
    con.close()
    expected = _expected(games, 8, None)
    assert 0 < len(expected) < games.height
    data_dir = warehouse.parent
    in_collection = {r["game_id"] for r in _cli("collection", EVERYTHING, "--players", "８人", data_dir=data_dir)}
    recommended = _cli("recommend", DISCOVERER, "-n", str(games.height), "--players", "8", data_dir=data_dir)
    assert in_collection == expected and {r["game_id"] for r in recommended} == expected - {OWN}


def test_a_thin_stored_list_is_re_ranked_once_and_obeys_the_filters(
        warehouse: Path, champion: Path, tmp_path: Path) -> None:
    """`bodoge recommend --players 2 -n 12` on a night that stored only each member's top 5: the
    champion ranks the catalogue again exactly once, and what is shown is 12 games the rule
    keeps, none the member has. Without a saved champion the stored rows that pass are all
    there is; without a filter the stored list is enough, and neither re-ranks."""
    shutil.copy(warehouse.parent / "published.duckdb", tmp_path / "published.duckdb")
    with connect(tmp_path / "published.duckdb") as con:
        con.execute("DELETE FROM marts.recommendations WHERE rank > 5")
        games = con.sql("SELECT * FROM marts.games").pl()
    expected = _expected(games, 2, None) - {OWN}
    assert len(expected) > 12

    def recommend(*args: str) -> tuple[list[dict], int]:
        run = subprocess.run([sys.executable, "-m", "bodoge.cli", "-v", "recommend", DISCOVERER, *args, "--json",
                              "--data-dir", str(tmp_path)], capture_output=True, text=True, encoding="utf-8")
        assert run.returncode == 0, run.stderr
        return json.loads(run.stdout), run.stderr.count("re-ranking")

    without_model, re_ranks = recommend("-n", "12", "--players", "2")  # no saved champion: the stored rows only
    assert re_ranks == 0 and len(without_model) <= 5 and {r["game_id"] for r in without_model} <= expected
    shutil.copytree(champion, tmp_path / "models" / "champion")
    shown, re_ranks = recommend("-n", "12", "--players", "2")
    assert re_ranks == 1
    assert [r["rank"] for r in shown] == list(range(1, 13))
    assert {r["game_id"] for r in shown} <= expected and len({r["game_id"] for r in shown}) == 12
    stored, re_ranks = recommend("-n", "5")
    assert re_ranks == 0 and [r["rank"] for r in stored] == [1, 2, 3, 4, 5]
