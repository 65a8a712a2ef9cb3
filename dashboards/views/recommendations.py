"""おすすめ Recommendations: how the models score over time, how popular what they
recommend is, and what one member is recommended next to what they already have.

Why popularity bias gets its own section: offline metrics reward recommending the
bestsellers everyone already knows. The share of recommendations that fall in the 10%
most popular games (against the 10% a popularity-blind list would have), and the mean
popularity rank of recommended games against the catalogue's, say how far the
champion is from a bestseller list.
"""

from __future__ import annotations

import altair as alt
import duckdb
import polars as pl
import streamlit as st

from dashboards import ui
from dashboards.charts import show, time_x
from core.statuses import STATUS_LABELS
from dashboards.sql import query, reader
from warehouse.views import UnknownUserError, collection


# -- this page's queries ------------------------------------------------------------------

@query
def model_runs() -> str:
    """Every model run with its offline metrics, oldest first: one row per run and model, on
    the split that named that run's champion (`time`; `random` for runs from before splits)."""
    return """
        SELECT run_id, model, k, ndcg, precision, recall, map, coverage,
               n_users, n_games, n_interactions, trained_at, champion, params::VARCHAR AS params
        FROM marts.model_runs
        QUALIFY split = max(split) OVER (PARTITION BY run_id)  -- 'time' > 'random'
        ORDER BY trained_at, run_id, model
    """


@query
def recommendation_summary() -> str:
    """What the current recommendations are: run, model, members served, catalogue coverage,
    the share in the top-10% most popular games and the mean popularity rank (vs the catalogue's).
    Popularity ranks and deciles come from marts.game_popularity."""
    return """
        WITH recs AS (
            SELECT r.*, p.popularity_decile, p.popularity_rank
            FROM marts.recommendations r LEFT JOIN marts.game_popularity p USING (game_id)
        )
        SELECT string_agg(DISTINCT run_id, ', ') AS run_ids,
               string_agg(DISTINCT model, ', ') AS models,
               max(generated_at) AS generated_at,
               count(*) AS n_recommendations,
               count(DISTINCT user_id) AS n_members,
               count(DISTINCT game_id) AS n_games,
               count(DISTINCT game_id)::DOUBLE / nullif((SELECT count(*) FROM marts.game_popularity), 0)
                   AS catalogue_coverage,
               avg((popularity_decile = 1)::INTEGER) AS share_top10pct,
               avg(popularity_rank) AS mean_rank_recommended,
               ((SELECT count(*) FROM marts.game_popularity) + 1) / 2.0 AS mean_rank_catalogue
        FROM recs
    """


@query
def recommendation_deciles() -> str:
    """Share of recommendations per popularity decile (1 = the 10% most popular games)."""
    return """
        SELECT d.decile, count(r.game_id) AS n_recommendations,
               count(r.game_id)::DOUBLE / nullif(sum(count(r.game_id)) OVER (), 0) AS share
        FROM (SELECT DISTINCT popularity_decile AS decile FROM marts.game_popularity) d
        LEFT JOIN marts.game_popularity g ON g.popularity_decile = d.decile
        LEFT JOIN marts.recommendations r ON r.game_id = g.game_id
        GROUP BY d.decile ORDER BY d.decile
    """


@query
def recommended_members() -> str:
    """Members who have recommendations, with their name when known (`user_id`, `name`, `n_games`)."""
    return """
        SELECT r.user_id, any_value(m.name) AS name, any_value(m.n_games) AS n_games
        FROM (SELECT DISTINCT user_id FROM marts.recommendations) r
        LEFT JOIN marts.members m USING (user_id)
        GROUP BY r.user_id ORDER BY r.user_id
    """


@query
def member_recommendations(*, user_id: str) -> str:
    """One member's recommendations with reasons, game specs and popularity rank."""
    return """
        SELECT r.rank, r.game_id, coalesce(g.name_ja, g.name_en, r.game_id) AS name, r.score, r.reason,
               g.min_players, g.max_players, g.max_minutes, p.popularity_rank, r.model, r.run_id
        FROM marts.recommendations r
        LEFT JOIN marts.games g USING (game_id)
        LEFT JOIN marts.game_popularity p USING (game_id)
        WHERE r.user_id = $user_id
        ORDER BY r.rank
    """


@reader
def member_collection(con: duckdb.DuckDBPyConnection, *, user_id: str) -> pl.DataFrame:
    """One member's collection (warehouse.views.collection): favourites first, then best rated, then name."""
    try:
        rows = collection(con, user_id, sort="name")
    except UnknownUserError:
        rows = []
    columns = ["game_id", "name", "have", "played", "favorite", "watching", "rating", "updated_at"]
    schema = {"game_id": pl.String, "name_ja": pl.String, "name_en": pl.String, "have": pl.Boolean,
              "played": pl.Boolean, "favorite": pl.Boolean, "watching": pl.Boolean, "rating": pl.Int64,
              "updated_at": pl.String}  # the view gives ISO text, as the CLI prints it
    frame = pl.DataFrame([{k: r[k] for k in schema} for r in rows], schema=schema)
    return (
        frame.with_columns(pl.coalesce("name_ja", "name_en", "game_id").alias("name"),
                           pl.col("updated_at").str.to_datetime(time_zone="UTC"))
        .sort(["favorite", "rating", "name", "game_id"], descending=[True, True, False, False], nulls_last=True)
        .select(columns)
    )

METRICS = {"ndcg": "NDCG", "precision": "precision", "recall": "recall", "map": "MAP", "coverage": "coverage"}


def main() -> None:
    ui.page("recommendations", model_history, beyond_accuracy, popularity_bias, explorer)


def model_history(wh: ui.Warehouse) -> None:
    with ui.section("モデルの推移 Model runs over time"):
        if not wh.require("marts.model_runs", what="Model runs"):
            return
        runs = wh.query(model_runs)
        metric = st.segmented_control(
            "Metric", list(METRICS), format_func=METRICS.__getitem__, default="ndcg", key="rec_metric"
        ) or "ndcg"
        k = runs["k"].drop_nulls()
        at_k = f"@{k[0]}" if k.len() else ""
        base = alt.Chart(runs).encode(
            x=time_x("trained_at", "trained (UTC)"),
            y=alt.Y(f"{metric}:Q", title=f"{METRICS[metric]}{at_k if metric != 'coverage' else ''}"),
            color=alt.Color("model:N", title="model"),
            tooltip=["run_id", "model", "trained_at", "champion", alt.Tooltip(f"{metric}:Q", format=".4f"),
                     "n_users", "n_games", "n_interactions"],
        )
        show(
            (base.mark_line(opacity=0.6) + base.mark_point(filled=True).encode(
                size=alt.condition("datum.champion", alt.value(140), alt.value(30)),
                shape=alt.Shape(
                    "champion:N", title="champion", scale=alt.Scale(domain=[True, False], range=["diamond", "circle"])
                ),
            )).properties(height=280),
            alt_text=f"{METRICS[metric]} of each model per run",
        )
        latest = runs.filter(pl.col("run_id") == runs.sort("trained_at")["run_id"][-1]).sort("ndcg", descending=True)
        st.markdown(f"**Latest run `{latest['run_id'][0]}`** — champion: "
                    f"{', '.join(latest.filter(pl.col('champion'))['model'].to_list()) or 'none'}")
        ui.table(latest.drop("params"), hide_index=True)


# -- beyond accuracy (issue 13): its queries live here, with the page ------------------

BEYOND = {
    "long_tail_share": "long-tail share",
    "intra_list_diversity": "intra-list diversity",
    "mean_popularity_rank": "mean popularity rank",
    "rank_stability": "rank stability (Jaccard@10 vs the night before)",
}


def _has(con: duckdb.DuckDBPyConnection, table: str, column: str | None = None) -> bool:
    """Whether marts.<table> (and its column) exists: older warehouses lack both."""
    query = "SELECT 1 FROM information_schema.columns WHERE table_schema = 'marts' AND table_name = ?"
    params = [table]
    if column is not None:
        query += " AND column_name = ?"
        params.append(column)
    return bool(con.execute(query + " LIMIT 1", params).fetchall())


def beyond_accuracy_runs(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every candidate's beyond-accuracy metrics per run and split (empty before they existed)."""
    if not _has(con, "model_runs", "long_tail_share"):
        return pl.DataFrame()
    return con.sql(
        "SELECT run_id, model, split, trained_at, champion, ndcg, long_tail_share, intra_list_diversity, "
        "mean_popularity_rank, rank_stability FROM marts.model_runs "
        "WHERE long_tail_share IS NOT NULL ORDER BY trained_at, run_id, model, split"
    ).pl()


# The member's two shelves (marts.next_to_play, marts.watch_next) and their headings. (A comment,
# not a string under the name: Streamlit's magic writes a page's bare strings onto the page.)
SHELVES = {
    "next_to_play": "Play next (積みゲー): owned, not yet played",
    "watch_next": "From their watch list (興味ありの中からおすすめ): 興味あり, not had or played",
}


def member_shelf(con: duckdb.DuckDBPyConnection, shelf: str, user_id: str) -> pl.DataFrame:
    """One member's list on a shelf (`SHELVES`) with names (empty before the table existed)."""
    if shelf not in SHELVES or not _has(con, shelf):
        return pl.DataFrame()
    return con.sql(
        "SELECT p.rank, coalesce(g.name_ja, g.name_en, p.game_id) AS name, p.reason, p.score, p.game_id "
        f"FROM marts.{shelf} p LEFT JOIN marts.games g USING (game_id) WHERE p.user_id = ? ORDER BY p.rank",
        params=[user_id],
    ).pl()


def beyond_accuracy(wh: ui.Warehouse) -> None:
    with ui.section("精度の先 Beyond accuracy"):
        runs = beyond_accuracy_runs(wh.connection())
        if runs.height == 0:
            st.info("**Beyond-accuracy metrics** will appear here after the next nightly run (`bodoge run`).")
            return
        split = st.segmented_control("Split", ["time", "random"], default="time", key="beyond_split") or "time"
        metric = st.segmented_control(
            "Metric", list(BEYOND), format_func=BEYOND.__getitem__, default="long_tail_share", key="beyond_metric"
        ) or "long_tail_share"
        chosen = runs.filter(pl.col("split") == split)
        base = alt.Chart(chosen).encode(
            x=time_x("trained_at", "trained (UTC)"),
            y=alt.Y(f"{metric}:Q", title=BEYOND[metric]),
            color=alt.Color("model:N", title="model"),
            tooltip=["run_id", "model", "split", "champion", alt.Tooltip(f"{metric}:Q", format=".3f"),
                     alt.Tooltip("ndcg:Q", format=".4f")],
        )
        show((base.mark_line(opacity=0.6) + base.mark_point(filled=True)).properties(height=240),
             alt_text=f"{BEYOND[metric]} of each model per run ({split} split)")
        latest = chosen.filter(pl.col("run_id") == chosen["run_id"][-1])
        trade = alt.Chart(latest).mark_point(filled=True, size=90).encode(
            x=alt.X("long_tail_share:Q", title="long-tail share", axis=alt.Axis(format="%")),
            y=alt.Y("ndcg:Q", title="NDCG@10"),
            color=alt.Color("model:N", title="model"),
            tooltip=["model", alt.Tooltip("ndcg:Q", format=".4f"), alt.Tooltip("long_tail_share:Q", format=".1%")],
        )
        show(trade.properties(height=220), alt_text="Accuracy against long-tail share, latest run")
        st.caption("Long tail: games outside the 10% most popular. Diversity: mean content dissimilarity "
                   "within a list. Stability: overlap with the same model's lists of the night before.")


def popularity_bias(wh: ui.Warehouse) -> None:
    with ui.section("人気への偏り Popularity bias"):
        if not wh.require("marts.recommendations", "marts.game_popularity", what="Popularity bias"):
            return
        s = wh.query(recommendation_summary).row(0, named=True)
        cols = st.columns(4)
        cols[0].metric("Members served", ui.number(s["n_members"]), help=f"run {s['run_ids']}, model {s['models']}")
        cols[1].metric("Catalogue coverage", _pct(s["catalogue_coverage"]),
                       help=f"{ui.number(s['n_games'])} distinct games recommended")
        cols[2].metric("In the top-10% most popular", _pct(s["share_top10pct"]),
                       help="A popularity-blind list would put 10% there.")
        cols[3].metric(
            "Mean popularity rank",
            "—" if s["mean_rank_recommended"] is None else f"{s['mean_rank_recommended']:,.0f}",
            help=f"Catalogue mean: {s['mean_rank_catalogue']:,.0f} (rank 1 = most members have it)",
        )
        if s["mean_rank_recommended"] is not None:
            st.caption(
                f"Recommended games have a mean popularity rank of {s['mean_rank_recommended']:,.0f}; "
                f"a game picked at random from the catalogue, {s['mean_rank_catalogue']:,.0f} "
                "(rank 1 = in the most members' collections)."
            )
        deciles = wh.query(recommendation_deciles)
        bars = alt.Chart(deciles).mark_bar().encode(
            x=alt.X(
                "decile:O", title="popularity decile (1 = the 10% most popular games)", axis=alt.Axis(labelAngle=0)
            ),
            y=alt.Y("share:Q", title="share of recommendations", axis=alt.Axis(format="%")),
            tooltip=["decile", "n_recommendations", alt.Tooltip("share:Q", format=".1%")],
        )
        uniform = (
            alt.Chart(pl.DataFrame({"share": [0.1]})).mark_rule(strokeDash=[4, 4], color="#757575").encode(y="share:Q")
        )
        show((bars + uniform).properties(height=240), alt_text="Share of recommendations per popularity decile")
        st.caption("Dashed line: what a popularity-blind recommender would give each decile.")


def explorer(wh: ui.Warehouse) -> None:
    with ui.section("会員別 Per-member explorer"):
        if not wh.require("marts.recommendations", what="The member explorer"):
            return
        members = wh.query(recommended_members)
        names = dict(zip(members["user_id"].to_list(), members["name"].to_list()))
        sizes = dict(zip(members["user_id"].to_list(), members["n_games"].to_list()))
        user_id = st.selectbox(
            "Member", list(names), key="rec_member",
            format_func=lambda u: f"{names[u] or '(no name)'} — {u} ({sizes[u] or 0} games)",
        )
        if user_id is None:
            return
        left, right = st.columns([3, 2])
        with left:
            recs = wh.query(member_recommendations, user_id=user_id)
            st.markdown(f"**Recommended for {ui.plain(names[user_id] or user_id)}**")
            ui.table(
                recs.select("rank", "name", "reason", "score", "popularity_rank", "min_players", "max_players",
                            "max_minutes", "game_id"),
                hide_index=True,
                column_config={"score": st.column_config.NumberColumn(format="%.3f")},
            )
            for name, heading in SHELVES.items():
                shelf = member_shelf(wh.connection(), name, user_id)
                if shelf.height:
                    st.markdown(f"**{heading}**")
                    ui.table(shelf, hide_index=True,
                             column_config={"score": st.column_config.NumberColumn(format="%.3f")})
        with right:
            st.markdown("**Their collection**")
            if wh.rows("marts.collections") is None:
                st.info("`marts.collections` does not exist yet.")
                return
            owned = wh.query(member_collection, user_id=user_id)
            if owned.height:
                ui.table(
                    owned.select("name", "have", "played", "favorite", "watching", "rating", "game_id"),
                    hide_index=True,
                    column_config={k: st.column_config.CheckboxColumn(v) for k, v in STATUS_LABELS.items()},
                )
            else:
                st.caption("Empty (or private) collection.")


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


if __name__ == "__main__":
    main()
