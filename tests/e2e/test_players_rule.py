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

import polars as pl
import pytest

from models.discovery.model import RECOMMENDATION_COLUMNS
from models.discovery.run import discover
from samplesite.generator import generate_site
from samplesite.truth import truth_frames
from warehouse.build import build_all
from warehouse.db import connect
from warehouse.release.publish import publish_snapshot
from warehouse.raw import RawWriter

EVERYTHING = "everything"  # a member watching every game: every game is in their collection
DISCOVERER = "discoverer"  # a member with one game (OWN): every other game is eligible to recommend
EDGES = [
    # game_id, min_players, max_players, min_minutes, max_minutes
    ("edge-min-only", 2, None, 30, None),  # 2人, 30分: a single published value is both ends
    ("edge-max-only", None, 4, None, 45),  # no minimum: unknown
    ("edge-backwards", 5, 2, 60, 30),  # a maximum below its minimum: unknown
    ("edge-long", 2, 4, 30, 99999),  # more than a day: the time is unknown
    ("edge-any-number", 1, 65536, 10, 10),  # the site's placeholder for "any number": unknown
    ("edge-hundred", 2, 100, 5, 5),  # 100 players is still plausible
    ("edge-none", None, None, None, None),
]
OWN = "own-game"  # the discoverer's one game (2–8人, 30分): it matches many filters, yet is never recommended to them


def _expected(games: pl.DataFrame, players: int | None, minutes: int | None) -> set[str]:
    """The rule written out in Python over marts.games' filter columns."""
    return {
        g["game_id"] for g in games.iter_rows(named=True)
        if (players is None or (g["players_from"] is not None and g["players_from"] <= players <= g["players_to"]))
        and (minutes is None or (g["minutes_to"] is not None and g["minutes_to"] <= minutes))
    }


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """DATA_DIR/warehouse.duckdb: the site's games and the edges, all watched by one member and all but
    one (OWN, which they have) recommended to another."""
    path = tmp_path_factory.mktemp("rule") / "warehouse.duckdb"
    truth = truth_frames(generate_site(n_games=400, n_users=30, seed=3))
    con = connect(path)
    writer = RawWriter(con, run_id="rule")
    for row in truth["games"].to_dicts():
        writer.add("game", row)
    for game_id, pmin, pmax, tmin, tmax in EDGES:
        writer.add("game", {"game_id": game_id, "name_ja": game_id, "min_players": pmin, "max_players": pmax,
                            "min_minutes": tmin, "max_minutes": tmax})
    writer.add("game", {"game_id": OWN, "name_ja": "ひとつだけ", "min_players": 2, "max_players": 8,
                        "min_minutes": 30, "max_minutes": 30})
    game_ids = [*truth["games"]["game_id"], *(edge[0] for edge in EDGES), OWN]
    for game_id in game_ids:
        writer.add("collection_entry", {"user_id": EVERYTHING, "game_id": game_id, "have": False, "played": False,
                                        "favorite": False, "watching": True, "rating": None, "updated_at": None})
    writer.add("collection_entry", {"user_id": DISCOVERER, "game_id": OWN, "have": True, "played": True,
                                    "favorite": True, "watching": False, "rating": 5, "updated_at": None})
    for user, n, name in ((EVERYTHING, len(game_ids), "全部"), (DISCOVERER, 1, "ひとつ")):
        writer.add("listing_crawl", {"listing": "collection", "key": user, "status": "public", "n_entries": n,
                                     "n_pages": 1})
        writer.add("member", {"user_id": user, "name": name})
    writer.flush()
    build_all(con)
    recs = pl.DataFrame({"game_id": [g for g in game_ids if g != OWN]}).with_row_index("rank", offset=1).with_columns(
        pl.lit(DISCOVERER).alias("user_id"), (1.0 / pl.col("rank")).alias("score"), pl.lit("ease").alias("model"),
        pl.lit("r1").alias("run_id"), pl.lit("").alias("reason"),
        pl.lit(datetime(2026, 11, 1, tzinfo=timezone.utc)).alias("generated_at"),
    ).with_columns(pl.col("rank").cast(pl.Int64)).select(RECOMMENDATION_COLUMNS)
    con.register("recs", recs.to_arrow())
    con.execute("CREATE OR REPLACE TABLE marts.recommendations AS SELECT * FROM recs")
    publish_snapshot(con, path.parent, run_id="rule")  # what the commands read
    con.close()
    return path


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
