"""`bodoge recommend`: the stored discovery list, and the champion re-ranking when filters thin it.

The warehouse keeps each member's top 100; a narrow filter (8 players, 15 minutes) can
leave fewer than N of those although the catalogue has enough. Then, once, the saved
champion (DATA_DIR/models/champion) ranks the member's whole catalogue again and that list
is read through the same SQL (`warehouse.views.recommendations_for`: the rule macros, the
member's collection now), so the member still gets N games whenever N qualify, filtered by
the one rule whichever list they come from.

The two shelves (`--owned-unplayed`: play next; `--watching`: the watch list) read their
marts the same way, re-checked against the member's collection now (`shelf`).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from warehouse.views import recommendations_for

log = logging.getLogger("bodoge.recommend")

STORED_DEPTH = 100
"""Rows the night stores per member (``models.discovery.run``'s ``depth``): asked for more, the
command ranks the member's whole catalogue again rather than stopping there."""

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
    """The member's discovery list: the stored one, filtered; when a filter leaves fewer than
    `n`, or `n` is past the stored depth, and a champion is saved, the whole catalogue ranked
    again, filtered by the same SQL. A member whose list is a welcome list (or who has no
    stored list yet) is ranked again by the welcome rule (`models.discovery.welcome`)."""
    rows = recommendations_for(con, user_id, n=n, players=players, max_minutes=max_minutes)
    if len(rows) >= n or (players is None and max_minutes is None and len(rows) < STORED_DEPTH):
        return rows  # enough, or unfiltered and the stored list is all there is
    from models.discovery.store import is_saved

    if not is_saved(model_dir):
        return rows
    from models.discovery.serving import score_user_on_the_fly
    from models.discovery.welcome import welcome_from_saved
    from warehouse.bgg_training import member_rows
    from warehouse.views import post_games, welcome_list

    mine = member_rows(con, user_id)  # with their BGG rows, as the night ranked them (never named as theirs)
    log.info("recommend: %d of %d stored games pass the filters; re-ranking %s's whole catalogue",
             len(rows), n, user_id)
    if mine.height == 0 or welcome_list(con, user_id):  # the same rule as the night's welcome list
        everything = welcome_from_saved(model_dir, user_id, collection=mine, hints=post_games(con, user_id))
        everything = everything.with_columns(pl.lit(True).alias("welcome"))
    else:
        everything = score_user_on_the_fly(model_dir, user_id, collection=mine)
        everything = everything.with_columns(pl.lit(False).alias("welcome"))
    return recommendations_for(con, user_id, n=n, players=players, max_minutes=max_minutes,
                               reranked=everything.to_arrow())


def play_next(con: duckdb.DuckDBPyConnection, user_id: str, *, n: int, model_dir: Path) -> list[dict[str, Any]]:
    """`--owned-unplayed`: the member's play-next list (games had, not played)."""
    return shelf(con, "next_to_play", user_id, n=n, model_dir=model_dir)


def watch_next(con: duckdb.DuckDBPyConnection, user_id: str, *, n: int, model_dir: Path) -> list[dict[str, Any]]:
    """`--watching`: "from your watch list", the member's 興味あり games (neither had nor played)."""
    return shelf(con, "watch_next", user_id, n=n, model_dir=model_dir)


def shelf(con: duckdb.DuckDBPyConnection, name: str, user_id: str, *, n: int, model_dir: Path) -> list[dict[str, Any]]:
    """A shelf (`warehouse.views.SHELVES`): the member's stored list, re-checked against their
    collection now (only games that still belong on it); ranked again from the saved model
    when the shelf changed since the night (a game bought or marked since would otherwise
    be missing)."""
    from warehouse.views import ensure_member, shelf_for, shelf_size

    if n < 1:
        raise ValueError(f"-n must be at least 1, not {n}")
    ensure_member(con, user_id)
    rows = shelf_for(con, name, user_id, n=n)
    if len(rows) >= min(n, shelf_size(con, name, user_id)) or not (model_dir / "discovery.json").is_file():
        return rows
    from models.discovery.shelves import SHELVES, shelf_for as rank_shelf
    from warehouse.bgg_training import member_rows

    mine = member_rows(con, user_id)  # as the night ranked it: BGG rows weigh in, never shelved nor named
    return _with_specs(con, rank_shelf(model_dir, user_id, SHELVES[name], collection=mine, n=n))


def game_night(
    con: duckdb.DuckDBPyConnection,
    user_ids: list[str],
    *,
    cafe: str | None,
    anywhere: bool,
    n: int,
    model_dir: Path | None,
    state: Any = None,
) -> list[dict[str, Any]]:
    """`--group`: the group's list from the saved model and the members' collections now; a game
    BoardGameGeek's poll calls best with the group's size ranks higher (`models.discovery.group`).
    `state`: the saved model already loaded from `model_dir` (the API holds it)."""
    from models.discovery.group import GroupError, Table, game_night as rank_group
    from models.discovery.store import is_saved, load_state
    from models.discovery.members import normalise_marked
    from warehouse.bgg_training import member_rows
    from warehouse.bgg_views import poll_games
    from warehouse.views import PLAYABLE_WITH, ensure_member

    if len(set(user_ids)) < 2:
        raise GroupError("a group needs at least two different members (--group ID,ID,…)")
    for user_id in user_ids:
        ensure_member(con, user_id)
    cafe_games = None
    if cafe is not None:
        cafe_games = con.sql("SELECT DISTINCT game_id FROM marts.cafe_games WHERE space_slug = ?", params=[cafe]).pl()
        if cafe_games.height == 0:
            raise GroupError(f"unknown cafe {cafe!r}: no cafe with that slug offers any game in the warehouse")
    if state is None and not is_saved(model_dir):
        raise GroupError(f"no saved model in {model_dir}: run `bodoge run` first")
    size = len(set(user_ids))
    playable = con.sql(f"SELECT g.game_id FROM marts.games g WHERE {PLAYABLE_WITH}", params={"players": size}).pl()
    # with their BGG rows: a game played there is not new to them; who brings what is said from the site only
    collections = pl.concat([member_rows(con, user_id) for user_id in dict.fromkeys(user_ids)], how="diagonal_relaxed")
    table = Table(
        user_ids=list(dict.fromkeys(user_ids)),
        collections=normalise_marked(collections, source="marts.collections"),
        playable=playable.get_column("game_id"),
        cafe=cafe,
        cafe_games=cafe_games.get_column("game_id") if cafe_games is not None else None,
        anywhere=anywhere,
        best=pl.Series(sorted(poll_games(con, players=size, how="best")), dtype=pl.String),
    )
    if state is None:
        assert model_dir is not None  # is_saved(model_dir) above
        state, _ = load_state(model_dir)
    return _with_specs(con, rank_group(state, table, n=n))


def _with_specs(con: duckdb.DuckDBPyConnection, ranked: pl.DataFrame) -> list[dict[str, Any]]:
    """Ranked rows with the games' names and specs, in rank order, renumbered 1…n."""
    games = con.sql("SELECT * FROM marts.games").pl()
    extra = [c for c in ("brought_by", "model") if c in ranked.columns]
    return (
        ranked.join(games.select("game_id", *_SPEC), on="game_id", how="left")
        .sort("rank")
        .with_row_index("new_rank", offset=1)
        .select(pl.col("new_rank").cast(pl.Int64).alias("rank"), "game_id", *_SPEC, "score", "reason", *extra)
        .to_dicts()
    )
