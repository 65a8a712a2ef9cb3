"""`bodoge recommend`'s filters (players, minutes, n) on hand-made rows, in the SQL that serves it.

`warehouse.views.recommendations_for` is the one filter of a member's discovery list,
whether the list is the stored one or a re-ranked frame: both are read here on the same
games (their filter columns made by marts.games' own SQL), and must give the same answer.
"""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import polars as pl
import pytest

from warehouse.ddl import SQL_DIR
from warehouse.filter_columns import with_filter_columns
from warehouse.views import recommendations_for

GAMES = pl.DataFrame(
    {
        "game_id": ["a", "b", "c", "d", "e", "f", "g"],
        "name_ja": ["a", "b", "c", "d", "e", "f", "g"],
        "name_en": [None] * 7,
        "min_players": [2, 1, 3, None, 2, 3, 2],
        "max_players": [4, 1, 65536, 5, None, 6, 2],
        "min_minutes": [30, 10, 20, 15, None, 60, 45],
        "max_minutes": [60, None, 30, 15, None, 2000, 45],
    }
)
RECS = pl.DataFrame(
    {
        "user_id": ["u"] * 7 + ["v"] * 2,
        "rank": [1, 2, 3, 4, 5, 6, 7, 1, 2],
        "game_id": ["a", "b", "c", "d", "e", "f", "g", "g", "a"],
        "score": [7.0, 6, 5, 4, 3, 2, 1, 2, 1],
        "reason": [""] * 9,
        "model": ["ease"] * 9,
    }
)


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    """The marts `recommendations_for` reads, with the rule macros; nobody has a game yet."""
    con = duckdb.connect()
    con.execute((SQL_DIR / "macros.sql").read_text(encoding="utf-8"))
    con.register("games", with_filter_columns(GAMES).to_arrow())
    con.register("recs", RECS.to_arrow())
    con.execute("CREATE TABLE marts.games AS SELECT * FROM games")
    con.execute("CREATE TABLE marts.recommendations AS SELECT * FROM recs")
    con.execute("CREATE TABLE marts.members AS SELECT DISTINCT user_id FROM recs")
    con.execute("CREATE TABLE marts.collections (user_id VARCHAR, game_id VARCHAR)")
    yield con
    con.close()


def _filtered(con: duckdb.DuckDBPyConnection, **kwargs) -> dict[str, list[str]]:
    """Each member's list, from the stored table and from the same rows as a re-ranked frame."""
    lists = {}
    for user in ("u", "v"):
        stored = [r["game_id"] for r in recommendations_for(con, user, **kwargs)]
        mine = RECS.filter(pl.col("user_id") == user).to_arrow()
        reranked = [r["game_id"] for r in recommendations_for(con, user, reranked=mine, **kwargs)]
        assert stored == reranked, (user, kwargs)
        lists[user] = stored
    return lists


def test_filter_by_players(con: duckdb.DuckDBPyConnection) -> None:
    # c: 3–65536人 (implausible: unknown); d: no min (unknown); e: 2人 with no max is 2–2;
    # f 3–6, a 2–4, g 2–2.
    assert _filtered(con, players=2, max_minutes=None, n=10) == {"u": ["a", "e", "g"], "v": ["g", "a"]}
    assert _filtered(con, players=4, max_minutes=None, n=10) == {"u": ["a", "f"], "v": ["a"]}
    assert _filtered(con, players=3, max_minutes=None, n=10)["u"] == ["a", "f"]
    assert _filtered(con, players=1, max_minutes=None, n=10)["u"] == ["b"]


def test_filter_by_minutes(con: duckdb.DuckDBPyConnection) -> None:
    # b has only a minimum (10): it counts; e has none; f's 60–2000 minutes is implausible
    # (more than a day), so its play time is unknown.
    assert _filtered(con, players=None, max_minutes=30, n=10)["u"] == ["b", "c", "d"]
    assert _filtered(con, players=None, max_minutes=60, n=10)["u"] == ["a", "b", "c", "d", "g"]


def test_filter_combined_and_n(con: duckdb.DuckDBPyConnection) -> None:
    assert _filtered(con, players=2, max_minutes=45, n=10)["u"] == ["g"]  # e has no time
    assert _filtered(con, players=None, max_minutes=None, n=2) == {"u": ["a", "b"], "v": ["g", "a"]}
    rows = recommendations_for(con, "u", players=4, max_minutes=None, n=10)
    assert [r["rank"] for r in rows] == [1, 2]  # renumbered: a member sees 1, 2, … whatever the filter


def test_filter_rejects_nonsense(con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(ValueError):
        recommendations_for(con, "u", n=0)
