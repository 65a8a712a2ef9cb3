"""カフェ Cafes: what each board-game cafe offers against what members want to play.

Why "wants" are watching (興味あり) and favourite games: those are the games a member
would travel to a cafe for; owned games they can play at home.
"""

from __future__ import annotations

import streamlit as st

from dashboards import ui
from dashboards.charts import hbars, show
from dashboards.sql import query


# -- this page's queries ------------------------------------------------------------------

@query
def cafe_coverage() -> str:
    """Each cafe's offer against what members want (marts.cafe_coverage), best first."""
    return """
        SELECT space_slug, coalesce(space_name, space_slug) AS space_name, n_games, n_members_served,
               n_wanted_games_offered, n_wants_served, share_of_wants
        FROM marts.cafe_coverage
        ORDER BY n_wants_served DESC, space_slug
    """


@query
def cafe_wanted_games(*, space_slug: str, limit: int = 20) -> str:
    """The games a cafe offers that most members want (watching or favourite)."""
    return """
        WITH wants AS (
            SELECT game_id, count(*) AS n_wanting,
                   count(*) FILTER (WHERE watching) AS n_watching,
                   count(*) FILTER (WHERE favorite) AS n_favorite
            FROM marts.collections WHERE watching OR favorite GROUP BY game_id
        )
        SELECT cg.game_id, coalesce(g.name_ja, g.name_en, cg.game_id) AS name,
               w.n_wanting, w.n_watching, w.n_favorite
        FROM marts.cafe_games cg
        JOIN wants w USING (game_id)
        LEFT JOIN marts.games g USING (game_id)
        WHERE cg.space_slug = $space_slug
        ORDER BY w.n_wanting DESC, cg.game_id
        LIMIT $limit
    """


@query
def wanted_nowhere(*, limit: int = 20) -> str:
    """The most wanted games that no cafe offers (an opening for cafes)."""
    return """
        SELECT c.game_id, coalesce(any_value(g.name_ja), any_value(g.name_en), c.game_id) AS name,
               count(*) AS n_wanting
        FROM marts.collections c
        LEFT JOIN marts.games g USING (game_id)
        WHERE (c.watching OR c.favorite)
          AND c.game_id NOT IN (SELECT game_id FROM marts.cafe_games)
        GROUP BY c.game_id
        ORDER BY n_wanting DESC, c.game_id
        LIMIT $limit
    """

TOP_N = 15


def main() -> None:
    ui.page(
        "cafes",
        coverage, per_cafe, nowhere,
        requires=("marts.cafe_coverage",), what="Cafe coverage",
    )


def coverage(wh: ui.Warehouse) -> None:
    with ui.section("カフェ別カバー率 What each cafe covers"):
        frame = wh.query(cafe_coverage)
        show(
            hbars(frame, label="space_name", value="share_of_wants", label_title=None,
                  value_title="share of all members' wants the cafe offers", integer=False, value_format="%",
                  tooltip=["space_name", "space_slug", "n_games", "n_members_served", "n_wanted_games_offered",
                           "n_wants_served", "share_of_wants"]),
            alt_text="Share of members' wants each cafe offers",
        )
        ui.table(
            frame, hide_index=True,
            column_config={
                "share_of_wants": st.column_config.ProgressColumn(format="percent", min_value=0, max_value=1)
            },
        )


def per_cafe(wh: ui.Warehouse) -> None:
    with ui.section("カフェの人気ゲーム Most wanted games a cafe offers"):
        if not wh.require("marts.cafe_games", "marts.collections", what="Wanted games per cafe"):
            return
        cafes = wh.query(cafe_coverage)
        names = dict(zip(cafes["space_slug"].to_list(), cafes["space_name"].to_list()))
        slug = st.selectbox("Cafe", list(names), format_func=lambda s: f"{names[s]} ({s})", key="cafe_slug")
        if slug is None:
            return
        wanted = wh.query(cafe_wanted_games, space_slug=slug, limit=TOP_N)
        if wanted.height:
            show(hbars(wanted, label="name", value="n_wanting", label_title=None, value_title="members wanting it",
                       tooltip=["name", "game_id", "n_wanting", "n_watching", "n_favorite"]),
                 alt_text=f"Most wanted games offered by {names[slug]}")
        else:
            st.info(f"{ui.plain(names[slug])} offers none of the games members want.")


def nowhere(wh: ui.Warehouse) -> None:
    with ui.section("どこにもない Wanted, offered nowhere"):
        if not wh.require("marts.cafe_games", "marts.collections", what="Games no cafe offers"):
            return
        frame = wh.query(wanted_nowhere, limit=TOP_N)
        if frame.height:
            show(hbars(frame, label="name", value="n_wanting", label_title=None, value_title="members wanting it",
                       color="#ef6c00"),
                 alt_text="Most wanted games no cafe offers")
        else:
            st.success("Every game a member wants is offered by some cafe.")


if __name__ == "__main__":
    main()
