"""データ品質 Data quality: pages the crawler could not use, and what the checks found.

Why here and not only in logs: quarantined pages and failing checks are the reasons a
number on another page looks wrong; an analyst should be able to see them, with
examples, without asking an operator for the nightly log.
"""

from __future__ import annotations

import json

import altair as alt
import polars as pl
import streamlit as st

from dashboards import ui
from dashboards.charts import hbars, rows_height, show
from dashboards.sql import query


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


@query
def quality_checks() -> str:
    """The latest data-quality check results, failures first."""
    return """
        SELECT check_name, severity, passed, n_failures, description, examples::VARCHAR AS examples, checked_at
        FROM marts.quality_checks
        ORDER BY passed, severity, n_failures DESC, check_name
    """

SEVERITY_COLORS = alt.Scale(domain=["error", "warn"], range=["#c62828", "#ef6c00"])


def main() -> None:
    ui.page("data-quality", checks, quarantined_pages)


def checks(wh: ui.Warehouse) -> None:
    with ui.section("チェック結果 Check results"):
        if not wh.require("marts.quality_checks", what="Check results"):
            return
        frame = wh.query(quality_checks)
        failed = frame.filter(~pl.col("passed"))
        cols = st.columns(3)
        cols[0].metric("Checks", ui.number(frame.height))
        cols[1].metric("Failing", ui.number(failed.height))
        cols[2].metric("Checked", ui.ago(frame["checked_at"].max()), help=str(frame["checked_at"].max()))
        order = frame["check_name"].to_list()  # failures first, as the query sorts them
        y = alt.Y("check_name:N", sort=order, axis=alt.Axis(title=None, labelOverlap=False))
        tooltip = ["check_name", "severity", "passed", "n_failures", "description"]
        failing_bars = alt.Chart(frame.filter(~pl.col("passed"))).mark_bar().encode(
            y=y,
            x=alt.X("n_failures:Q", axis=alt.Axis(title="rows failing", tickMinStep=1, format=",d")),
            color=alt.Color("severity:N", scale=SEVERITY_COLORS, title="severity"),
            tooltip=tooltip,
        )
        passed_marks = alt.Chart(frame.filter(pl.col("passed"))).mark_text(
            align="left", dx=4, color="#2e7d32", fontWeight="bold"
        ).encode(y=y, x=alt.datum(0), text=alt.value("passed"), tooltip=tooltip)
        show((failing_bars + passed_marks).properties(height=rows_height(frame.height)),
             alt_text="Rows failing each data-quality check; passing checks marked 'passed'")
        st.dataframe(frame.drop("examples"), hide_index=True)
        for row in failed.iter_rows(named=True):
            with st.expander(f"{row['severity'].upper()} {row['check_name']}: {row['n_failures']:,} "
                             f"{'row' if row['n_failures'] == 1 else 'rows'}"):
                st.caption(row["description"])
                examples = _examples(row["examples"])
                if examples.height:
                    st.dataframe(examples, hide_index=True)


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
        st.dataframe(wh.query(quarantine, limit=500), hide_index=True)


def _examples(text: str | None) -> pl.DataFrame:
    """The check's stored examples (a JSON list of {key, detail}) as a small table."""
    try:
        rows = json.loads(text or "[]")
    except json.JSONDecodeError:
        return pl.DataFrame({"examples": [text]})
    return pl.DataFrame(rows) if rows else pl.DataFrame()


if __name__ == "__main__":
    main()
