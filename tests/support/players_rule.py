"""The players and time rule's warehouse: the site's games and the edge cases that used to
disagree, all watched by one member and all but one recommended to another."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import polars as pl
import pytest

from models.discovery.lists import RECOMMENDATION_COLUMNS
from samplesite.generator import generate_site
from samplesite.truth import truth_frames
from warehouse.build import build_all
from warehouse.db import connect
from warehouse.raw import RawWriter
from warehouse.release.publish import publish_snapshot

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
