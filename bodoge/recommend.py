"""`bodoge recommend`: the stored discovery list, and the champion re-ranking when filters thin it.

The warehouse keeps each member's top 100; a narrow filter (8 players, 15 minutes) can
leave fewer than N of those although the catalogue has enough. Then the saved champion
(DATA_DIR/models/champion) ranks the member's whole catalogue again and the filter is
applied to that, so the member still gets N games whenever N qualify.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from warehouse.views import recommendations_for

_SPEC = ["name_ja", "name_en", "min_players", "max_players", "min_minutes", "max_minutes"]


def recommend(
    con: duckdb.DuckDBPyConnection,
    user_id: str,
    *,
    n: int,
    players: int | None,
    max_minutes: int | None,
    model_dir: Path,
) -> list[dict[str, Any]]:
    rows = recommendations_for(con, user_id, n=n, players=players, max_minutes=max_minutes)
    if len(rows) >= n or (players is None and max_minutes is None) or not model_dir.is_dir():
        return rows
    from models.discovery.serving import recommend_filtered

    stored = con.sql("SELECT * FROM marts.recommendations WHERE user_id = ?", params=[user_id]).pl()
    games = con.sql("SELECT * FROM marts.games").pl()
    mine = con.sql("SELECT * FROM marts.collections WHERE user_id = ?", params=[user_id]).pl()
    wider = recommend_filtered(stored, games, user_id=user_id, n=n, players=players, max_minutes=max_minutes,
                               model_dir=model_dir, collection=mine)
    if wider.height <= len(rows):
        return rows
    model = stored["model"][0] if stored.height else None
    out = (
        wider.join(games.select("game_id", *_SPEC), on="game_id", how="left")
        .sort("rank")
        .with_row_index("new_rank", offset=1)
        .select(pl.col("new_rank").cast(pl.Int64).alias("rank"), "game_id", *_SPEC, "score", "reason",
                pl.col("watching").fill_null(False), pl.lit(model).alias("model"))
    )
    return out.to_dicts()
