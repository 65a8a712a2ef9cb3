"""Nights you can compare (issue 23), on hand-made marts with numbers computed by hand:
the served lists' coverage and stability, the night's row of marts.pipeline_runs, and the
views marts.nights and marts.model_quality. Two real nights: tests/e2e/test_pipeline.py."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import duckdb
import pytest

from bodoge.summary import champion_lines, served_line
from models.report import TUNED, selection_text
from warehouse.model_marts import record_pipeline_run
from warehouse.nights import ensure_night_marts, mark_released, record_lists, start_night

WHEN = datetime(2026, 11, 1, 3, 0, tzinfo=timezone.utc)
GAMES = [f"g{i:02d}" for i in range(1, 21)]


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    """An empty warehouse with the night's marts and views, 20 games and three members' collections."""
    con = duckdb.connect()
    ensure_night_marts(con)
    con.execute("CREATE TABLE marts.games AS SELECT unnest(?::VARCHAR[]) AS game_id", [GAMES])
    con.execute("CREATE TABLE marts.collections (user_id VARCHAR, game_id VARCHAR, have BOOLEAN, played BOOLEAN, "
                "favorite BOOLEAN, watching BOOLEAN, rating INTEGER)")
    con.execute("INSERT INTO marts.collections VALUES ('a', 'g20', true, true, false, false, 4), "
                "('b', 'g20', true, false, false, false, NULL), ('c', 'g19', false, true, false, false, 3)")
    yield con
    con.close()


def _serve(con: duckdb.DuckDBPyConnection, lists: dict[str, list[str]]) -> None:
    """marts.recommendations holding these lists (rank 1 first)."""
    con.execute("CREATE OR REPLACE TABLE marts.recommendations AS SELECT * FROM (VALUES ('', 0, '')) "
                "t(user_id, rank, game_id) WHERE false")
    for user, games in lists.items():
        con.executemany("INSERT INTO marts.recommendations VALUES (?, ?, ?)",
                        [[user, rank, game] for rank, game in enumerate(games, start=1)])


def test_the_first_night_has_no_stability_and_the_second_compares_unchanged_members(con) -> None:
    _serve(con, {"a": GAMES[:10] + ["g20"], "b": GAMES[:10], "c": GAMES[10:18]})  # a's 11th is past the top 10
    first = record_lists(con, night_id="n1", run_id="r1", model="ease", generated_at=WHEN)
    assert first == {"run_id": "r1", "night_id": "n1", "model": "ease", "generated_at": WHEN, "k": 10,
                     "n_members": 3, "coverage": 18 / 20, "stability": None, "n_compared": 0,
                     "previous_night_id": None}

    con.execute("UPDATE marts.collections SET rating = 5 WHERE user_id = 'c'")  # c's collection changed
    # a keeps 5 of 10 and gets 5 new: 5 shared of 15 in either list; b keeps the same 10 in
    # another order: 10 of 10; c is not compared (changed).
    _serve(con, {"a": GAMES[:5] + GAMES[10:15], "b": GAMES[9::-1], "c": GAMES[:10]})
    second = record_lists(con, night_id="n2", run_id="r2", model="ease", generated_at=WHEN + timedelta(days=1))
    assert second["previous_night_id"] == "n1" and second["n_compared"] == 2
    assert second["stability"] == pytest.approx((5 / 15 + 10 / 10) / 2)
    assert second["coverage"] == pytest.approx(15 / 20)
    assert con.execute("SELECT night_id, count(*) FROM marts.served_top10 GROUP BY ALL").fetchall() == [("n2", 3)]
    recorded = con.execute("SELECT run_id, stability IS NULL FROM marts.recommendation_runs ORDER BY run_id")
    assert recorded.fetchall() == [("r1", True), ("r2", False)]


def test_a_night_where_every_collection_changed_compares_no_one(con) -> None:
    _serve(con, {"a": GAMES[:10]})
    record_lists(con, night_id="n1", run_id="r1", model="ease", generated_at=WHEN)
    con.execute("DELETE FROM marts.collections WHERE game_id = 'g20'")  # a removed a game: changed too
    con.execute("INSERT INTO marts.collections VALUES ('a', 'g01', false, false, false, true, NULL)")
    row = record_lists(con, night_id="n2", run_id="r2", model="ease", generated_at=WHEN + timedelta(days=1))
    assert (row["previous_night_id"], row["stability"], row["n_compared"]) == ("n1", None, 0)


def test_the_night_row_starts_names_its_bundle_and_keeps_it_when_the_run_ends(con) -> None:
    start_night(con, night_id="d1", job="nightly", started_at=WHEN)
    mark_released(con, night_id="d1", export_run_id="r1")
    assert con.execute("SELECT status, finished_at, export_run_id, night_id FROM marts.pipeline_runs").fetchall() == [
        ("STARTED", None, "r1", "d1")]
    record_pipeline_run(con, run_id="d1", job="nightly", started_at=WHEN, finished_at=WHEN + timedelta(hours=1),
                        status="SUCCESS", checks=[{"name": "x", "passed": False}])
    start_night(con, night_id="d1", job="nightly", started_at=WHEN)  # never undoes a recorded end
    row = con.execute("SELECT status, n_failed_checks, export_run_id, night_id FROM marts.pipeline_runs")
    assert row.fetchall() == [("SUCCESS", 1, "r1", "d1")]


def _model_runs(con: duckdb.DuckDBPyConnection, run_id: str, night_id: str | None, when: datetime,
                rows: list[tuple[str, str, float, float, bool]]) -> None:
    """(model, split, selection_ndcg, test ndcg, champion) rows of one training run."""
    con.executemany(
        "INSERT INTO marts.model_runs (run_id, model, split, params, ndcg, coverage, champion, trained_at, night_id, "
        "selection) VALUES (?, ?, ?, ?, ?, 0.5, ?, ?, ?, ?)",
        [[run_id, model, split, json.dumps({"selection_ndcg": sel}), ndcg, champion, when, night_id,
          f"chosen on {split}"] for model, split, sel, ndcg, champion in rows])


def test_nights_and_model_quality_join_every_id_of_a_night(con) -> None:
    night2 = WHEN + timedelta(days=1)
    for night, start in (("d1", WHEN), ("d2", night2)):
        start_night(con, night_id=night, job="nightly", started_at=start)
    mark_released(con, night_id="d1", export_run_id="r1")
    con.execute("INSERT INTO raw.crawl_runs (run_id, base_url, started_at, status, night_id) VALUES "
                "('c1', 'http://x', ?, 'finished', 'd1'), ('c2', 'http://x', ?, 'running', 'd2'), "
                "('c0', 'http://x', ?, 'finished', NULL)", [WHEN, night2, WHEN - timedelta(days=1)])
    # Night 1: bm25 wins the time split's selection though ease does better on TEST; the
    # random split named ease. Night 2 failed after evaluation (no lists, no bundle).
    _model_runs(con, "r1", "d1", WHEN, [("ease", "time", 0.30, 0.25, False), ("bm25", "time", 0.32, 0.20, True),
                                        ("popularity", "time", 0.10, 0.10, False),
                                        ("ease", "random", 0.4, 0.3, True), ("popularity", "random", 0.1, 0.1, False)])
    _model_runs(con, "r2", "d2", night2, [("ease", "time", 0.33, 0.26, True), ("popularity", "time", 0.1, 0.13, False)])
    _model_runs(con, "r0", None, WHEN - timedelta(days=1), [("ease", "random", 0.2, 0.2, True)])  # before night ids
    con.execute("INSERT INTO marts.recommendation_runs (run_id, night_id, coverage, stability, n_compared, "
                "previous_night_id) VALUES ('r1', 'd1', 0.4, NULL, 0, NULL)")
    assert con.execute("SELECT * FROM marts.nights").fetchall() == [
        ("d1", WHEN, None, "STARTED", "c1", "finished", "r1", "r1"),
        ("d2", night2, None, "STARTED", "c2", "running", "r2", None),
    ]
    quality = con.execute("SELECT night_id, model_run_id, champion, split, selection, selection_ndcg, test_ndcg, "
                          "popularity_test_ndcg, list_coverage, n_compared FROM marts.model_quality").fetchall()
    assert quality == [
        (None, "r0", "ease", "random", "chosen on random", 0.2, 0.2, None, None, None),
        ("d1", "r1", "bm25", "time", "chosen on time", 0.32, 0.20, 0.10, 0.4, 0),
        ("d2", "r2", "ease", "time", "chosen on time", 0.33, 0.26, 0.13, None, None),
    ]


def test_the_summary_says_how_the_champion_was_chosen_and_that_the_table_is_test() -> None:
    text = selection_text(k=10, n_candidates=7, by_time=True, tuning=TUNED)
    assert text == ("best NDCG@10 of 7 candidates on a time split of TRAIN (each member's latest 20%); "
                    "weighting and parameters tuned on a validation split of TRAIN")
    rows = [{"model": model, "ndcg": ndcg, "champion": model == "bm25", "selection_ndcg": won, "selection": text,
             "split": "time"} for model, ndcg, won in (("ease", 0.25, 0.30), ("bm25", 0.20, 0.32),
                                                        ("popularity", 0.10, 0.1))]
    assert champion_lines(rows) == [
        f"champion: bm25 (selection NDCG@10 0.3200), chosen by {text}",
        "on TEST (each member's latest 20%, never used to choose): NDCG@10 0.2000, 2.00× popularity, 2nd of 3",
        "TEST NDCG@10: ease 0.250  bm25 0.200  popularity 0.100",
    ]
    assert served_line(0.4, None, 0, None) == ("served top 10s: 40% of the catalogue; "
                                               "first night: no earlier lists to compare")
    assert served_line(0.4, 2 / 3, 1200, "d1").endswith("(Jaccard@10 against the previous night) 0.667 over 1,200 "
                                                        "unchanged members")
