"""The overview page under AppTest: its counts against the warehouse, durations as people
read them, and which night it says it shows (the published night's own run, its checks)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb
import streamlit as st
from tests.support.apptest_pages import assert_clean, copy_with, metrics_of, open_page, texts
from tests.support.dashboard_warehouse import DashboardWarehouse
from streamlit.testing.v1 import AppTest

from dashboards.views import PAGES, page_spec


def _overview_of_a_copy(
    dashboard_warehouse: DashboardWarehouse, use_warehouse: Callable[[Path], None], tmp_path: Path, *edits: str
) -> AppTest:
    """The overview page, drawn on a copy of the fixture's warehouse changed by `edits` (SQL)."""
    use_warehouse(copy_with(dashboard_warehouse, tmp_path, *edits))
    st.cache_data.clear()
    at = open_page(PAGES[0])
    assert_clean(at)
    return at


def _scalar(path: Path, sql: str) -> tuple:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute(sql).fetchone()


def test_overview_counts_match_the_warehouse(
    dashboard_warehouse: DashboardWarehouse, use_warehouse: Callable[[Path], None]
) -> None:
    use_warehouse(dashboard_warehouse.path)
    at = open_page(PAGES[0])
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["ゲーム Games"] == f"{dashboard_warehouse.n_games:,}"
    assert metrics["会員 Members"] == f"{dashboard_warehouse.n_members:,}"
    assert metrics["コレクション Entries"] == f"{dashboard_warehouse.n_collection_rows:,}"
    assert metrics["Latest run status"] == "finished"
    assert (metrics["Pages fetched"], metrics["Not modified (304)"], metrics["Skipped as unchanged"],
            metrics["Queue left"], metrics["Oldest page"]) == ("449", "37", "1,800", "3", "2.5 days")
    checks = _scalar(
        dashboard_warehouse.path, "SELECT count(*), count(*) FILTER (WHERE passed) FROM marts.quality_checks"
    )
    assert metrics["Status"] == "SUCCESS"
    # One count of checks: without a published night's record, the data-quality checks, on both pages.
    assert metrics["Checks passed"] == f"{checks[1]} / {checks[0]}"
    quality = metrics_of(open_page(page_spec("data-quality")))
    assert quality["Checks passed"] == metrics["Checks passed"]
    assert metrics["Latest run took"] == "42 min" and metrics["Took"] == "1 h 13 min"  # the fixture's runs


def test_durations_under_a_minute_are_in_seconds(
    dashboard_warehouse: DashboardWarehouse, use_warehouse: Callable[[Path], None], tmp_path: Path
) -> None:
    at = _overview_of_a_copy(dashboard_warehouse, use_warehouse, tmp_path,
                             "UPDATE raw.crawl_runs SET finished_at = started_at + INTERVAL 42 SECOND",
                             "UPDATE marts.pipeline_runs SET finished_at = started_at + INTERVAL 95 SECOND")
    metrics = metrics_of(at)
    assert (metrics["Latest run took"], metrics["Took"]) == ("42 s", "1 min 35 s")
    crawl_runs = next(df.value for df in at.dataframe if "took" in df.value.columns)
    assert set(crawl_runs["took"]) == {"42 s"} and "seconds" not in crawl_runs.columns


def test_the_published_nights_own_run_is_named_and_the_last_ended_night_is_shown(
    dashboard_warehouse: DashboardWarehouse, use_warehouse: Callable[[Path], None], tmp_path: Path
) -> None:
    """A night is published before its run ends: its own pipeline_runs row says STARTED, unfinished."""
    (last_ended,) = _scalar(dashboard_warehouse.path, "SELECT status FROM marts.pipeline_runs "
                                                      "WHERE finished_at IS NOT NULL ORDER BY started_at DESC LIMIT 1")
    at = _overview_of_a_copy(dashboard_warehouse, use_warehouse, tmp_path,
                             "INSERT INTO marts.pipeline_runs (run_id, job, started_at, status) "
                             "VALUES ('this-night', 'nightly', now() - INTERVAL 2 HOUR, 'STARTED')")
    assert any("this-night" in c.value and "published before its run ended" in c.value for c in at.caption)
    metrics = metrics_of(at)
    assert metrics["Status"] == last_ended and metrics["Took"] != "–"


def test_overview_says_which_published_night_it_shows(
    dashboard_warehouse: DashboardWarehouse, use_warehouse: Callable[[Path], None], tmp_path: Path
) -> None:
    """On the published night (what `bodoge dashboard` opens), the overview names it and its ages."""
    from warehouse.db import connect
    from warehouse.release.publish import publish_snapshot

    (tmp_path / "warehouse.duckdb").write_bytes(dashboard_warehouse.path.read_bytes())
    with connect(tmp_path / "warehouse.duckdb") as con:
        # The night's checks as the published_night asset records them: the data-quality files and the rest.
        checks = [{"name": name, "asset": f"marts/{name.split('_')[0]}", "passed": passed,
                   "severity": severity.upper(), "description": ""}
                  for name, severity, passed in con.execute(
                      "SELECT check_name, severity, passed FROM marts.quality_checks").fetchall()]
        checks += [{"name": "games_contract_columns", "asset": "marts/games", "passed": True, "severity": "ERROR",
                    "description": ""},
                   {"name": "crawl_volume_floor", "asset": "raw/crawl_runs", "passed": False, "severity": "ERROR",
                    "description": "the crawl accounted for 12 pages"}]
        published = publish_snapshot(con, tmp_path, run_id="night-42", export_run_id="exp-42", checks=checks)
    use_warehouse(published.path)
    st.cache_data.clear()
    at = open_page(PAGES[0])
    assert_clean(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["公開中の夜 Published night"].endswith("ago")
    assert metrics["最古のページ Oldest crawled page"].endswith("ago")
    assert "Showing night `night-42`" in texts(at)
    # One count of checks, the published night's own, on the overview and the data-quality page.
    expected = f"{sum(c['passed'] for c in checks)} / {len(checks)}"
    assert metrics["Checks passed"] == expected
    quality = open_page(page_spec("data-quality"))
    assert_clean(quality)
    assert metrics_of(quality)["Checks passed"] == expected
    listed = quality.dataframe[0].value
    assert sorted(listed["check_name"]) == sorted(c["name"] for c in checks)
    assert listed["check_name"][0] == "crawl_volume_floor"  # failures first
    assert "before it was published" in texts(quality)
    assert metrics["ゲーム Games"] == f"{dashboard_warehouse.n_games:,}"  # the marts came along
