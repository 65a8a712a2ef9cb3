"""Every dashboard page under Streamlit's own test harness (AppTest), in-process (the
overview's own figures: test_dashboard_overview.py; helpers: apptest_pages.py).

Why AppTest next to the browser tests: it runs the real page scripts against a real
warehouse in milliseconds, so it can afford to try the states a warehouse can be in
(full, empty, missing tables, no file, locked by a writer) and the widgets (filters,
member and cafe pickers), and to time each page's server-side work.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
import streamlit as st
from tests.support.apptest_pages import assert_clean, charts, header_labels, open_page, texts
from tests.support.dashboard_warehouse import DashboardWarehouse
from streamlit.testing.v1 import AppTest

from core.statuses import STATUS_LABELS
from dashboards.views import cafes as cafes_page
from dashboards.views import catalogue as catalogue_page
from dashboards.views import popularity as popularity_page
from dashboards.views import recommendations as recommendations_page
from dashboards.launch import APP
from dashboards.views import PAGES, PageSpec, page_spec

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
# The charts and tables each page must show on a full warehouse.
MIN_CHARTS = {
    "overview": 2, "catalogue": 4, "popularity": 4, "collections": 5,
    "recommendations": 4, "outcomes": 1, "cafes": 3, "data-quality": 2,
}
MIN_TABLES = {
    "overview": 1, "catalogue": 1, "popularity": 0, "collections": 0,
    "recommendations": 3, "outcomes": 1, "cafes": 1, "data-quality": 2,
}
PAGE_BUDGET_SECONDS = 2.0


@pytest.fixture
def open_sample(
    dashboard_warehouse: DashboardWarehouse, use_warehouse: Callable[[Path], None]
) -> Callable[[str], AppTest]:
    """Opens a page, by slug, on the sample warehouse."""
    use_warehouse(dashboard_warehouse.path)
    return lambda slug: open_page(page_spec(slug))


@pytest.fixture(scope="module", autouse=True)
def _warm(dashboard_warehouse: DashboardWarehouse) -> None:
    """One throw-away run so imports (altair, polars) are not billed to the first page."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BODOGE_DASHBOARD_DB", str(dashboard_warehouse.path))
        open_page(PAGES[0])


@pytest.mark.parametrize("spec", PAGES, ids=[p.slug for p in PAGES])
def test_page_renders_with_charts_and_tables(
    spec: PageSpec, dashboard_warehouse: DashboardWarehouse, use_warehouse: Callable[[Path], None],
    record_property: Callable[[str, object], None],
) -> None:
    use_warehouse(dashboard_warehouse.path)
    st.cache_data.clear()  # time the page's own queries, not a warm cache
    started = time.perf_counter()
    at = open_page(spec)
    elapsed = time.perf_counter() - started
    record_property("seconds_uncached", round(elapsed, 2))
    assert_clean(at)
    assert at.title and at.title[0].value == spec.title
    assert spec.caption in [c.value for c in at.caption]
    assert JAPANESE.search(texts(at))
    assert not at.info, f"unexpected notes on a full warehouse: {[i.value for i in at.info]}"
    assert len(charts(at)) >= MIN_CHARTS[spec.slug]
    tables = [df.value for df in at.dataframe]
    assert len(tables) >= MIN_TABLES[spec.slug]
    assert all(len(t) > 0 for t in tables), "every table shown has rows"
    for df in at.dataframe:  # every header a person reads is a label, never the SQL's snake_case name
        headers = header_labels(df)
        assert set(headers) == set(df.value.columns), headers
        assert not [h for h in headers.values() if "_" in h or not h], headers
    assert not re.search(r"\b0\.\d+ min\b", texts(at) + " ".join(m.value for m in at.metric))
    # The menu run plus the page, both uncached, at production size.
    assert elapsed < PAGE_BUDGET_SECONDS, f"{spec.slug} took {elapsed:.2f}s"


def test_menu_lists_every_page_once() -> None:
    slugs = [p.slug for p in PAGES]
    assert len(set(slugs)) == len(slugs)
    assert sum(p.default for p in PAGES) == 1
    assert all(p.path.is_file() for p in PAGES)
    assert page_spec("cafes").file == "cafes.py"
    with pytest.raises(KeyError, match="no dashboard page 'cafe'; known: overview, catalogue"):
        page_spec("cafe")
    assert not (APP.parent / "pages").exists(), "a pages/ folder would switch Streamlit to v1 multipage mode"


def test_catalogue_filters_narrow_the_charts(
    dashboard_warehouse: DashboardWarehouse, open_sample: Callable[[str], AppTest]
) -> None:
    at = open_sample("catalogue")
    before = at.markdown[0].value
    assert "implausible" in before and f"{dashboard_warehouse.n_games:,} games" in before
    mechanics = at.multiselect(key="cat_mechanics").options
    assert JAPANESE.search(" ".join(mechanics))
    at.multiselect(key="cat_mechanics").set_value([mechanics[3]]).run()
    lo, hi = at.slider(key="cat_years").value
    at.slider(key="cat_years").set_range(lo + 5, hi - 5).run()
    assert_clean(at)
    after = at.markdown[0].value
    n_after = int(re.search(r"\*\*([\d,]+) games\*\*", after).group(1).replace(",", ""))
    assert 0 < n_after < dashboard_warehouse.n_games
    assert len(charts(at)) >= MIN_CHARTS["catalogue"]
    assert "spans every year" in texts(at)


def test_popularity_switches_status(open_sample: Callable[[str], AppTest]) -> None:
    at = open_sample("popularity")
    at.radio(key="pop_metric").set_value("watching").run()
    assert_clean(at)
    assert any(STATUS_LABELS["watching"] in s.value for s in at.subheader)  # the site's word, 興味あり
    assert len(charts(at)) >= MIN_CHARTS["popularity"]


def test_member_explorer_shows_the_chosen_member(
    dashboard_warehouse: DashboardWarehouse, open_sample: Callable[[str], AppTest]
) -> None:
    at = open_sample("recommendations")
    picker = at.selectbox(key="rec_member")
    user_id = re.search(r" — (\S+) \(", picker.options[3]).group(1)
    assert user_id in _member_ids(dashboard_warehouse.path)
    picker.select_index(3).run()
    assert_clean(at)
    recs, shelf, watch, collection = (at.dataframe[i].value for i in (-4, -3, -2, -1))
    expected = _member_recommendations(dashboard_warehouse.path, user_id)
    owned_unplayed = set(collection[collection["have"] & ~collection["played"]]["game_id"])
    assert len(shelf) > 0 and set(shelf["game_id"]) <= owned_unplayed
    watch_list = set(collection[collection["watching"] & ~collection["have"] & ~collection["played"]]["game_id"])
    assert len(watch) > 0 and set(watch["game_id"]) <= watch_list
    assert not set(recs["game_id"]) & set(collection["game_id"])  # discovery: only games new to them
    assert any("興味ありの中からおすすめ" in m.value for m in at.markdown)
    assert list(recs["game_id"]) == expected
    assert recs["reason"].str.startswith(("because you like", "popular")).all()
    assert JAPANESE.search(" ".join(recs["name"]))
    assert len(collection) > 0


def test_cafe_picker_changes_the_games(open_sample: Callable[[str], AppTest]) -> None:
    at = open_sample("cafes")
    picker = at.selectbox(key="cafe_slug")
    picker.select_index(len(picker.options) - 1).run()
    assert_clean(at)
    assert len(charts(at)) >= MIN_CHARTS["cafes"]


@pytest.mark.parametrize("spec", PAGES, ids=[p.slug for p in PAGES])
def test_page_without_a_warehouse_file_says_so(
    spec: PageSpec, tmp_path: Path, use_warehouse: Callable[[Path], None]
) -> None:
    use_warehouse(tmp_path / "missing.duckdb")
    at = open_page(spec)
    assert_clean(at)
    assert any("No warehouse at" in i.value for i in at.info)
    assert not charts(at)
    assert not (tmp_path / "missing.duckdb").exists(), "a read-only dashboard never creates the file"


@pytest.mark.parametrize("spec", PAGES, ids=[p.slug for p in PAGES])
def test_page_on_an_empty_warehouse_degrades_to_notes(
    spec: PageSpec, empty_warehouse: Path, use_warehouse: Callable[[Path], None]
) -> None:
    use_warehouse(empty_warehouse)
    at = open_page(spec)
    assert_clean(at)
    assert at.info or at.success, "an empty warehouse gets a note, not a blank page"


def test_pages_without_model_tables_still_show_the_rest(
    marts_only_warehouse: Path, use_warehouse: Callable[[Path], None]
) -> None:
    use_warehouse(marts_only_warehouse)
    at = open_page(page_spec("recommendations"))
    assert_clean(at)
    notes = " ".join(i.value for i in at.info)
    assert "marts.model_runs" in notes and "marts.recommendations" in notes
    at = open_page(PAGES[0])
    assert_clean(at)
    assert "marts.pipeline_runs" in " ".join(i.value for i in at.info)
    assert len(charts(at)) >= 1  # the crawl chart still shows


def test_page_while_a_writer_holds_the_warehouse(
    dashboard_warehouse: DashboardWarehouse, tmp_path: Path, use_warehouse: Callable[[Path], None]
) -> None:
    """The nightly job writing: a note to come back, not a traceback."""
    path = tmp_path / "locked.duckdb"
    path.write_bytes(dashboard_warehouse.path.read_bytes())
    writer = _hold_write_lock(path)
    try:
        use_warehouse(path)
        st.cache_data.clear()
        at = open_page(page_spec("catalogue"))
        assert_clean(at)
        assert any("being written" in w.value for w in at.warning)
    finally:
        writer.kill()
        writer.wait()


def test_dashboard_never_blocks_the_nightly_writer(
    dashboard_warehouse: DashboardWarehouse, tmp_path: Path, use_warehouse: Callable[[Path], None]
) -> None:
    """After pages have been served, another process can still open the file for writing."""
    path = tmp_path / "shared.duckdb"
    path.write_bytes(dashboard_warehouse.path.read_bytes())
    use_warehouse(path)
    st.cache_data.clear()
    for spec in (PAGES[0], page_spec("recommendations")):
        assert_clean(open_page(spec))
    done = subprocess.run(
        [sys.executable, "-c", f"import duckdb; duckdb.connect({str(path)!r}).execute('CHECKPOINT')"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr


def test_values_people_pick_are_bound_not_spliced(dashboard_warehouse: DashboardWarehouse) -> None:
    """Quotes and SQL in a picked value are just a value that matches nothing."""
    hostile = "x' OR '1'='1'; DROP TABLE marts.games; --"
    with duckdb.connect(str(dashboard_warehouse.path), read_only=True) as con:
        assert recommendations_page.member_recommendations(con, user_id=hostile).height == 0
        assert recommendations_page.member_collection(con, user_id=hostile).height == 0
        assert cafes_page.cafe_wanted_games(con, space_slug=hostile).height == 0
        summary = catalogue_page.catalogue_summary(
            con, year_from=1900, year_to=2100, keep_undated=True, mechanics=[hostile], themes=[]
        )
        assert summary["n_games"][0] == 0
        with pytest.raises(ValueError):
            popularity_page.top_games(con, metric="members_have; DROP TABLE marts.games", limit=5)


def _member_ids(path: Path) -> list[str]:
    with duckdb.connect(str(path), read_only=True) as con:
        return [r[0] for r in con.execute("SELECT DISTINCT user_id FROM marts.recommendations").fetchall()]


def _member_recommendations(path: Path, user_id: str) -> list[str]:
    with duckdb.connect(str(path), read_only=True) as con:
        return [r[0] for r in con.execute(
            "SELECT game_id FROM marts.recommendations WHERE user_id = ? ORDER BY rank", [user_id]
        ).fetchall()]


def _hold_write_lock(path: Path) -> subprocess.Popen:
    """A process that opens the warehouse for writing and keeps it open until killed."""
    code = textwrap.dedent(f"""
        import sys, time, duckdb
        con = duckdb.connect({str(path)!r})
        print("locked", flush=True)
        time.sleep(120)
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc
