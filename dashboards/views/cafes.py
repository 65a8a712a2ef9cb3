"""カフェ Cafes: what each board-game cafe offers against what members want to play.

Why "wants" are watching (気になる) and favourite games: those are the games a member
would travel to a cafe for; owned games they can play at home.
"""

from __future__ import annotations

import streamlit as st

from dashboards import queries as q
from dashboards import ui
from dashboards.charts import hbars, show

TOP_N = 15


def main() -> None:
    st.title("カフェ Cafes")
    st.caption("Cafe offers against members' wants (気になる and お気に入り), and the wanted games nobody offers.")
    with ui.warehouse() as wh:
        if not wh.require("marts.cafe_coverage", what="Cafe coverage"):
            return
        coverage(wh)
        per_cafe(wh)
        nowhere(wh)


def coverage(wh: ui.Warehouse) -> None:
    with ui.section("カフェ別カバー率 What each cafe covers"):
        frame = wh.query(q.cafe_coverage)
        show(
            hbars(frame, label="space_name", value="share_of_wants", label_title=None,
                  value_title="share of all members' wants the cafe offers", integer=False, value_format="%",
                  tooltip=["space_name", "space_slug", "n_games", "n_members_served", "n_wanted_games_offered",
                           "n_wants_served", "share_of_wants"]),
            alt_text="Share of members' wants each cafe offers",
        )
        st.dataframe(
            frame, hide_index=True,
            column_config={
                "share_of_wants": st.column_config.ProgressColumn(format="percent", min_value=0, max_value=1)
            },
        )


def per_cafe(wh: ui.Warehouse) -> None:
    with ui.section("カフェの人気ゲーム Most wanted games a cafe offers"):
        if not wh.require("marts.cafe_games", "marts.collections", what="Wanted games per cafe"):
            return
        cafes = wh.query(q.cafe_coverage)
        names = dict(zip(cafes["space_slug"].to_list(), cafes["space_name"].to_list()))
        slug = st.selectbox("Cafe", list(names), format_func=lambda s: f"{names[s]} ({s})", key="cafe_slug")
        if slug is None:
            return
        wanted = wh.query(q.cafe_wanted_games, space_slug=slug, limit=TOP_N)
        if wanted.height:
            show(hbars(wanted, label="name", value="n_wanting", label_title=None, value_title="members wanting it",
                       tooltip=["name", "game_id", "n_wanting", "n_watching", "n_favorite"]),
                 alt_text=f"Most wanted games offered by {names[slug]}")
        else:
            st.info(f"{names[slug]} offers none of the games members want.")


def nowhere(wh: ui.Warehouse) -> None:
    with ui.section("どこにもない Wanted, offered nowhere"):
        if not wh.require("marts.cafe_games", "marts.collections", what="Games no cafe offers"):
            return
        frame = wh.query(q.wanted_nowhere, limit=TOP_N)
        if frame.height:
            show(hbars(frame, label="name", value="n_wanting", label_title=None, value_title="members wanting it",
                       color="#ef6c00"),
                 alt_text="Most wanted games no cafe offers")
        else:
            st.success("Every game a member wants is offered by some cafe.")


if __name__ == "__main__":
    main()
