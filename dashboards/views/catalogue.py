"""カタログ Catalogue: what kinds of games the site lists — player counts, play time, age, year.

Why the exclusions are spelled out: the site publishes some joke or mistaken values
(1人～65536人, year 0). The warehouse keeps them as published and flags them; a chart
drawn with them would be one bar at 65,536, so they are left out of the chart they
would distort, and the page says how many were left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl
import streamlit as st

from core.ages import MIN_AGE_RANGE
from dashboards import ui
from dashboards.charts import bars, show
from dashboards.sql import Query, query


# -- this page's queries ------------------------------------------------------------------

# The catalogue filters, shared by every catalogue query. A game without a plausible
# year is kept only while the year filter spans everything ($keep_undated).
_FILTERED = """
WITH filtered AS (
    SELECT * FROM marts.games
    WHERE (year BETWEEN $year_from AND $year_to AND NOT year_implausible
           OR ($keep_undated AND (year IS NULL OR year_implausible)))
      AND (len($mechanics::VARCHAR[]) = 0 OR list_has_any(mechanics, $mechanics::VARCHAR[]))
      AND (len($themes::VARCHAR[]) = 0 OR list_has_any(themes, $themes::VARCHAR[]))
)
"""


@query
def catalogue_facets() -> str:
    """Mechanics and themes with how many games carry each (`facet`, `value`, `n_games`)."""
    return """
        SELECT 'mechanic' AS facet, m AS value, count(*) AS n_games
        FROM (SELECT unnest(mechanics) AS m FROM marts.games) GROUP BY m
        UNION ALL
        SELECT 'theme', t, count(*) FROM (SELECT unnest(themes) AS t FROM marts.games) GROUP BY t
        ORDER BY facet, n_games DESC, value
    """


@query
def year_bounds() -> str:
    """The earliest and latest plausible publication years (`min_year`, `max_year`)."""
    return ("SELECT min(year) AS min_year, max(year) AS max_year FROM marts.games "
            "WHERE year IS NOT NULL AND NOT year_implausible")


@query
def catalogue_summary(*, year_from: int, year_to: int, keep_undated: bool, mechanics: list[str],
                      themes: list[str]) -> str:
    """Games matching the filters, and how many of them each chart leaves out as implausible."""
    return _FILTERED + """
        SELECT count(*) AS n_games,
               count(*) FILTER (WHERE players_implausible) AS players_excluded,
               count(*) FILTER (WHERE minutes_implausible) AS minutes_excluded,
               count(*) FILTER (WHERE NOT marts.age_plausible(min_age)) AS age_excluded,
               count(*) FILTER (WHERE year_implausible) AS year_excluded
        FROM filtered
    """


@query
def players_distribution(*, year_from: int, year_to: int, keep_undated: bool, mechanics: list[str],
                         themes: list[str], max_players: int = 10) -> str:
    """For N = 1..max_players, how many games can be played by N people (`players`, `n_games`)."""
    return _FILTERED + """
        SELECT n.players, count(f.game_id) AS n_games
        FROM range(1, $max_players + 1) n(players)
        LEFT JOIN filtered f
          ON marts.playable_with(f.players_from, f.players_to, n.players)
        GROUP BY n.players ORDER BY n.players
    """


@query
def minutes_distribution(*, year_from: int, year_to: int, keep_undated: bool, mechanics: list[str],
                         themes: list[str]) -> str:
    """Games per play-time bucket (marts.play_time_buckets), implausible times left out."""
    return _FILTERED + """
        SELECT b.bucket_order, b.bucket, count(f.game_id) AS n_games
        FROM marts.play_time_buckets b
        LEFT JOIN filtered f
          ON f.minutes_to BETWEEN b.lo AND b.hi  -- marts.games' rule: NULL when unknown or implausible
        GROUP BY ALL ORDER BY b.bucket_order
    """


@query
def age_distribution(*, year_from: int, year_to: int, keep_undated: bool, mechanics: list[str],
                     themes: list[str]) -> str:
    """Games per minimum age (`min_age`, `n_games`), ages no game has (marts.age_plausible) left out."""
    return _FILTERED + """
        SELECT min_age, count(*) AS n_games FROM filtered
        WHERE marts.age_plausible(min_age)
        GROUP BY min_age ORDER BY min_age
    """


@query
def year_distribution(*, year_from: int, year_to: int, keep_undated: bool, mechanics: list[str],
                      themes: list[str]) -> str:
    """Games per publication year (`year`, `n_games`), implausible years left out."""
    return _FILTERED + """
        SELECT year, count(*) AS n_games FROM filtered
        WHERE year IS NOT NULL AND NOT year_implausible
        GROUP BY year ORDER BY year
    """


@query
def catalogue_games(*, year_from: int, year_to: int, keep_undated: bool, mechanics: list[str],
                    themes: list[str], limit: int = 500, bgg: bool = False) -> str:
    """The matching games themselves, most owned first (for a table under the charts).

    With `bgg` (the night holds marts.bgg_games), the box's player range stands beside the
    counts BoardGameGeek's community poll calls best and recommended, where a thing matched.
    """
    poll = ("b.best_players AS best_players, b.recommended_players AS recommended_players"
            if bgg else "NULL::INTEGER[] AS best_players, NULL::INTEGER[] AS recommended_players")
    joined = "LEFT JOIN marts.bgg_games b ON b.game_id = f.game_id AND NOT b.is_expansion" if bgg else ""
    return _FILTERED + f"""
        SELECT f.game_id, f.name_ja, f.name_en, f.min_players, f.max_players, {poll}, f.min_minutes,
               f.max_minutes, f.min_age, f.year, f.mechanics, f.themes, f.n_have,
               f.players_implausible OR f.minutes_implausible OR f.year_implausible AS implausible
        FROM filtered f {joined}
        ORDER BY n_have DESC NULLS LAST, f.game_id
        LIMIT $limit
    """


POLL_COLUMNS = ("best_players", "recommended_players")


def without_empty_poll(games: pl.DataFrame) -> tuple[pl.DataFrame, str]:
    """The games without BoardGameGeek's poll columns when none of them has poll data (a night
    without BGG facts showed two columns of None), and the caption's note saying so."""
    present = [c for c in POLL_COLUMNS if c in games.columns]
    if not present or any(games.get_column(c).null_count() < games.height for c in present):
        return games, ""
    return games.drop(present), " No BGG data: BoardGameGeek's best/recommended columns are hidden (docs/bgg.md)."


def main() -> None:
    ui.page(
        "catalogue",
        lambda wh: distributions(wh, filter_bar(wh)),
        requires=("marts.games",), what="The catalogue",
    )


def filter_bar(wh: ui.Warehouse) -> dict:
    """Year range and mechanics/themes pickers; returns the query parameters they select."""
    bounds = wh.query(year_bounds).row(0, named=True)
    facets = wh.query(catalogue_facets)
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


@dataclass(frozen=True, kw_only=True)
class Distribution:
    """One distribution chart of the page: games per value of one column of marts.games.

    Why a table of these: the four charts are drawn the same way (a titled section, the
    query under the page's filters, bars, and a note with how many implausible values
    were left out), so they differ only in this data."""

    title: str
    query: Query
    x: str
    x_title: str
    y_title: str = "games"
    alt_text: str
    note: str
    """The caption under the chart; ``{n}`` is how many games were left out of it."""
    excluded: str
    """Which count of ``catalogue_summary`` is this chart's ``{n}``."""
    in_row_order: bool = False
    """Keep the query's row order on the axis (buckets), instead of sorting the values."""
    bar_options: dict[str, Any] = field(default_factory=dict)

    def draw(self, wh: ui.Warehouse, filters: dict, n_excluded: int) -> None:
        """The section: the chart, then its note."""
        with ui.section(self.title):
            frame = wh.query(self.query, **filters)
            sort = frame[self.x].to_list() if self.in_row_order else None
            show(bars(frame, x=self.x, y="n_games", x_title=self.x_title, y_title=self.y_title, sort=sort,
                      **self.bar_options), alt_text=self.alt_text)
            st.caption(self.note.format(n=n_excluded))


DISTRIBUTIONS = (
    Distribution(title="人数 Player count", query=players_distribution, x="players", x_title="players (人)",
                 y_title="games playable", alt_text="Games playable by each number of players",
                 note="A game counts for every N it can be played with. {n:,} excluded.", excluded="player counts"),
    Distribution(title="プレイ時間 Play time", query=minutes_distribution, x="bucket", x_title="longest play time",
                 alt_text="Games per play-time bucket", note="By the longest published time. {n:,} excluded.",
                 excluded="play times", in_row_order=True, bar_options={"label_angle": -30}),
    Distribution(title="対象年齢 Minimum age", query=age_distribution, x="min_age", x_title="minimum age (歳)",
                 alt_text="Games per minimum age", excluded="ages",
                 note=f"Ages outside {MIN_AGE_RANGE[0]}–{MIN_AGE_RANGE[1]}: {{n:,}} excluded."),
    Distribution(title="発売年 Year", query=year_distribution, x="year", x_title="year",
                 alt_text="Games per publication year", note="{n:,} implausible years excluded.", excluded="years",
                 bar_options={"x_type": "O", "every_label": False}),
)


def distributions(wh: ui.Warehouse, filters: dict) -> None:
    """Four distribution charts and the matching games."""
    summary = wh.query(catalogue_summary, **filters).row(0, named=True)
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
    for pair in (DISTRIBUTIONS[:2], DISTRIBUTIONS[2:]):
        for column, chart in zip(st.columns(2), pair, strict=True):
            with column:
                chart.draw(wh, filters, excluded[chart.excluded])
    with ui.section("ゲーム一覧 Matching games"):
        games = wh.query(catalogue_games, **filters, limit=500, bgg=bool(wh.rows("marts.bgg_games")))
        games, note = without_empty_poll(games)
        st.caption(f"Most owned first (top {games.height:,} of {summary['n_games']:,}).{note}")
        ui.table(games, hide_index=True, height=360)


if __name__ == "__main__":
    main()
