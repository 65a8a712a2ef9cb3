"""答え合わせ Did the lists come true?: what members did with the lists each night served.

Why beside the offline metrics: the champion is chosen on splits of the data it was trained on,
and offline splits and what members do next often disagree. marts.list_outcomes says, for every
served night, list and window, how many of the members who acted took a game of their served
top 10, against the 10 most-collected games (popularity) and the previous night's champion,
each with its bootstrap 95 % interval, so a reader sees whether a gap is more than noise.
"""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from dashboards import ui
from dashboards.charts import show, time_x
from dashboards.sql import query

LISTS = {"discovery": "Discovery (おすすめ)", "watch_list": "Watch list (興味あり)", "play_next": "Play next (積みゲー)"}
ACTS = {
    "discovery": "added a game to their collection",
    "watch_list": "moved a 興味あり game to 持ってる or 経験あり",
    "play_next": "marked an owned game 経験あり",
}
SERIES = {"hit_rate": "our lists", "popularity": "popularity", "previous": "previous champion"}


# -- this page's queries ------------------------------------------------------------------

@query
def outcomes(*, list_kind: str, nights_after: int) -> str:
    """One list's outcomes per served night, oldest first, with when the night was served."""
    return """
        SELECT o.served_night_id, coalesce(h.recorded_at, o.computed_at) AS served_at, o.outcome_night_id,
               o.served, o.members, o.hits,
               o.hit_rate_at_10 AS hit_rate, o.hit_rate_low, o.hit_rate_high,
               o.popularity_hit_rate_at_10 AS popularity, o.popularity_low, o.popularity_high,
               o.previous_hit_rate_at_10 AS previous, o.previous_low, o.previous_high, o.previous_members
        FROM marts.list_outcomes o LEFT JOIN marts.history_nights h ON h.night_id = o.served_night_id
        WHERE o.list_kind = $list_kind AND o.nights_after = $nights_after
        ORDER BY served_at, o.served_night_id
    """


@query
def windows() -> str:
    """The windows (nights after the served night) that have rows."""
    return "SELECT DISTINCT nights_after FROM marts.list_outcomes ORDER BY nights_after"


def long_form(frame: pl.DataFrame) -> pl.DataFrame:
    """One row per served night and series (ours, popularity, the previous champion): rate, low, high."""
    parts = []
    for series, label in SERIES.items():
        low, high = (f"{series}_low", f"{series}_high") if series != "hit_rate" else ("hit_rate_low", "hit_rate_high")
        parts.append(frame.select(
            "served_night_id", "served_at", "members",
            pl.lit(label).alias("series"), pl.col(series).alias("rate"),
            pl.col(low).alias("low"), pl.col(high).alias("high"),
        ))
    return pl.concat(parts).drop_nulls("rate")


# -- the page ---------------------------------------------------------------------------------

def main() -> None:
    ui.page("outcomes", hit_rates, requires=("marts.list_outcomes",),
            what="What members did with the lists (it needs two nights: the lists, then what members did)")


def hit_rates(wh: ui.Warehouse) -> None:
    with ui.section("ヒット率 Hit rate of the served top 10"):
        left, right = st.columns([3, 2])
        with left:
            kind = st.segmented_control("List", list(LISTS), format_func=LISTS.__getitem__, default="discovery",
                                        key="outcome_list") or "discovery"
        with right:
            choices = wh.query(windows)["nights_after"].to_list() or [1]
            window = st.segmented_control("Window (nights after)", choices, default=choices[0],
                                          key="outcome_window") or choices[0]
        frame = wh.query(outcomes, list_kind=kind, nights_after=int(window))
        if frame.height == 0:
            st.info(f"No {LISTS[kind]} outcomes for a {window}-night window yet.", icon=":material/inbox:")
            return
        last = frame.row(-1, named=True)
        cols = st.columns(4)
        cols[0].metric("Members who acted", ui.number(last["members"]),
                       help=f"of {ui.number(last['served'])} served on night {last['served_night_id']}")
        cols[1].metric("Our top 10", _pct(last["hit_rate"]), help=_interval(last, "hit_rate"))
        cols[2].metric("Popularity", _pct(last["popularity"]), help=_interval(last, "popularity"))
        cols[3].metric("Previous champion", _pct(last["previous"]), help=_interval(last, "previous"))
        series = long_form(frame)
        base = alt.Chart(series).encode(
            x=time_x("served_at", "served night (UTC)"),
            color=alt.Color("series:N", title="list", sort=list(SERIES.values())),
        )
        band = base.mark_area(opacity=0.18).encode(y=alt.Y("low:Q", title="hit rate @10", axis=alt.Axis(format="%")),
                                                   y2="high:Q")
        line = base.mark_line(point=True).encode(
            y="rate:Q",
            tooltip=["served_night_id", "series", "members", alt.Tooltip("rate:Q", format=".1%"),
                     alt.Tooltip("low:Q", format=".1%"), alt.Tooltip("high:Q", format=".1%")],
        )
        show((band + line).properties(height=300),
             alt_text=f"Hit rate of the {LISTS[kind]} top 10 per served night, against popularity")
        st.caption(f"Of the members served a {LISTS[kind]} list who {ACTS[kind]} within {window} night(s), the share "
                   "who took a game of their served top 10; the popularity baseline is the 10 most-collected games "
                   "each could take; bands are bootstrap 95 % intervals (marts.list_outcomes).")
        ui.table(frame, hide_index=True, column_config={
            c: st.column_config.NumberColumn(format="percent") for c in frame.columns
            if c.endswith(("rate", "_low", "_high")) or c in ("popularity", "previous")})


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def _interval(row: dict, series: str) -> str:
    low, high = row[f"{series}_low"], row[f"{series}_high"]
    return "no interval" if low is None else f"95 % interval {low:.1%} to {high:.1%}"


main()
