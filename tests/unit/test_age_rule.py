"""One rule for a game's minimum age (対象年齢), whichever path reads it.

The rule is the macro `marts.age_plausible` (warehouse/sql/macros.sql): the quality check
`games_age_range` lists the games it rejects, the dashboard's catalogue leaves them out of
its age chart, and the content model (`models.specs.clean_specs`, frames in memory, no SQL)
treats their age as unknown. These tests hold the Python side to the macro on the same
values, and the SQL readers to the macro itself.
"""

from __future__ import annotations

import math

import duckdb
import polars as pl

from core.ages import MIN_AGE_RANGE
from models.specs import clean_specs
from warehouse.ddl import SQL_DIR

AGES = [None, -5, -1, 0, 1, 3, 8, 12, 18, 20, 24, 25, 26, 30, 99, 100, 120, 200]


def _macros() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute((SQL_DIR / "macros.sql").read_text(encoding="utf-8"))
    return con


def test_the_macro_and_the_content_model_agree_on_every_age() -> None:
    games = pl.DataFrame(
        {"game_id": [f"g{i}" for i in range(len(AGES))], "min_age": AGES,
         "players_from": [None] * len(AGES), "players_to": [None] * len(AGES), "minutes_to": [None] * len(AGES)},
        schema={"game_id": pl.String, "min_age": pl.Int64, "players_from": pl.Int64, "players_to": pl.Int64,
                "minutes_to": pl.Int64},
    )
    con = _macros()
    try:
        con.register("g", games.to_arrow())
        in_sql = dict(con.execute("SELECT game_id, marts.age_plausible(min_age) FROM g").fetchall())
    finally:
        con.close()
    cleaned = clean_specs(games)["min_age"]
    for game_id, age, value in zip(games["game_id"], AGES, cleaned, strict=True):
        known_in_python = not math.isnan(value)
        assert bool(in_sql[game_id]) == known_in_python, (age, in_sql[game_id], value)
        assert not known_in_python or value == age
    assert (in_sql["g0"], in_sql["g1"]) == (None, False)  # unpublished is unknown, not implausible


def test_the_bounds_are_the_macros() -> None:
    youngest, oldest = MIN_AGE_RANGE
    con = _macros()
    try:
        said = [con.execute("SELECT marts.age_plausible(?)", [age]).fetchone()[0]
                for age in (youngest - 1, youngest, oldest, oldest + 1)]
    finally:
        con.close()
    assert said == [False, True, True, False]


def test_every_sql_reader_of_the_age_calls_the_macro() -> None:
    """No SQL compares min_age by hand: the check and the dashboard name the macro."""
    root = SQL_DIR.parent.parent
    check = (SQL_DIR / "checks" / "games_age_range.sql").read_text(encoding="utf-8")
    catalogue = (root / "dashboards" / "views" / "catalogue.py").read_text(encoding="utf-8")
    assert "marts.age_plausible(min_age)" in check
    assert catalogue.count("marts.age_plausible(min_age)") == 2
    for text in (check, catalogue):
        assert "min_age <" not in text and "min_age >" not in text and "min_age BETWEEN" not in text
        assert "min_age NOT BETWEEN" not in text
