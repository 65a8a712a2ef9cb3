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

from warehouse.db import scalar
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
    return _with_specs(con, wider.with_columns(pl.col("watching").fill_null(False)))


def play_next(con: duckdb.DuckDBPyConnection, user_id: str, *, n: int, model_dir: Path) -> list[dict[str, Any]]:
    """`--owned-unplayed`: the member's stored play-next list, re-checked against their
    collection now (still had, still unplayed); ranked again from the saved model when the
    shelf changed since the night (a game bought since would otherwise be missing)."""
    from warehouse.views import ensure_member, next_to_play_for

    if n < 1:
        raise ValueError(f"-n must be at least 1, not {n}")
    ensure_member(con, user_id)
    rows = next_to_play_for(con, user_id, n=n)
    shelf = int(scalar(con, "SELECT count(*) FROM marts.collections c JOIN marts.games USING (game_id) "
                       "WHERE c.user_id = ? AND c.have AND NOT c.played",
                       [user_id]) or 0)
    if len(rows) >= min(n, shelf) or not (model_dir / "discovery.json").is_file():
        return rows
    from models.discovery.play_next import play_next_for

    mine = con.sql("SELECT * FROM marts.collections WHERE user_id = ?", params=[user_id]).pl()
    ranked = play_next_for(model_dir, user_id, collection=mine, n=n)
    return _with_specs(con, ranked)


def game_night(
    con: duckdb.DuckDBPyConnection,
    user_ids: list[str],
    *,
    cafe: str | None,
    anywhere: bool,
    n: int,
    model_dir: Path,
) -> list[dict[str, Any]]:
    """`--group`: the group's list from the saved model and the members' collections now."""
    from models.discovery.group import GroupError, Table, game_night as rank_group, playable_with
    from models.discovery.store import is_saved, load_state
    from models.interactions import normalise_interactions
    from warehouse.views import ensure_member

    if len(set(user_ids)) < 2:
        raise GroupError("a group needs at least two different members (--group ID,ID,…)")
    for user_id in user_ids:
        ensure_member(con, user_id)
    cafe_games = None
    if cafe is not None:
        cafe_games = con.sql("SELECT DISTINCT game_id FROM marts.cafe_games WHERE space_slug = ?", params=[cafe]).pl()
        if cafe_games.height == 0:
            raise GroupError(f"unknown cafe {cafe!r}: no cafe with that slug offers any game in the warehouse")
    if not is_saved(model_dir):
        raise GroupError(f"no saved model in {model_dir}: run `bodoge run` first")
    games = con.sql("SELECT * FROM marts.games").pl()
    collections = con.sql("SELECT * FROM marts.collections WHERE list_contains(?, user_id)", params=[user_ids]).pl()
    table = Table(
        user_ids=list(dict.fromkeys(user_ids)),
        collections=normalise_interactions(collections, source="marts.collections"),
        playable=games.filter(playable_with(len(set(user_ids)))).get_column("game_id"),
        cafe=cafe,
        cafe_games=cafe_games.get_column("game_id") if cafe_games is not None else None,
        anywhere=anywhere,
    )
    state, _ = load_state(model_dir)
    return _with_specs(con, rank_group(state, table, n=n))


def _with_specs(con: duckdb.DuckDBPyConnection, ranked: pl.DataFrame) -> list[dict[str, Any]]:
    """Ranked rows with the games' names and specs, in rank order, renumbered 1…n."""
    games = con.sql("SELECT * FROM marts.games").pl()
    extra = [c for c in ("brought_by", "watching", "model") if c in ranked.columns]
    return (
        ranked.join(games.select("game_id", *_SPEC), on="game_id", how="left")
        .sort("rank")
        .with_row_index("new_rank", offset=1)
        .select(pl.col("new_rank").cast(pl.Int64).alias("rank"), "game_id", *_SPEC, "score", "reason", *extra)
        .to_dicts()
    )
