"""The catalogue shows the box's player range beside BoardGameGeek's best and recommended
counts, where a night matched the game to a BGG thing (issue 25: "best with N" beside the
players filter); a night without BGG facts hides those columns and says so (issue 42: they
showed None throughout)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb
import streamlit as st
from tests.support.apptest_pages import assert_clean, copy_with, header_labels, open_page
from tests.support.dashboard_warehouse import DashboardWarehouse

from dashboards.views import page_spec


def _catalogue_on(path: Path, use_warehouse: Callable[[Path], None]):
    use_warehouse(path)
    st.cache_data.clear()
    at = open_page(page_spec("catalogue"))
    assert_clean(at)
    return at.dataframe[-1]


def test_the_catalogue_shows_best_and_recommended_beside_the_box_range(
    dashboard_warehouse: DashboardWarehouse, use_warehouse: Callable[[Path], None], tmp_path: Path
) -> None:
    with duckdb.connect(str(dashboard_warehouse.path), read_only=True) as con:
        top = con.execute("SELECT game_id, min_players, max_players FROM marts.games "
                          "ORDER BY n_have DESC NULLS LAST, game_id LIMIT 1").fetchone()
    copy = copy_with(dashboard_warehouse, tmp_path, "DELETE FROM marts.bgg_games",
                      "INSERT INTO marts.bgg_games BY NAME SELECT 901 AS bgg_id, ? AS game_id, 'Matched' AS name, "
                      "[3, 4] AS best_players, [2, 3, 4, 5] AS recommended_players, false AS is_expansion",
                      params=[top[0]])
    table = _catalogue_on(copy, use_warehouse)
    labels = header_labels(table)
    assert labels["best_players"] == "Best with (BGG)" and labels["recommended_players"] == "Recommended with (BGG)"
    columns = list(table.value.columns)
    assert columns.index("max_players") + 1 == columns.index("best_players")  # beside the box's range
    row = table.value[table.value["game_id"] == top[0]].iloc[0]
    assert (row["min_players"], row["max_players"]) == top[1:]
    assert list(row["best_players"]) == [3, 4] and list(row["recommended_players"]) == [2, 3, 4, 5]
    others = table.value[table.value["game_id"] != top[0]]
    assert others["best_players"].isna().all()  # no BGG match: nothing invented


def test_a_night_without_bgg_facts_shows_the_catalogue_as_before(
    dashboard_warehouse: DashboardWarehouse, use_warehouse: Callable[[Path], None], tmp_path: Path
) -> None:
    copy = copy_with(dashboard_warehouse, tmp_path, "DROP TABLE IF EXISTS marts.bgg_games")  # before BGG
    use_warehouse(copy)
    st.cache_data.clear()
    at = open_page(page_spec("catalogue"))
    assert_clean(at)
    table = at.dataframe[-1]
    assert table.value.shape[0] > 0 and "best_players" not in table.value.columns
    assert "recommended_players" not in table.value.columns
    assert any("No BGG data" in caption.value for caption in at.caption)
