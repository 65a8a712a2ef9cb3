"""カタログ Catalogue: what kinds of games the site lists — player counts, play time, age, year.

Why the exclusions are spelled out: the site publishes some joke or mistaken values
(1人～65536人, year 0). The warehouse keeps them as published and flags them; a chart
drawn with them would be one bar at 65,536, so they are left out of the chart they
would distort, and the page says how many were left out.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from dashboards import queries as q
from dashboards import ui
from dashboards.charts import bars, show


def main() -> None:
    st.title("カタログ Catalogue")
    st.caption("Distributions over the games the site lists; filter by year, mechanics and themes.")
    with ui.warehouse() as wh:
        if not wh.require("marts.games", what="The catalogue"):
            return
        filters = filter_bar(wh)
        distributions(wh, filters)


def filter_bar(wh: ui.Warehouse) -> dict:
    """Year range and mechanics/themes pickers; returns the query parameters they select."""
    bounds = wh.query(q.year_bounds).row(0, named=True)
    facets = wh.query(q.catalogue_facets)
    lo, hi = bounds["min_year"], bounds["max_year"]
    cols = st.columns([2, 3, 3])
    if lo is None or hi is None or lo == hi:
        year_from, year_to, full = lo or 0, hi or 9999, True
        cols[0].caption("No year range to filter on.")
    else:
        year_from, year_to = cols[0].slider("発売年 Year", min_value=lo, max_value=hi, value=(lo, hi), key="cat_years")
        full = (year_from, year_to) == (lo, hi)
    mechanics = cols[1].multiselect(
        "メカニクス Mechanics (any of)",
        facets.filter(pl.col("facet") == "mechanic")["value"].to_list(),
        key="cat_mechanics",
    )
    themes = cols[2].multiselect(
        "テーマ Themes (any of)", facets.filter(pl.col("facet") == "theme")["value"].to_list(), key="cat_themes"
    )
    if not full:
        st.caption("Games without a plausible year are included only while the year filter spans every year.")
    return {"year_from": year_from, "year_to": year_to, "keep_undated": full, "mechanics": mechanics, "themes": themes}


def distributions(wh: ui.Warehouse, filters: dict) -> None:
    """Four distribution charts and the matching games."""
    summary = wh.query(q.catalogue_summary, **filters).row(0, named=True)
    if not summary["n_games"]:
        st.info("No game matches these filters.", icon=":material/filter_alt_off:")
        return
    excluded = {
        "player counts": summary["players_excluded"], "play times": summary["minutes_excluded"],
        "ages": summary["age_excluded"], "years": summary["year_excluded"],
    }
    st.markdown(
        f"**{summary['n_games']:,} games** match. Left out of the charts as implausible "
        "(kept in the warehouse as published, see Data quality): "
        + ", ".join(f"{what} {n:,}" for what, n in excluded.items())
        + "."
    )
    left, right = st.columns(2)
    with left, ui.section("人数 Player count"):
        frame = wh.query(q.players_distribution, **filters)
        show(bars(frame, x="players", y="n_games", x_title="players (人)", y_title="games playable"),
             alt_text="Games playable by each number of players")
        st.caption(f"A game counts for every N it can be played with. {excluded['player counts']:,} excluded.")
    with right, ui.section("プレイ時間 Play time"):
        frame = wh.query(q.minutes_distribution, **filters)
        show(bars(frame, x="bucket", y="n_games", x_title="longest play time", y_title="games",
                  sort=frame["bucket"].to_list(), label_angle=-30), alt_text="Games per play-time bucket")
        st.caption(f"By the longest published time. {excluded['play times']:,} excluded.")
    left, right = st.columns(2)
    with left, ui.section("対象年齢 Minimum age"):
        frame = wh.query(q.age_distribution, **filters)
        show(bars(frame, x="min_age", y="n_games", x_title="minimum age (歳)", y_title="games"),
             alt_text="Games per minimum age")
        st.caption(f"Ages outside {q.AGE_RANGE[0]}–{q.AGE_RANGE[1]}: {excluded['ages']:,} excluded.")
    with right, ui.section("発売年 Year"):
        frame = wh.query(q.year_distribution, **filters)
        show(bars(frame, x="year", y="n_games", x_title="year", y_title="games", x_type="O", every_label=False),
             alt_text="Games per publication year")
        st.caption(f"{excluded['years']:,} implausible years excluded.")
    with ui.section("ゲーム一覧 Matching games"):
        games = wh.query(q.catalogue_games, **filters, limit=500)
        st.caption(f"Most owned first (top {games.height:,} of {summary['n_games']:,}).")
        st.dataframe(games, hide_index=True, height=360)


if __name__ == "__main__":
    main()
