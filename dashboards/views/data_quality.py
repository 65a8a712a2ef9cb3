"""データ品質 Data quality: pages the crawler could not use, and what the checks found.

Why here and not only in logs: quarantined pages and failing checks are the reasons a
number on another page looks wrong; an analyst should be able to see them, with
examples, without asking an operator for the nightly log.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import cast

import altair as alt
import duckdb
import polars as pl
import streamlit as st

from dashboards import ui
from dashboards.charts import hbars, rows_height, show
from dashboards.sql import query, reader


# -- this page's queries ------------------------------------------------------------------

@query
def quarantine(*, limit: int = 500) -> str:
    """Quarantined pages, newest first."""
    return """
        SELECT url, reason, http_status, run_id, fetched_at, body_sha256
        FROM raw.quarantine ORDER BY fetched_at DESC, url LIMIT $limit
    """


@query
def quarantine_reasons() -> str:
    """Quarantined pages per reason (`reason`, `n_pages`)."""
    return "SELECT reason, count(*) AS n_pages FROM raw.quarantine GROUP BY reason ORDER BY n_pages DESC, reason"


_CHECK_ITEM = '[{"name": "VARCHAR", "asset": "VARCHAR", "passed": "BOOLEAN", "severity": "VARCHAR", "description": "VARCHAR"}]'


@reader
def night_checks(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The checks of the night these pages show: the one count the overview and this page use.

    What is counted: every check the night ran before it was published
    (`marts.publication.checks`: the Dagster asset checks — keys, contract columns, the
    crawl's, the data-quality SQL files, the models'), with the rows each data-quality file
    found failing (`marts.quality_checks`) where it is one. A file that does not record
    them (published by an older version, or a warehouse opened with --warehouse): the
    data-quality checks of `marts.quality_checks` alone. Failures first. Columns:
    check_name, asset, severity (error|warn), passed, n_failures, description, examples,
    checked_at.
    """
    def has(table: str, column: str | None = None) -> bool:
        return bool(con.execute(
            "SELECT count(*) FROM duckdb_columns() WHERE schema_name = 'marts' AND table_name = ? "
            "AND (? IS NULL OR column_name = ?)", [table, column, column]).fetchall()[0][0])

    quality = has("quality_checks")
    failing = ("SELECT check_name, n_failures, description, examples::VARCHAR AS examples FROM marts.quality_checks"
               if quality else "SELECT NULL::VARCHAR AS check_name, NULL::BIGINT AS n_failures, "
                               "NULL::VARCHAR AS description, NULL::VARCHAR AS examples WHERE false")
    recorded = has("publication", "checks") and con.execute(
        "SELECT count(*) FROM marts.publication WHERE checks IS NOT NULL").fetchall()[0][0]
    if recorded:
        sql = f"""
            WITH night AS (
                SELECT published_at, from_json(checks::VARCHAR, '{_CHECK_ITEM}') AS checks
                FROM marts.publication WHERE checks IS NOT NULL ORDER BY published_at DESC LIMIT 1
            ), c AS (SELECT published_at, unnest(checks) AS c FROM night), q AS ({failing})
            SELECT c.c.name AS check_name, c.c.asset AS asset, lower(c.c.severity) AS severity, c.c.passed AS passed,
                   q.n_failures, coalesce(nullif(c.c.description, ''), q.description) AS description, q.examples,
                   c.published_at AS checked_at
            FROM c LEFT JOIN q ON q.check_name = c.c.name
        """
    elif quality:
        sql = """
            SELECT check_name, NULL::VARCHAR AS asset, lower(severity) AS severity, passed, n_failures, description,
                   examples::VARCHAR AS examples, checked_at
            FROM marts.quality_checks
        """
    else:
        return pl.DataFrame(schema={"check_name": pl.String, "asset": pl.String, "severity": pl.String,
                                    "passed": pl.Boolean, "n_failures": pl.Int64, "description": pl.String,
                                    "examples": pl.String, "checked_at": pl.Datetime("us", "UTC")})
    return con.sql(f"SELECT * FROM ({sql}) ORDER BY passed, severity, n_failures DESC NULLS LAST, check_name").pl()


def checks_recorded(wh: ui.Warehouse) -> bool:
    """Whether there are checks to count (a published night's, or data-quality results)."""
    return bool(wh.rows("marts.publication") or wh.rows("marts.quality_checks"))


def passed_line(frame: pl.DataFrame) -> str:
    """`22 / 23` passed: the count both pages show."""
    return f"{frame.filter(pl.col('passed')).height} / {frame.height}"

SEVERITY_COLORS = alt.Scale(domain=["error", "warn"], range=["#c62828", "#ef6c00"])


def counted(frame: pl.DataFrame) -> str:
    """What the count of checks counts, said under it on both pages."""
    if frame.height and frame["asset"].is_null().all():
        return ("Counted: the data-quality checks (one SQL file each in warehouse/sql/checks/); this file does "
                "not record the night's other checks.")
    return ("Counted: every check the night ran before it was published (keys, contract columns, the crawl's, "
            "the data-quality files, the models'); the delivery check runs after it and is recorded with the run.")


def main() -> None:
    ui.page("data-quality", checks, quarantined_pages)


def checks_of_the_night(wh: ui.Warehouse, *, what: str) -> pl.DataFrame | None:
    """The published night's check rows, or None after a note saying what is missing (this
    page and the overview count from the same rows)."""
    frame = wh.query(night_checks)
    if not frame.height:
        wh.require("marts.quality_checks", what=what)
        return None
    return frame


def checks(wh: ui.Warehouse) -> None:
    with ui.section("チェック結果 Check results"):
        if (frame := checks_of_the_night(wh, what="Check results")) is None:
            return
        failed = frame.filter(~pl.col("passed"))
        cols = st.columns(3)
        cols[0].metric("Checks passed", passed_line(frame), help=counted(frame))
        cols[1].metric("Failing", ui.number(failed.height))
        last_checked = cast("datetime | None", frame["checked_at"].max())
        cols[2].metric("Checked", ui.ago(last_checked), help=str(last_checked))
        st.caption(counted(frame))
        chart = frame.with_columns(pl.col("n_failures").fill_null(pl.when(pl.col("passed")).then(0).otherwise(1)))
        order = chart["check_name"].to_list()  # failures first, as the query sorts them
        y = alt.Y("check_name:N", sort=order, axis=alt.Axis(title=None, labelOverlap=False))
        tooltip = ["check_name", "asset", "severity", "passed", "n_failures", "description"]
        failing_bars = alt.Chart(chart.filter(~pl.col("passed"))).mark_bar().encode(
            y=y,
            x=alt.X("n_failures:Q", axis=alt.Axis(title="rows failing (1 for a check that counts no rows)",
                                                   tickMinStep=1, format=",d")),
            color=alt.Color("severity:N", scale=SEVERITY_COLORS, title="severity"),
            tooltip=tooltip,
        )
        passed_marks = alt.Chart(chart.filter(pl.col("passed"))).mark_text(
            align="left", dx=4, color="#2e7d32", fontWeight="bold"
        ).encode(y=y, x=alt.datum(0), text=alt.value("passed"), tooltip=tooltip)
        show((failing_bars + passed_marks).properties(height=rows_height(chart.height)),
             alt_text="Rows failing each check; passing checks marked 'passed'")
        shown = frame.drop("examples", "checked_at")
        ui.table(shown.drop("asset") if shown["asset"].is_null().all() else shown)
        for row in failed.iter_rows(named=True):
            rows = "" if row["n_failures"] is None else \
                f": {row['n_failures']:,} {'row' if row['n_failures'] == 1 else 'rows'}"
            with st.expander(f"{row['severity'].upper()} {row['check_name']}{rows}"):
                st.caption(row["description"] or "")
                examples = _examples(row["examples"])
                if examples.height:
                    ui.table(examples)


def quarantined_pages(wh: ui.Warehouse) -> None:
    with ui.section("隔離ページ Quarantined pages"):
        if wh.rows("raw.quarantine") is None:
            wh.require("raw.quarantine", what="Quarantined pages")
            return
        if wh.rows("raw.quarantine") == 0:
            st.success("No page is quarantined: every page fetched in the last crawls parsed.")
            return
        reasons = wh.query(quarantine_reasons)
        show(hbars(reasons, label="reason", value="n_pages", label_title=None, value_title="pages", color="#6d4c41"),
             alt_text="Quarantined pages per reason")
        ui.table(wh.query(quarantine, limit=500))


def _examples(text: str | None) -> pl.DataFrame:
    """The check's stored examples (a JSON list of {key, detail}) as a small table."""
    try:
        rows = json.loads(text or "[]")
    except json.JSONDecodeError:
        return pl.DataFrame({"examples": [text]})
    return pl.DataFrame(rows) if rows else pl.DataFrame()


if __name__ == "__main__":
    main()
