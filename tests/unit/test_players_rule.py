"""One rule for "playable with N players" and "fits in M minutes", whichever path answers.

`bodoge collection --players N` and `bodoge recommend --players N` answer from SQL
(`warehouse.views`, the macros of warehouse/sql/macros.sql); when the stored list is too
thin, `bodoge recommend` re-ranks once with the saved champion and reads that list through
the same SQL. Over every game of a generated sample site, plus hand-made edge cases (a
missing maximum, a missing minimum, a backwards range, a time beyond a day), all paths must
keep exactly the same games, and those are the games marts.games' filter columns say.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import polars as pl
import pytest

from models.discovery.run import discover
from models.discovery.serving import score_user_on_the_fly
from warehouse.db import connect
from warehouse.views import collection, recommendations_for
from tests.support.players_rule import DISCOVERER, EDGES, EVERYTHING, OWN, _expected, warehouse  # noqa: F401 - warehouse is a fixture

PLAYERS = [None, *range(1, 13), 50, 100, 101]
MINUTES = [None, 5, 10, 30, 45, 60, 24 * 60]


def test_the_site_has_the_cases_that_used_to_disagree(warehouse: Path) -> None:
    with connect(warehouse, read_only=True) as con:
        implausible, single, unknown_time = con.execute(
            "SELECT count(*) FILTER (WHERE players_implausible), count(*) FILTER (WHERE min_players = max_players), "
            "count(*) FILTER (WHERE minutes_to IS NULL AND min_minutes IS NOT NULL) FROM marts.games"
        ).fetchone()
    assert implausible >= 2 and single >= 1 and unknown_time >= 1


@pytest.mark.parametrize("players", PLAYERS)
def test_the_collection_and_the_stored_list_keep_the_same_games(warehouse: Path, players: int | None) -> None:
    with connect(warehouse, read_only=True) as con:
        games = con.sql("SELECT * FROM marts.games").pl()
        n = games.height
        in_collection = {r["game_id"] for r in collection(con, EVERYTHING, players=players)}
        assert players is not None or len(in_collection) == n
        for minutes in MINUTES:
            expected = _expected(games, players, minutes)
            sql = {r["game_id"] for r in recommendations_for(con, DISCOVERER, n=n, players=players, max_minutes=minutes)}
            recommendable = expected - {OWN}
            assert sql == recommendable, (players, minutes, sorted(sql ^ recommendable))
            if minutes is None:
                assert in_collection == expected


def test_what_the_rule_says_about_the_edges(warehouse: Path) -> None:
    con = connect(warehouse, read_only=True)

    def playable(n: int) -> set[str]:
        return {r["game_id"] for r in collection(con, EVERYTHING, players=n) if r["game_id"].startswith("edge-")}

    def fits(m: int) -> set[str]:
        rows = recommendations_for(con, DISCOVERER, n=10_000, max_minutes=m)
        return {r["game_id"] for r in rows if r["game_id"].startswith("edge-")}

    try:
        assert playable(2) == {"edge-min-only", "edge-long", "edge-hundred"}
        assert playable(3) == {"edge-long", "edge-hundred"}
        assert playable(100) == {"edge-hundred"}
        assert fits(30) == {"edge-min-only", "edge-any-number", "edge-hundred"}  # any-number: only its players are unknown
        assert fits(24 * 60) == {"edge-min-only", "edge-max-only", "edge-any-number", "edge-hundred"}
        shown = {r["game_id"]: r for r in collection(con, EVERYTHING, sort="players")}
        assert (shown["edge-any-number"]["min_players"], shown["edge-any-number"]["max_players"]) == (1, 65536)
    finally:
        con.close()


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


@pytest.mark.parametrize(("players", "minutes"), [(2, None), (8, None), (4, 30), (None, 45)])
def test_the_champion_re_ranking_keeps_the_same_games(warehouse: Path, champion: Path, players, minutes) -> None:
    """`bodoge recommend`'s model path: the whole catalogue re-ranked, read through the same SQL."""
    with connect(warehouse, read_only=True) as con:
        games = con.sql("SELECT * FROM marts.games").pl()
        mine = con.sql("SELECT * FROM marts.collections WHERE user_id = ?", params=[DISCOVERER]).pl()
        everything = score_user_on_the_fly(champion, DISCOVERER, collection=mine)
        shown = recommendations_for(con, DISCOVERER, n=games.height, players=players, max_minutes=minutes,
                                    reranked=everything.to_arrow())
    assert {r["game_id"] for r in shown} == _expected(games, players, minutes) - {OWN}


def test_the_macros_say_the_rule_on_every_case() -> None:
    """marts.playable_with / marts.fits_in (warehouse/sql/macros.sql) on every shape a range can
    take, NULLs included: a NULL never matches the filter that needs it."""
    import duckdb

    from warehouse.ddl import SQL_DIR

    values = [None, 0, 1, 2, 3, 4, 30, 60, 100]
    games = pl.DataFrame(
        [{"game_id": f"{a}-{b}-{m}", "players_from": a, "players_to": b, "minutes_to": m}
         for a in values for b in values for m in values],
        schema={"game_id": pl.String, "players_from": pl.Int64, "players_to": pl.Int64, "minutes_to": pl.Int64},
    )
    con = duckdb.connect()
    con.execute((SQL_DIR / "macros.sql").read_text(encoding="utf-8"))
    con.register("g", games.to_arrow())
    for players, minutes in [(1, None), (2, None), (4, 30), (None, 60), (3, 0), (None, None)]:
        where = " AND ".join(
            ([f"marts.playable_with(players_from, players_to, {players})"] if players is not None else [])
            + ([f"marts.fits_in(minutes_to, {minutes})"] if minutes is not None else [])) or "true"
        in_sql = {r[0] for r in con.execute(f"SELECT game_id FROM g WHERE {where}").fetchall()}
        by_hand = {
            g["game_id"] for g in games.iter_rows(named=True)
            if (players is None or None not in (g["players_from"], g["players_to"])
                and g["players_from"] <= players <= g["players_to"])
            and (minutes is None or g["minutes_to"] is not None and g["minutes_to"] <= minutes)
        }
        assert in_sql == by_hand, (players, minutes)
    con.close()


def test_the_published_night_carries_the_rule_macros(warehouse: Path) -> None:
    import duckdb

    with duckdb.connect(str(warehouse.parent / "published.duckdb"), read_only=True) as con:
        rows = con.execute("SELECT function_name, comment FROM duckdb_functions() "
                           "WHERE schema_name = 'marts' AND function_type = 'macro' ORDER BY 1").fetchall()
        playable = con.execute("SELECT count(*) FROM marts.games g "
                               "WHERE marts.playable_with(g.players_from, g.players_to, 2)").fetchall()[0][0]
        by_hand = con.execute("SELECT count(*) FROM marts.games g "
                              "WHERE g.players_from <= 2 AND 2 <= g.players_to").fetchall()[0][0]
    assert [name for name, _ in rows] == ["age_plausible", "bgg_poll_says", "fits_in", "playable_with"]
    assert all(comment for _, comment in rows)
    assert playable == by_hand > 0
