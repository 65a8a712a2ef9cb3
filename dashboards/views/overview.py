"""概要 Overview: is the warehouse complete and fresh, and did last night's job pass its checks?

Why this is the first page: before anyone reads a chart they need to know how much data
there is, when the site was last crawled, and whether the nightly run that built the
marts succeeded — a stale or failed night explains most surprising numbers.
"""

from __future__ import annotations

from typing import cast

import altair as alt
import polars as pl
import streamlit as st

from dashboards import ui
from dashboards.charts import show
from dashboards.sql import query
from dashboards.views.data_quality import checks_of_the_night, counted, passed_line


# -- this page's queries ------------------------------------------------------------------

@query
def publication() -> str:
    """Which night the published snapshot holds: run, export, when published, its page ages."""
    return """
        SELECT run_id, export_run_id, published_at, oldest_page_at, newest_page_at
        FROM marts.publication ORDER BY published_at DESC LIMIT 1
    """


@query
def cafe_count() -> str:
    """How many cafes offer games (`n_cafes`)."""
    return "SELECT count(DISTINCT space_slug) AS n_cafes FROM marts.cafe_games"


@query
def crawl_runs(*, limit: int = 30) -> str:
    """The latest crawl runs, newest first, with their duration in seconds."""
    return """
        SELECT run_id, status, started_at, finished_at,
               date_diff('second', started_at, finished_at) AS seconds,
               base_url, stats::VARCHAR AS stats
        FROM raw.crawl_runs
        ORDER BY started_at DESC, run_id DESC
        LIMIT $limit
    """


@query
def pipeline_runs(*, limit: int = 30) -> str:
    """The latest nightly job runs, newest first, with their duration in seconds."""
    return """
        SELECT run_id, job, status, started_at, finished_at,
               date_diff('second', started_at, finished_at) AS seconds,
               n_checks, n_failed_checks
        FROM marts.pipeline_runs
        ORDER BY started_at DESC, run_id DESC
        LIMIT $limit
    """

GOOD, RUNNING, BAD, OTHER = "#2e7d32", "#1565c0", "#c62828", "#9e9e9e"
# Crawl runs say finished/failed/running; Dagster runs SUCCESS/FAILURE/CANCELED/STARTED...
STATUS_COLORS = {
    "finished": GOOD, "succeeded": GOOD, "success": GOOD, "ok": GOOD,
    "running": RUNNING, "started": RUNNING, "starting": RUNNING, "queued": RUNNING, "not_started": RUNNING,
    "failed": BAD, "failure": BAD, "error": BAD, "aborted": BAD, "canceled": BAD, "cancelled": BAD,
}


def status_color(statuses: pl.Series) -> alt.Color:
    """Colour by outcome, with a legend listing only the statuses present."""
    domain = sorted(s for s in statuses.unique().to_list() if s is not None)
    scale = alt.Scale(domain=domain, range=[STATUS_COLORS.get(s.lower(), OTHER) for s in domain])
    return alt.Color("status:N", scale=scale, title="status")


def with_took(runs: pl.DataFrame) -> pl.DataFrame:
    """The runs with `took` ('42 s', '12 min'), said as the CLI says durations (core.ages.took)."""
    return runs.with_columns(pl.col("seconds").map_elements(ui.took, return_dtype=pl.String).alias("took"))


def runs_chart(runs: pl.DataFrame, *, title: str, tooltip: list) -> alt.Chart:
    """One bar per run, oldest left, its height the duration (seconds while every run is
    under two minutes, else minutes) and its colour the outcome."""
    frame = with_took(runs.filter(pl.col("seconds").is_not_null())).sort("started_at")
    started = pl.col("started_at")
    if getattr(frame.schema["started_at"], "time_zone", None):
        started = started.dt.convert_time_zone("UTC")
    in_seconds = frame.height == 0 or cast(float, frame["seconds"].max() or 0) < 120
    frame = frame.with_columns(started.dt.strftime("%m/%d %H:%M").alias("started"),
                               (pl.col("seconds") / (1 if in_seconds else 60)).alias("duration"))
    return (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            x=alt.X("started:O", sort=frame["started"].to_list(), title="started (UTC)", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("duration:Q", title="seconds" if in_seconds else "minutes"),
            color=status_color(frame["status"]),
            tooltip=tooltip + [alt.Tooltip("took:N", title="took")],
        )
        .properties(height=200, title=title)
    )


def main() -> None:
    ui.page("overview", published_night, counts, checks_summary, crawl_freshness, nightly_run)


def published_night(wh: ui.Warehouse) -> None:
    """Which night these pages show, when it was published, and how old its oldest page is."""
    if not wh.rows("marts.publication"):
        st.caption(f"`{wh.path.name}` is not a published night (no marts.publication): it is shown as it is.")
        return
    night = wh.query(publication).row(0, named=True)
    cols = st.columns(3)
    cols[0].metric("公開中の夜 Published night", ui.ago(night["published_at"]), help=f"run {night['run_id']}, "
                   f"export {night['export_run_id'] or '—'}, published {night['published_at']}")
    cols[1].metric("最古のページ Oldest crawled page", ui.ago(night["oldest_page_at"]),
                   help=str(night["oldest_page_at"]))
    cols[2].metric("最新のページ Newest crawled page", ui.ago(night["newest_page_at"]),
                   help=str(night["newest_page_at"]))
    st.caption(f"Showing night `{night['run_id']}`, published {night['published_at']:%Y-%m-%d %H:%M} UTC. "
               "A night that fails publishes nothing: these pages keep the last good one.")


def counts(wh: ui.Warehouse) -> None:
    """Headline counts from the marts (a dash where a table does not exist yet)."""
    tables = wh.tables()
    n_cafes = None
    if tables.get("marts.cafe_games") is not None:
        n_cafes = wh.query(cafe_count)["n_cafes"][0]
    cols = st.columns(5)
    cols[0].metric("ゲーム Games", ui.number(tables.get("marts.games")))
    cols[1].metric("会員 Members", ui.number(tables.get("marts.members")))
    cols[2].metric(
        "コレクション Entries", ui.number(tables.get("marts.collections")), help="Collection rows: one per member and game"
    )
    cols[3].metric("カフェ Cafes", ui.number(n_cafes))
    cols[4].metric("投稿 Posts", ui.number(tables.get("raw.posts")))


def crawl_freshness(wh: ui.Warehouse) -> None:
    """The latest crawl run, and the recent ones as a chart."""
    with ui.section("クロール Crawl freshness"):
        if not wh.require("raw.crawl_runs", what="Crawl runs"):
            return
        runs = wh.query(crawl_runs, limit=30)
        finished = runs.filter(pl.col("finished_at").is_not_null())
        latest = runs.row(0, named=True)
        cols = st.columns(3)
        cols[0].metric(
            "Last crawl finished",
            ui.ago(finished["finished_at"][0]) if finished.height else "never",
            help=str(finished["finished_at"][0]) if finished.height else None,
        )
        cols[1].metric("Latest run status", latest["status"], help=f"run {latest['run_id']}")
        cols[2].metric("Latest run took", ui.took(latest["seconds"]))
        crawl_work(latest["stats"])
        show(
            runs_chart(runs, title="Crawl runs (duration)", tooltip=["run_id", "status", "started_at", "finished_at"]),
            alt_text="Duration of recent crawl runs",
        )
        with st.expander("Recent crawl runs"):
            ui.table(with_took(runs).select("run_id", "status", "started_at", "finished_at", "took", "base_url",
                                            "stats"))


def crawl_work(stats_json: str | None) -> None:
    """What the latest crawl read (issue 11): fetched, 304, skipped, queue left, oldest page."""
    import json

    try:
        stats = json.loads(stats_json or "{}")
    except ValueError:
        stats = {}
    from warehouse.crawl_runs import crawl_figures

    f = crawl_figures(stats)
    cols = st.columns(5)
    cols[0].metric("Pages fetched", f"{f['fetched']:,}", help=f"mode: {f['mode']}")
    cols[1].metric("Not modified (304)", f"{f['not_modified']:,}")
    cols[2].metric("Skipped as unchanged", f"{f['skipped']:,}", help="the directory or catalogue showed them unchanged")
    cols[3].metric("Queue left", f"{f['queue_left']:,}", help="fetched first next night")
    oldest = f["oldest_page_days"]
    cols[4].metric("Oldest page", "—" if oldest is None else f"{float(oldest):.1f} days")


def checks_summary(wh: ui.Warehouse) -> None:
    """The night's checks: the same count, from the same rows, as the data-quality page."""
    with ui.section("チェック Checks"):
        if (frame := checks_of_the_night(wh, what="Checks")) is None:
            return
        failing = frame.filter(~pl.col("passed"))
        cols = st.columns([1, 3])
        cols[0].metric("Checks passed", passed_line(frame),
                       delta=None if not failing.height else f"-{failing.height} failed")
        cols[1].markdown("Failing: " + (", ".join(f"`{n}`" for n in failing["check_name"]) if failing.height
                                        else "none."))
        cols[1].caption(counted(frame))
        st.page_link("views/data_quality.py", label="See data quality", icon=":material/fact_check:")


def nightly_run(wh: ui.Warehouse) -> None:
    """The last nightly job that ended, and the recent runs as a chart.

    A night writes its marts.pipeline_runs row when it starts and is published before it
    ends, so the newest row of the published night is usually that night itself, still
    STARTED: it is named as the night on screen, and the metrics show the last night that
    ended (none on a first night)."""
    with ui.section("夜間ジョブ Last nightly run"):
        if not wh.require("marts.pipeline_runs", what="Nightly runs"):
            return
        runs = wh.query(pipeline_runs, limit=30)
        newest = runs.row(0, named=True)
        ended = runs.filter(pl.col("finished_at").is_not_null())
        if newest["finished_at"] is None:
            st.caption(f"This night (run {newest['run_id']}, started {ui.ago(newest['started_at'])}) was "
                       "published before its run ended; how it ended is in the next night's file.")
        if ended.height:
            last = ended.row(0, named=True)
            cols = st.columns(3)
            cols[0].metric("Status", str(last["status"]), help=f"run {last['run_id']} ({last['job']})")
            cols[1].metric("Finished", ui.ago(last["finished_at"]), help=str(last["finished_at"]))
            cols[2].metric("Took", ui.took(last["seconds"]))
        show(
            runs_chart(runs, title="Nightly runs (duration, coloured by outcome)",
                       tooltip=["run_id", "job", "status", "started_at", "n_checks", "n_failed_checks"]),
            alt_text="Duration and outcome of recent nightly runs",
        )


if __name__ == "__main__":
    main()
