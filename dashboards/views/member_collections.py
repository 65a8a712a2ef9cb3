"""コレクション Collections: how big members' collections are, what they mark, what they own.

Why by player count and play time: the questions the site team asks of collections are
"do members own games for two?" and "are collections mostly short games?"; these are
the cuts the recommendations' filters (`--players`, `--max-minutes`) use too.

(The file is not named collections.py so it can never shadow the standard library.)
"""

from __future__ import annotations

import altair as alt
import streamlit as st

from dashboards import ui
from dashboards.charts import bars, hbars, show
from core.statuses import STATUS_LABELS
from dashboards.sql import query


# -- this page's queries ------------------------------------------------------------------

@query
def collection_sizes() -> str:
    """How many members have a collection of each size (`n_games`, `n_members`)."""
    return "SELECT n_games, count(*) AS n_members FROM marts.members GROUP BY n_games ORDER BY n_games"


@query
def status_mix() -> tuple[str, dict]:
    """Collection entries per status (`status`, `label`, `n_entries`, `share`); an entry can have several."""
    return """
        WITH counts AS (
            SELECT count(*) AS total,
                   count(*) FILTER (WHERE have) AS have, count(*) FILTER (WHERE played) AS played,
                   count(*) FILTER (WHERE favorite) AS favorite, count(*) FILTER (WHERE watching) AS watching
            FROM marts.collections
        )
        SELECT s.status, s.label, s.n AS n_entries, s.n::DOUBLE / nullif(total, 0) AS share
        FROM counts, LATERAL (VALUES
            ('have', $have, have), ('played', $played, played),
            ('favorite', $favorite, favorite), ('watching', $watching, watching)
        ) s(status, label, n)
    """, dict(STATUS_LABELS)


@query
def status_combinations(*, limit: int = 10) -> tuple[str, dict]:
    """The most common combinations of statuses on one entry (`combination`, `n_entries`)."""
    return """
        SELECT concat_ws(' + ',
                   CASE WHEN have THEN $have END, CASE WHEN played THEN $played END,
                   CASE WHEN favorite THEN $favorite END, CASE WHEN watching THEN $watching END
               ) AS combination,
               count(*) AS n_entries
        FROM marts.collections
        GROUP BY ALL ORDER BY n_entries DESC, combination
        LIMIT $limit
    """, dict(STATUS_LABELS)


@query
def owned_by_players(*, max_players: int = 8) -> str:
    """For N = 1..max_players: owned games playable by N, and members owning at least one."""
    return """
        WITH owned AS (
            SELECT c.user_id, g.players_from, g.players_to
            FROM marts.collections c JOIN marts.games g USING (game_id)
            WHERE c.have
        )
        SELECT n.players, count(o.user_id) AS n_owned, count(DISTINCT o.user_id) AS n_members
        FROM range(1, $max_players + 1) n(players)
        LEFT JOIN owned o ON marts.playable_with(o.players_from, o.players_to, n.players)
        GROUP BY n.players ORDER BY n.players
    """


@query
def owned_by_minutes() -> str:
    """Owned games per play-time bucket (marts.play_time_buckets: `bucket_order`, `bucket`, `n_owned`)."""
    return """
        WITH owned AS (
            SELECT g.minutes_to AS minutes  -- marts.games' rule: NULL when unknown or implausible
            FROM marts.collections c JOIN marts.games g USING (game_id)
            WHERE c.have
        )
        SELECT b.bucket_order, b.bucket, count(o.minutes) AS n_owned
        FROM marts.play_time_buckets b
        LEFT JOIN owned o ON o.minutes BETWEEN b.lo AND b.hi
        GROUP BY ALL ORDER BY b.bucket_order
    """


@query
def collection_summary() -> str:
    """Members with a collection, median and mean size, and the largest collection."""
    return """
        SELECT count(*) FILTER (WHERE n_games > 0) AS members_with_games,
               count(*) FILTER (WHERE n_games = 0) AS members_empty,
               median(n_games) FILTER (WHERE n_games > 0) AS median_size,
               avg(n_games) FILTER (WHERE n_games > 0) AS mean_size,
               max(n_games) AS max_size
        FROM marts.members
    """


def main() -> None:
    ui.page(
        "collections",
        sizes, statuses, owned,
        requires=("marts.members", "marts.collections", "marts.games"), what="Collections",
    )


def sizes(wh: ui.Warehouse) -> None:
    with ui.section("コレクションの大きさ Collection sizes"):
        summary = wh.query(collection_summary).row(0, named=True)
        cols = st.columns(5)
        cols[0].metric("Members with games", ui.number(summary["members_with_games"]))
        cols[1].metric("Empty collections", ui.number(summary["members_empty"]))
        cols[2].metric("Median size", ui.number(summary["median_size"]))
        cols[3].metric("Mean size", "—" if summary["mean_size"] is None else f"{summary['mean_size']:.1f}")
        cols[4].metric("Largest", ui.number(summary["max_size"]))
        frame = wh.query(collection_sizes)
        show(
            alt.Chart(frame).mark_bar().encode(
                x=alt.X("n_games:Q", bin=alt.Bin(maxbins=50), title="games in the collection"),
                y=alt.Y("sum(n_members):Q", title="members"),
                tooltip=[alt.Tooltip("n_games:Q", bin=alt.Bin(maxbins=50), title="games"),
                         alt.Tooltip("sum(n_members):Q", title="members")],
            ).properties(height=260),
            alt_text="Histogram of collection sizes",
        )


def statuses(wh: ui.Warehouse) -> None:
    left, right = st.columns(2)
    with left, ui.section("ステータス Status mix"):
        mix = wh.query(status_mix)
        show(
            bars(mix, x="label", y="n_entries", x_title="status", y_title="entries",
                 sort=mix["label"].to_list(), tooltip=["label", "status", "n_entries",
                                                       alt.Tooltip("share:Q", format=".0%")]),
            alt_text="Collection entries per status",
        )
        st.caption("An entry can carry several statuses, so the bars add up to more than the entries.")
    with right, ui.section("組み合わせ Status combinations"):
        combos = wh.query(status_combinations, limit=10)
        show(hbars(combos, label="combination", value="n_entries", label_title=None, value_title="entries"),
             alt_text="Most common combinations of statuses")


def owned(wh: ui.Warehouse) -> None:
    left, right = st.columns(2)
    with left, ui.section("人数別の所持 Owned, by player count"):
        frame = wh.query(owned_by_players, max_players=8)
        show(bars(frame, x="players", y="n_owned", x_title="players (人)", y_title="owned games playable",
                  tooltip=["players", "n_owned", "n_members"]),
             alt_text="Owned games playable by each number of players")
        best = frame.sort("n_members", descending=True).row(0, named=True) if frame.height else None
        if best:
            st.caption(f"{best['n_members']:,} members own at least one game for {best['players']} players.")
    with right, ui.section("時間別の所持 Owned, by play time"):
        frame = wh.query(owned_by_minutes)
        show(bars(frame, x="bucket", y="n_owned", x_title="longest play time", y_title="owned games",
                  sort=frame["bucket"].to_list(), label_angle=-30, color="#6a1b9a"),
             alt_text="Owned games per play-time bucket")


if __name__ == "__main__":
    main()
