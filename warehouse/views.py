"""Member-facing views over the marts: a sorted, filtered collection, and cafes to visit.

Every value a user types reaches SQL as a bound parameter, never as SQL text; the sort
key is chosen from a fixed table of ORDER BY clauses.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import duckdb
import polars as pl

from core.statuses import STATUSES
from warehouse.db import dict_rows, scalar

# Missing values sort last in either direction; ties break by name, then id.
_SORTS = {
    "players": "g.min_players {d} NULLS LAST, g.max_players {d} NULLS LAST",
    "time": "g.min_minutes {d} NULLS LAST, g.max_minutes {d} NULLS LAST",
    "age": "g.min_age {d} NULLS LAST",
    "year": "g.year {d} NULLS LAST",
    "name": "coalesce(g.name_ja, g.name_en, c.game_id) {d}",
    "updated": "c.updated_at {d} NULLS LAST",
}
SORT_KEYS = tuple(_SORTS)

# The one rule (marts.games, docs/recommenders.md): playable with N and fits in M minutes, over the
# filter columns, where an implausible or unpublished value is NULL and so never matches.
PLAYABLE_WITH = "marts.playable_with(g.players_from, g.players_to, $players)"  # warehouse/sql/macros.sql
FITS_IN = "marts.fits_in(g.minutes_to, $minutes)"
_DEFAULT_DESC = {"updated"}  # newest first, as on the site


class UnknownUserError(Exception):
    """The warehouse holds no public member with this id."""


class UnknownGameError(Exception):
    """The warehouse holds no game with this id."""


def parse_count(text: str | int) -> int:
    """A player count typed by a person: `4`, `４`, `4人` → 4; anything else is a ValueError."""
    if isinstance(text, int):
        value = text
    else:
        match = re.fullmatch(r"\s*(\d+)\s*人?\s*", unicodedata.normalize("NFKC", text))
        if not match:
            raise ValueError(f"not a player count: {text!r}")
        value = int(match.group(1))
    if value < 1:
        raise ValueError(f"a player count is at least 1, not {value}")
    return value


def ensure_member(con: duckdb.DuckDBPyConnection, user_id: str) -> None:
    """Raise UnknownUserError unless the member is known (a public member, possibly empty)."""
    found = scalar(
        con,
        "SELECT 1 FROM marts.members WHERE user_id = ? UNION ALL "
        "SELECT 1 FROM marts.collections WHERE user_id = ? LIMIT 1",
        [user_id, user_id],
    )
    if found is None:
        raise UnknownUserError(f"unknown user {user_id!r}: no public member with that id in the warehouse")


def collection(
    con: duckdb.DuckDBPyConnection,
    user_id: str,
    *,
    status: str | None = None,
    players: int | None = None,
    max_minutes: int | None = None,
    sort: str = "updated",
    reverse: bool = False,
) -> list[dict[str, Any]]:
    """The member's games with their specs, filtered by status, "playable with N players"
    and "fits in M minutes".

    The filters are the one rule `bodoge recommend` uses: `PLAYABLE_WITH` (marts.games'
    players_from <= N <= players_to) and `FITS_IN` (minutes_to <= M); a game whose value
    is unpublished or implausible is not shown by that filter.
    """
    if status is not None and status not in STATUSES:
        raise ValueError(f"unknown status {status!r}: choose one of {', '.join(STATUSES)}")
    if sort not in _SORTS:
        raise ValueError(f"unknown sort {sort!r}: choose one of {', '.join(SORT_KEYS)}")
    ensure_member(con, user_id)
    descending = (sort in _DEFAULT_DESC) != reverse
    order = _SORTS[sort].format(d="DESC" if descending else "ASC")
    where = ["c.user_id = $user"]
    params: dict[str, Any] = {"user": user_id}
    if status:
        where.append(f"c.{status}")  # status is one of four fixed column names
    if players is not None:
        where.append(PLAYABLE_WITH)
        params["players"] = players
    if max_minutes is not None:
        if max_minutes < 1:
            raise ValueError(f"--max-minutes must be at least 1, not {max_minutes}")
        where.append(FITS_IN)
        params["minutes"] = max_minutes
    query = f"""
        SELECT c.game_id, g.name_ja, g.name_en, g.min_players, g.max_players,
               g.min_minutes, g.max_minutes, g.min_age, g.year,
               c.have, c.played, c.favorite, c.watching, c.rating, c.updated_at
        FROM marts.collections c
        LEFT JOIN marts.games g USING (game_id)
        WHERE {' AND '.join(where)}
        ORDER BY {order}, coalesce(g.name_ja, g.name_en, c.game_id), c.game_id
    """
    rows = dict_rows(con, query, params)
    for row in rows:
        if row["updated_at"] is not None:
            row["updated_at"] = row["updated_at"].isoformat()
    return rows


def cafes_for(con: duckdb.DuckDBPyConnection, user_id: str) -> list[dict[str, Any]]:
    """For each cafe, the member's watching and favourite games it offers, best cafes first.

    Best = most of the member's wanted games on offer, favourites weighing as much as
    watched games; ties by cafe name. Cafes offering none of them are left out.
    """
    ensure_member(con, user_id)
    query = """
        WITH wants AS (
            SELECT game_id, favorite, watching FROM marts.collections
            WHERE user_id = ? AND (watching OR favorite)
        )
        SELECT cg.space_slug, any_value(cg.space_name) AS space_name,
               count(*) AS n_games,
               count(*) FILTER (WHERE w.favorite) AS n_favorite,
               count(*) FILTER (WHERE w.watching) AS n_watching,
               list({
                   'game_id': w.game_id, 'name_ja': g.name_ja, 'name_en': g.name_en,
                   'favorite': w.favorite, 'watching': w.watching
               } ORDER BY w.favorite DESC, coalesce(g.name_ja, g.name_en, w.game_id)) AS games
        FROM marts.cafe_games cg
        JOIN wants w USING (game_id)
        LEFT JOIN marts.games g USING (game_id)
        GROUP BY cg.space_slug
        ORDER BY n_games DESC, n_favorite DESC, space_name, cg.space_slug
    """
    return dict_rows(con, query, [user_id])


def recommendations_for(
    con: duckdb.DuckDBPyConnection,
    user_id: str,
    *,
    n: int = 10,
    players: int | None = None,
    max_minutes: int | None = None,
    reranked: Any = None,
) -> list[dict[str, Any]]:
    """The member's discovery list, filtered, best first, renumbered 1..n.

    Playable with N players is `PLAYABLE_WITH`, a maximum play time M is `FITS_IN`
    (marts.games' minutes_to: the longest play, else the only one, at most M). Games whose
    needed value is unpublished or implausible are left out when that filter is on. Never a game in
    the member's collection now (had, played, favourite or 興味あり: the watch list has its own
    shelf, `shelf_for`): the join re-checks it against marts.collections.

    Each row says whether it is from a welcome list (`welcome`: the member has no collection
    the model could score, `models.discovery.welcome`).

    The list is the stored one (marts.recommendations), or `reranked`: a frame (Polars or
    Arrow) of the same columns ranking the member's whole catalogue again
    (`bodoge.recommend`), read through this same query. Why one query for both: the rows a
    member is shown obey one filter, whichever list they come from.
    """
    if n < 1:
        raise ValueError(f"-n must be at least 1, not {n}")
    ensure_member(con, user_id)
    if reranked is not None:
        con.register(_RERANKED, reranked)
        try:
            return _discovery_list(con, _RERANKED, user_id, n=n, players=players, max_minutes=max_minutes)
        finally:
            con.unregister(_RERANKED)
    return _discovery_list(con, "marts.recommendations", user_id, n=n, players=players, max_minutes=max_minutes)


def post_games(con: duckdb.DuckDBPyConnection, user_id: str | None = None) -> pl.DataFrame:
    """(`user_id`, `game_id`): the games whose rule or review posts each member wrote (of one
    member, if named). What the warehouse knows of a member beyond their collection: a welcome
    list (`models.discovery.welcome`) reads them as the member's interests. Empty where the
    warehouse holds no posts."""
    found = scalar(con, "SELECT 1 FROM information_schema.tables WHERE table_schema = 'raw' AND table_name = 'posts'")
    if found is None:
        return pl.DataFrame(schema={"user_id": pl.String, "game_id": pl.String})
    where = "author_user_id IS NOT NULL AND game_id IS NOT NULL" + (" AND author_user_id = ?" if user_id else "")
    return con.sql(f"SELECT DISTINCT author_user_id AS user_id, game_id FROM raw.posts WHERE {where} "
                   "ORDER BY ALL", params=[user_id] if user_id else None).pl()


def welcome_list(con: duckdb.DuckDBPyConnection, user_id: str) -> bool:
    """Whether the member's stored discovery list is a welcome list (or they have none stored)."""
    has = scalar(con, "SELECT 1 FROM information_schema.columns WHERE table_schema = 'marts' "
                      "AND table_name = 'recommendations' AND column_name = 'welcome'")
    flag = "bool_or(coalesce(welcome, false))" if has else "false"
    stored = con.execute(f"SELECT count(*), {flag} FROM marts.recommendations WHERE user_id = ?", [user_id]).fetchone()
    return stored is None or stored[0] == 0 or bool(stored[1])


_RERANKED = "reranked_discovery"
"""The temporary view a re-ranked list is read through (this connection only)."""


def _discovery_list(
    con: duckdb.DuckDBPyConnection, source: str, user_id: str, *, n: int, players: int | None,
    max_minutes: int | None,
) -> list[dict[str, Any]]:
    """`recommendations_for` over `source`, one of two fixed relation names (never user text)."""
    where = ["r.user_id = $user", "c.user_id IS NULL"]
    params: dict[str, Any] = {"user": user_id, "n": n}
    if players is not None:
        where.append(PLAYABLE_WITH)
        params["players"] = players
    if max_minutes is not None:
        where.append(FITS_IN)
        params["minutes"] = max_minutes
    # a welcome list says so (models.discovery.welcome); a night from before them has no column
    welcome = "coalesce(r.welcome, false)" if scalar(
        con, "SELECT 1 FROM (DESCRIBE SELECT * FROM " + source + ") WHERE column_name = 'welcome'") else "false"
    query = f"""
        SELECT row_number() OVER (ORDER BY r.rank) AS rank, r.game_id, g.name_ja, g.name_en,
               g.min_players, g.max_players, g.min_minutes, g.max_minutes, r.score, r.reason, r.model,
               {welcome} AS welcome
        FROM {source} r
        LEFT JOIN marts.games g USING (game_id)
        LEFT JOIN marts.collections c ON c.user_id = r.user_id AND c.game_id = r.game_id
        WHERE {' AND '.join(where)}
        ORDER BY r.rank
        LIMIT $n
    """
    return dict_rows(con, query, params)


SHELVES: dict[str, str] = {
    "next_to_play": "c.have AND NOT c.played",
    "watch_next": "c.watching AND NOT c.have AND NOT c.played",
}
"""The shelves (marts.next_to_play: play next; marts.watch_next: the watch list) and which of
the member's marts.collections rows belong on each now (`c` is the member's row)."""


def shelf_for(con: duckdb.DuckDBPyConnection, shelf: str, user_id: str, *, n: int = 10) -> list[dict[str, Any]]:
    """The member's stored list of a shelf (`SHELVES`), best first, renumbered 1..n.

    Only games that still belong on it: the join re-checks each row against
    marts.collections. Empty before the first night that wrote the table.
    """
    rule = SHELVES[shelf]  # a fixed table name and condition, never user text
    found = scalar(con, "SELECT 1 FROM information_schema.tables WHERE table_schema = 'marts' "
                        "AND table_name = ?", [shelf])
    if found is None:
        return []
    query = f"""
        SELECT row_number() OVER (ORDER BY p.rank) AS rank, p.game_id, g.name_ja, g.name_en,
               g.min_players, g.max_players, g.min_minutes, g.max_minutes, p.score, p.reason
        FROM marts.{shelf} p
        JOIN marts.collections c ON c.user_id = p.user_id AND c.game_id = p.game_id
        LEFT JOIN marts.games g ON g.game_id = p.game_id
        WHERE p.user_id = $user AND {rule}
        ORDER BY p.rank
        LIMIT $n
    """
    return dict_rows(con, query, {"user": user_id, "n": n})


def shelf_size(con: duckdb.DuckDBPyConnection, shelf: str, user_id: str) -> int:
    """How many catalogue games belong on the member's shelf now (`SHELVES`)."""
    return int(scalar(con, "SELECT count(*) FROM marts.collections c JOIN marts.games USING (game_id) "
                           f"WHERE c.user_id = ? AND {SHELVES[shelf]}", [user_id]) or 0)


def similar_games_for(con: duckdb.DuckDBPyConnection, game_id: str, *, n: int = 10) -> list[dict[str, Any]]:
    """The game's stored similar games (marts.similar_games, the night's), best first, with specs.

    Why the stored list and not a fresh computation: it is what the night exported to the
    site (similar_games.jsonl), so the command shows what members see. Empty for a known
    game the night stored no list for; an unknown game is an UnknownGameError.
    """
    if n < 1:
        raise ValueError(f"-n must be at least 1, not {n}")
    if scalar(con, "SELECT 1 FROM marts.games WHERE game_id = ?", [game_id]) is None:
        raise UnknownGameError(f"unknown game {game_id!r}: no game with that id in the warehouse")
    query = """
        SELECT row_number() OVER (ORDER BY s.rank) AS rank, s.similar_game_id AS game_id, g.name_ja, g.name_en,
               g.min_players, g.max_players, g.min_minutes, g.max_minutes, s.score
        FROM marts.similar_games s
        LEFT JOIN marts.games g ON g.game_id = s.similar_game_id
        WHERE s.game_id = $game
        ORDER BY s.rank
        LIMIT $n
    """
    return dict_rows(con, query, {"game": game_id, "n": n})
