"""marts.games' filter columns for a hand-made games frame, computed by the real SQL.

Why: the rule for implausible and missing ranges is stated once, in
`warehouse/sql/marts/games.sql`; offline evaluations, benchmarks and model tests build
games frames by hand (or from the sample site's ground truth), so they pass them
through that SQL instead of restating it.
"""

from __future__ import annotations

import duckdb
import polars as pl

from warehouse.build import build_mart, build_staging
from warehouse.raw import RAW_TABLES, RawWriter

RULE_COLUMNS = ("players_from", "players_to", "minutes_to", "players_implausible", "minutes_implausible")


def with_filter_columns(games: pl.DataFrame) -> pl.DataFrame:
    """`games` with marts.games' filter columns (replacing any it had), rows in their order."""
    fields = [name for name in RAW_TABLES["game"].schema if name in games.columns]
    with duckdb.connect() as con:
        writer = RawWriter(con, run_id="rule")
        for row in games.select(fields).unique("game_id", keep="first").iter_rows(named=True):
            writer.add("game", row)
        writer.flush()
        build_staging(con, ["stg_games", "stg_game_summaries"])
        build_mart(con, "games")
        rule = con.sql(f"SELECT game_id, {', '.join(RULE_COLUMNS)} FROM marts.games").pl()
    kept = games.drop([name for name in RULE_COLUMNS if name in games.columns])
    return kept.join(rule, on="game_id", how="left", maintain_order="left")
