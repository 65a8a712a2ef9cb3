"""人気 Popularity: which games members own, play, favour and watch — and how that moves.

Why both numbers side by side: the members' aggregates come from public collections
only, while the site's own counters also count private members. Seeing them together
shows how representative the public collections are, game by game.
"""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from dashboards import ui
from dashboards.charts import ROW_HEIGHT, hbars, paired_hbars, rows_height, show
from core.statuses import STATUS_LABELS
from dashboards.sql import metric_columns, query


# -- this page's queries ------------------------------------------------------------------

# metric -> (members' aggregate column, site counter column, site change column)
POPULARITY_METRICS: dict[str, tuple[str, str, str]] = {
    "have": ("members_have", "site_have", "site_have_change"),
    "played": ("members_played", "site_played", "site_played_change"),
    "favorite": ("members_favorite", "site_favorite", "site_favorite_change"),
    "watching": ("members_watching", "site_watching", "site_watching_change"),
}


def _members_and_site(metric: str) -> tuple[str, str, str]:
    """(members' column, site column, SELECT of both per game) for a metric's constant columns."""
    members_col, site_col, _ = metric_columns(metric, POPULARITY_METRICS)
    return members_col, site_col, f"""
        SELECT game_id, coalesce(name_ja, name_en, game_id) AS name,
               {members_col} AS members, {site_col} AS site
        FROM marts.game_popularity
    """


@query
def top_games(*, metric: str, limit: int = 20) -> str:
    """Games with most members' `metric` (have/played/favorite/watching), next to the site's counter."""
    members_col, _, select = _members_and_site(metric)
    return f"{select} ORDER BY {members_col} DESC, game_id LIMIT $limit"


@query
def members_vs_site(*, metric: str) -> str:
    """Every game's members' aggregate against the site's counter (for a scatter plot)."""
    _, site_col, select = _members_and_site(metric)
    return f"{select} WHERE {site_col} IS NOT NULL"


@query
def wanted_not_owned(*, limit: int = 20) -> str:
    """Games most members watch (興味あり) without owning them."""
    return """
        SELECT game_id, coalesce(name_ja, name_en, game_id) AS name, wanted_not_owned,
               members_watching, members_have
        FROM marts.game_popularity
        WHERE wanted_not_owned > 0
        ORDER BY wanted_not_owned DESC, game_id
        LIMIT $limit
    """


@query
def counter_changes(*, metric: str, limit: int = 20) -> str:
    """Games whose site counter moved most since the previous crawl (`change`, `site`)."""
    _, site_col, change_col = metric_columns(metric, POPULARITY_METRICS)
    return f"""
        SELECT game_id, coalesce(name_ja, name_en, game_id) AS name,
               {change_col} AS change, {site_col} AS site
        FROM marts.game_popularity
        WHERE {change_col} IS NOT NULL AND {change_col} <> 0
        ORDER BY abs({change_col}) DESC, {change_col} DESC, game_id
        LIMIT $limit
    """

TOP_N = 15


def main() -> None:
    ui.page(
        "popularity",
        by_status,
        requires=("marts.game_popularity",), what="Popularity",
    )


def by_status(wh: ui.Warehouse) -> None:
    """Every section of this page follows the status picked at its top."""
    metric = st.radio(
        "Status", list(POPULARITY_METRICS), format_func=lambda m: f"{STATUS_LABELS[m]} ({m})",
        horizontal=True, key="pop_metric",
    )
    label = STATUS_LABELS[metric]
    left, right = st.columns(2)
    with left, ui.section(f"最多「{label}」 Most {metric}"):
        top = wh.query(top_games, metric=metric, limit=TOP_N)
        show(paired_hbars(top, label="name", columns={"members": "members (public)", "site": "site counter"},
                          value_title="count", label_title=None),
             alt_text=f"Games with most members' {metric}, against the site's counter")
    with right, ui.section("会員 vs サイト Members vs the site"):
        scatter = wh.query(members_vs_site, metric=metric)
        if scatter.height:
            peak = int(max(scatter.select(pl.col("members", "site").max().fill_null(0)).row(0)))
            diagonal = alt.Chart(
                alt.Data(values=[{"members": 0, "site": 0}, {"members": peak, "site": peak}])
            ).mark_line(strokeDash=[4, 4], color="#757575").encode(x="members:Q", y="site:Q")
            points = alt.Chart(scatter).mark_circle(size=28, opacity=0.6).encode(
                x=alt.X("members:Q", title=f"members' {metric} (public collections)"),
                y=alt.Y("site:Q", title=f"site counter ({label})"),
                tooltip=["name", "game_id", "members", "site"],
            )
            show((diagonal + points).properties(height=40 + rows_height(TOP_N, per_row=2 * ROW_HEIGHT - 8)),
                 alt_text="Members' aggregate against the site's counter, one point per game")
            st.caption("Dashed: site counter = members' count. The gap above it is private members "
                       "(and members not crawled yet).")
        else:
            st.info("No game page with the site's counters has been crawled yet.")
    left, right = st.columns(2)
    with left, ui.section("興味あり・未所持 Wanted but not owned"):
        wanted = wh.query(wanted_not_owned, limit=TOP_N)
        if wanted.height:
            show(hbars(wanted, label="name", value="wanted_not_owned", label_title=None,
                       value_title="members watching, not owning",
                       tooltip=["name", "wanted_not_owned", "members_watching", "members_have"],
                       color="#ef6c00"),
                 alt_text="Games most watched by members who do not own them")
        else:
            st.info("No member watches a game they do not own.")
    with right, ui.section("前回からの変化 Change since the last crawl"):
        changes = wh.query(counter_changes, metric=metric, limit=TOP_N)
        if changes.height:
            show(
                alt.Chart(changes).mark_bar().encode(
                    y=alt.Y("name:N", sort=changes["name"].to_list(),
                            axis=alt.Axis(title=None, labelOverlap=False)),
                    x=alt.X("change:Q", title=f"change of the site's {label} counter",
                            axis=alt.Axis(tickMinStep=1, format=",d")),
                    color=alt.condition("datum.change > 0", alt.value("#2e7d32"), alt.value("#c62828")),
                    tooltip=["name", "game_id", "change", "site"],
                ).properties(height=rows_height(changes.height)),
                alt_text="Largest changes of the site's counter since the previous crawl",
            )
        else:
            st.info("No change to show: the counters need two crawls, or nothing moved.",
                    icon=":material/history:")


if __name__ == "__main__":
    main()
