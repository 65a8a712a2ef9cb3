"""Reading BoardGameGeek's poll beside the players filter: which site games BGG calls best with N.

Why a set of game ids and not a join inside every reader: the collection and the
recommendation readers each build their own query (and the recommendation reader may
widen its search with the model); the BGG rule is one macro, `marts.bgg_poll_says`,
applied here once, and the readers keep only the games it names.
"""

from __future__ import annotations

from typing import Any

import duckdb

POLL_CHOICES = ("best", "recommended")


def polled_games(con: duckdb.DuckDBPyConnection, game_ids: set[str]) -> set[str]:
    """Those of `game_ids` BGG's poll says anything of (a best or recommended player count);
    empty before any BGG sync."""
    present = con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'marts' "
                          "AND table_name = 'bgg_games' AND database_name = current_database()").fetchall()[0][0]
    if not present or not game_ids:
        return set()
    rows = con.execute("SELECT DISTINCT game_id FROM marts.bgg_games WHERE list_contains(?, game_id) "
                       "AND (len(coalesce(best_players, [])) > 0 OR len(coalesce(recommended_players, [])) > 0)",
                       [sorted(game_ids)]).fetchall()
    return {r[0] for r in rows}


def poll_games(con: duckdb.DuckDBPyConnection, *, players: int, how: str) -> set[str]:
    """Site games whose BGG poll says `how` (best, recommended) for `players`; empty before any BGG sync."""
    if how not in POLL_CHOICES:
        raise ValueError(f"how must be one of {', '.join(POLL_CHOICES)}, not {how!r}")
    present = con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'marts' "
                          "AND table_name = 'bgg_games' AND database_name = current_database()").fetchall()[0][0]
    if not present:
        return set()
    rows = con.execute("SELECT DISTINCT game_id FROM marts.bgg_games WHERE game_id IS NOT NULL "
                       "AND marts.bgg_poll_says(best_players, recommended_players, ?, ?)", [players, how]).fetchall()
    return {r[0] for r in rows}


def keep_poll_games(rows: list[dict[str, Any]], games: set[str], *, n: int | None = None) -> list[dict[str, Any]]:
    """The rows whose game is in `games`, at most `n`, ranks renumbered from 1 where rows carry one."""
    kept = [row for row in rows if row.get("game_id") in games][: n if n is not None else None]
    return [dict(row, rank=i) if "rank" in row else row for i, row in enumerate(kept, start=1)]
