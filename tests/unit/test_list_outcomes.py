"""Did the lists come true (issue 41), on hand-made nights with every figure worked out by hand:
the collection history's versions, the exposure log, marts.list_outcomes (acts, hits, the
popularity baseline, the previous champion's counterfactual, intervals), re-running a night,
and a member who turns private leaving the history and the exposure log.
Three real nights of the sample site: tests/e2e/test_list_outcomes.py."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import duckdb
import numpy as np
import polars as pl
import pytest

from warehouse.db import ensure_table
from warehouse.model_marts import write_model_runs
from warehouse.nights import ensure_night_marts, mark_released, start_night
from warehouse.outcomes.exposure import record_served
from warehouse.outcomes.history import record_collections, state_sql
from warehouse.outcomes.kept import forget_members
from warehouse.outcomes.rates import interval, record_outcomes
from warehouse.privacy.erase import purge_members

WHEN = datetime(2026, 11, 1, 3, 0, tzinfo=timezone.utc)
CARD = ("(user_id VARCHAR, game_id VARCHAR, have BOOLEAN, played BOOLEAN, favorite BOOLEAN, watching BOOLEAN, "
        "rating INTEGER, updated_at TIMESTAMPTZ)")
# night 1: what each member holds (user, game, have, played, favorite, watching, rating)
NIGHT_1 = [("u1", "g1", False, True, True, False, 5), ("u1", "g2", True, False, False, False, None),
           ("u1", "g3", False, False, False, True, None), ("u2", "g1", True, True, False, False, 4),
           ("u3", "g4", True, False, False, False, None), ("u3", "g1", False, True, False, False, None)]
# night 2: u1 adds g5 (listed), plays g2 (play next), buys g3 (watch list); u2 adds g9; u3 rates g4
NIGHT_2 = [("u1", "g1", False, True, True, False, 5), ("u1", "g2", True, True, False, False, None),
           ("u1", "g3", True, False, False, True, None), ("u1", "g5", False, False, False, True, None),
           ("u2", "g1", True, True, False, False, 4), ("u2", "g9", True, False, False, False, None),
           ("u3", "g4", True, False, False, False, 3), ("u3", "g1", False, True, False, False, None)]
LISTS = {"u1": ["g6", "g5", "g7"], "u2": ["g2", "g3", "g4"], "u3": ["g2", "g9"]}


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    ensure_night_marts(con)
    for table in ("next_to_play", "watch_next"):
        ensure_table(con, table)
    yield con
    con.close()


def _night(con: duckdb.DuckDBPyConnection, night_id: str, cards: list[tuple], *, day: int, released: bool = True) -> int:
    """One night: its collections recorded, its lists served, its bundle released (or not)."""
    start_night(con, night_id=night_id, job="nightly", started_at=WHEN + timedelta(days=day))
    con.execute(f"CREATE OR REPLACE TABLE marts.collections {CARD}")
    # each card stamped on the night it is first seen (as the site would: a changed card's time moves)
    con.executemany("INSERT INTO marts.collections VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(*card, _stamp(card, day)) for card in cards])
    no = record_collections(con, night_id=night_id, recorded_at=WHEN + timedelta(days=day))
    con.execute("DELETE FROM marts.recommendations")
    for user, games in LISTS.items():
        for rank, game in enumerate(games, 1):
            con.execute("INSERT INTO marts.recommendations (user_id, rank, game_id, score, run_id, welcome) "
                        "VALUES (?, ?, ?, ?, ?, false)", [user, rank, game, 1.0 / rank, night_id])
    con.execute("DELETE FROM marts.next_to_play")
    con.execute("DELETE FROM marts.watch_next")
    con.execute("INSERT INTO marts.next_to_play (user_id, rank, game_id, score, run_id) VALUES "
                "('u1', 1, 'g2', 0.5, ?), ('u3', 1, 'g4', 0.5, ?)", [night_id, night_id])
    con.execute("INSERT INTO marts.watch_next (user_id, rank, game_id, score, run_id) VALUES ('u1', 1, 'g3', 0.5, ?)",
                [night_id])
    record_served(con, night_id=night_id, night_no=no, model="als")
    if released:
        mark_released(con, night_id=night_id, export_run_id=night_id)
    return no


def _stamp(card: tuple, day: int) -> datetime:
    """A card's updated_at: the day it took this state (night 1's cards, day 0)."""
    first = next((d for d, night in ((0, NIGHT_1), (1, NIGHT_2)) if card in night), day)
    return WHEN + timedelta(days=first) - timedelta(hours=1)


def _held(con: duckdb.DuckDBPyConnection, night_no: int) -> list[tuple]:
    return con.execute(f"SELECT * FROM ({state_sql(night_no)}) ORDER BY ALL").fetchall()


def test_history_keeps_each_night_and_only_changes(con: duckdb.DuckDBPyConnection) -> None:
    assert _night(con, "n1", NIGHT_1, day=0) == 1
    assert _night(con, "n2", NIGHT_2, day=1) == 2
    assert _held(con, 1) == sorted(NIGHT_1)
    assert _held(con, 2) == sorted(NIGHT_2)
    # 6 cards on night 1; night 2 changed g2, g3, g4 (closed and reopened) and added g5, g9
    assert con.execute("SELECT count(*) FROM marts.collection_history").fetchall()[0][0] == 6 + 5
    # each version keeps the time the card had when it was first seen: what a recency refit ages by
    timed = con.execute(f"SELECT user_id, game_id, updated_at FROM ({state_sql(2, timed=True)}) ORDER BY ALL").fetchall()
    assert timed == sorted((c[0], c[1], _stamp(c, 1)) for c in NIGHT_2)
    assert {t for _, _, t in timed} == {WHEN - timedelta(hours=1), WHEN + timedelta(days=1) - timedelta(hours=1)}
    # a night run again keeps its number and records the same state once
    assert record_collections(con, night_id="n2", recorded_at=WHEN) == 2
    assert _held(con, 1) == sorted(NIGHT_1) and _held(con, 2) == sorted(NIGHT_2)
    assert con.execute("SELECT count(*) FROM marts.collection_history").fetchall()[0][0] == 11


def test_exposure_log_holds_the_top_10_of_released_nights(con: duckdb.DuckDBPyConnection) -> None:
    _night(con, "n1", NIGHT_1, day=0, released=False)  # failed before its release
    _night(con, "n2", NIGHT_2, day=1)
    rows = con.execute("SELECT night_id, list_kind, user_id, games, run_id, model FROM marts.served_lists "
                       "ORDER BY ALL").fetchall()
    assert {r[0] for r in rows} == {"n2"}  # the unreleased night's lists are gone
    assert ("n2", "discovery", "u1", ["g6", "g5", "g7"], "n2", "als") in rows
    assert [r[1:3] for r in rows if r[1] != "discovery"] == [("play_next", "u1"), ("play_next", "u3"),
                                                              ("watch_list", "u1")]


def _champion(con: duckdb.DuckDBPyConnection, run_id: str, model: str, factors: int) -> None:
    """A training run's champion row as model_runs holds it (parameters beside the run's own keys)."""
    write_model_runs(con, pl.DataFrame({
        "run_id": [run_id], "model": [model], "k": [10], "ndcg": [0.1], "trained_at": [WHEN], "champion": [True],
        "split": ["time"], "params": [json.dumps({"factors": factors, "weighting": "graded", "weights": {},
                                                  "selection_ndcg": 0.1 + factors / 1000})]}))


@pytest.mark.parametrize("moved", [False, True], ids=["same-champion", "champion-moved"])
def test_outcomes_by_hand(con: duckdb.DuckDBPyConnection, moved: bool) -> None:
    _night(con, "n1", NIGHT_1, day=0)
    calls = []

    def previous(champion: dict, held: pl.DataFrame, members: list[str]) -> dict[str, list[str]]:
        calls.append((champion, held.height, members))
        return {"u2": ["g9"]}  # the refitted previous champion could rank u2 only

    start_night(con, night_id="n0", job="nightly", started_at=WHEN - timedelta(days=1))
    mark_released(con, night_id="n0", export_run_id="bundle-n0")
    _champion(con, "bundle-n0", "als", 64 if moved else 32)
    _champion(con, "n1", "als", 32)  # n1's lists were ranked by run n1's champion
    no = _night(con, "n2", NIGHT_2, day=1)
    rows = record_outcomes(con, night_no=no, outcome_night_id="n2", computed_at=WHEN, previous=previous)
    by_kind = {r["list_kind"]: r for r in rows}
    assert sorted(by_kind) == ["discovery", "play_next", "watch_list"]
    assert {r["served_night_id"] for r in rows} == {"n1"} and {r["nights_after"] for r in rows} == {1}
    # discovery: u1 added g5 (listed 2nd), u2 added g9 (not listed), u3 added nothing
    d = by_kind["discovery"]
    assert (d["served"], d["members"], d["hits"], d["hit_rate_at_10"]) == (3, 2, 1, 0.5)
    # popularity on night 1: g1 (3 members), then g2, g3, g4 (1 each); u1 lacks g4, u2 lacks g2-g4: no hit
    assert d["popularity_hit_rate_at_10"] == 0.0
    assert d["previous_run_id"] == "bundle-n0"
    if moved:  # refitted on everything held on night 1 (6 cards) for the members who acted; u2 hit
        assert calls == [({"champion": "als", "params": {"factors": 64},
                           "weighting": "graded"}, 6, ["u1", "u2"])]
        assert (d["previous_members"], d["previous_hit_rate_at_10"]) == (1, 1.0)
    else:  # the same champion: its lists are the served lists, no fit
        assert calls == []
        assert (d["previous_members"], d["previous_hit_rate_at_10"]) == (2, 0.5)
    # play next: u1 played g2 (listed); u3 only rated g4
    p = by_kind["play_next"]
    assert (p["served"], p["members"], p["hits"], p["popularity_hit_rate_at_10"]) == (2, 1, 1, 1.0)
    w = by_kind["watch_list"]
    assert (w["served"], w["members"], w["hits"], w["previous_run_id"]) == (1, 1, 1, None)
    stored = con.execute("SELECT count(*), sum(hits) FROM marts.list_outcomes").fetchall()[0]
    assert stored == (3, 3)
    # incremental: nothing pending the same night, and a night run again computes its rows again
    assert record_outcomes(con, night_no=no, outcome_night_id="other", computed_at=WHEN) == []
    again = record_outcomes(con, night_no=no, outcome_night_id="n2", computed_at=WHEN, previous=previous)
    assert [r["hits"] for r in again] == [r["hits"] for r in rows]
    assert con.execute("SELECT count(*) FROM marts.list_outcomes").fetchall()[0][0] == 3


def test_interval_is_the_bootstrap_of_the_members() -> None:
    hits = np.array([1] * 30 + [0] * 70, dtype=bool)
    rate, low, high = interval(hits, seed=7)
    assert rate == 0.3 and low is not None and high is not None and low < 0.3 < high
    # against resampling the members themselves
    rng = np.random.default_rng(1)
    resampled = hits[rng.integers(0, hits.size, size=(4000, hits.size))].mean(axis=1)
    assert abs(low - np.quantile(resampled, 0.025)) < 0.02 and abs(high - np.quantile(resampled, 0.975)) < 0.02
    assert interval(np.zeros(0, dtype=bool), seed=1) == (None, None, None)


def test_a_member_who_turns_private_leaves_history_and_exposure(con: duckdb.DuckDBPyConnection) -> None:
    _night(con, "n1", NIGHT_1, day=0)
    for table in ("raw.collection_entries", "raw.members", "raw.listing_crawls", "raw.crawl_frontier", "raw.posts"):
        con.execute(f"CREATE TABLE IF NOT EXISTS {table} (user_id VARCHAR, key VARCHAR, listing VARCHAR, "
                    "kind VARCHAR, author_user_id VARCHAR)")
    purge_members(con, {"u1"})  # by name: the crawl found u1 private
    assert forget_members(con, {"u2"}) > 0  # by rule: only u2 is public now
    for table in ("collection_history", "served_lists"):
        assert {r[0] for r in con.execute(f"SELECT DISTINCT user_id FROM marts.{table}").fetchall()} == {"u2"}
