"""Data-quality checks catch planted bad rows, with counts and examples, without crashing."""

from __future__ import annotations

from pathlib import Path

from tests.support.warehouse_fixtures import build_small_warehouse
from warehouse.build import build_all
from warehouse.db import connect
from warehouse.quality import run_checks
from warehouse.raw import RawWriter


def by_name(results):
    return {r.name: r for r in results}


def test_clean_warehouse_flags_only_the_joke_upper_bound(tmp_path: Path) -> None:
    con = connect(build_small_warehouse(tmp_path / "wh.duckdb"))
    results = by_name(run_checks(con))
    failing = {name for name, r in results.items() if not r.passed}
    assert failing == {"games_players_range"}  # 1人～65536人 is kept as published, and flagged
    assert results["games_players_range"].examples[0]["key"] == "party-kingo"
    flagged = con.execute("SELECT game_id FROM marts.games WHERE players_implausible").fetchall()
    assert flagged == [("party-kingo",)]
    con.close()


def test_planted_bad_rows_are_caught(tmp_path: Path) -> None:
    con = connect(build_small_warehouse(tmp_path / "wh.duckdb"))
    w = RawWriter(con, run_id="bad")
    w.add("game", {"game_id": "backwards", "min_players": 5, "max_players": 2, "min_minutes": -5,
                   "max_minutes": 10, "year": 1200, "min_age": 99, "designers": [], "mechanics": [], "themes": []})
    w.add("collection_entry", {"user_id": "17406", "game_id": "ghost", "have": True, "played": False,
                               "favorite": False, "watching": False, "rating": 9, "updated_at": None})
    w.add("collection_entry", {"user_id": "17406", "game_id": "khora-2", "have": False, "played": False,
                               "favorite": False, "watching": False, "rating": None, "updated_at": None})
    w.add("cafe_game", {"space_slug": "lab", "game_id": "ghost", "space_name": "ボドゲ研究所"})
    w.flush()
    build_all(con)
    con.execute("INSERT INTO marts.games BY NAME SELECT * FROM marts.games WHERE game_id = 'khora'")
    results = by_name(run_checks(con))
    expected = {
        "games_unique_key": 1, "games_players_range": 2, "games_minutes_range": 1, "games_year_plausible": 1,
        "games_age_range": 1, "collections_known_games": 2, "collections_has_status": 1,
        "collections_rating_range": 1, "cafe_games_known_games": 1,
    }
    for name, n in expected.items():
        assert results[name].n_failures == n, (name, results[name])
    assert "backwards" in results["games_year_plausible"].line()
    stored = con.execute("SELECT count(*) FROM marts.quality_checks WHERE NOT passed").fetchall()
    assert stored == [(len(expected),)]
    con.close()


def test_a_broken_check_is_reported_not_raised(tmp_path: Path) -> None:
    con = connect(tmp_path / "empty.duckdb")  # no marts at all
    results = run_checks(con)
    assert results and all(r.severity == "error" and not r.passed for r in results)
    assert "does not exist" in results[0].examples[0]["detail"]
    con.close()
