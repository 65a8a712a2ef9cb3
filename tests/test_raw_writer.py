"""The raw layer: exactly-once upserts, safe listing replacement, no trace of private members."""

from __future__ import annotations

from pathlib import Path

import pytest

from warehouse.db import connect
from warehouse.raw import RawWriter


def entry(user: str, game: str, **status: bool) -> dict:
    flags = {"have": False, "played": False, "favorite": False, "watching": False, **status}
    return {"user_id": user, "game_id": game, "rating": None, "updated_at": "2026-10-30T21:14:03+09:00", **flags}


def listing(user: str, status: str, n: int) -> dict:
    return {"listing": "collection", "key": user, "status": status, "n_entries": n, "n_pages": 1}


def rows(con, sql: str) -> list[tuple]:
    return con.execute(sql).fetchall()


@pytest.fixture()
def con(tmp_path: Path):
    c = connect(tmp_path / "wh.duckdb")
    yield c
    c.close()


def test_rerun_replaces_rather_than_duplicates(con) -> None:
    for run in ("r1", "r1", "r2"):
        w = RawWriter(con, run_id=run)
        w.add("collection_entry", entry("1", "a", have=True))
        w.add("collection_entry", entry("1", "a", have=True))  # same key twice in one batch
        w.add("listing_crawl", listing("1", "public", 1))
        w.flush()
    assert rows(con, "SELECT user_id, game_id, run_id FROM raw.collection_entries") == [("1", "a", "r2")]


def test_complete_crawl_removes_what_the_member_removed(con) -> None:
    w = RawWriter(con, run_id="r1")
    for game in ("a", "b", "c"):
        w.add("collection_entry", entry("1", game, played=True))
    w.add("listing_crawl", listing("1", "public", 3))
    w.flush()
    w = RawWriter(con, run_id="r2")
    for game in ("a", "c"):
        w.add("collection_entry", entry("1", game, played=True))
    w.add("listing_crawl", listing("1", "public", 2))
    w.flush()
    assert rows(con, "SELECT game_id FROM raw.collection_entries ORDER BY 1") == [("a",), ("c",)]


def test_incomplete_crawl_loses_nothing(con) -> None:
    w = RawWriter(con, run_id="r1")
    for game in ("a", "b"):
        w.add("collection_entry", entry("1", game, have=True))
    w.add("listing_crawl", listing("1", "public", 2))
    w.flush()
    w = RawWriter(con, run_id="r2")
    w.add("collection_entry", entry("1", "a", have=True))
    w.add("listing_crawl", listing("1", "incomplete", 1))  # page 2 failed
    w.flush()
    assert rows(con, "SELECT game_id FROM raw.collection_entries ORDER BY 1") == [("a",), ("b",)]


def test_private_member_leaves_no_trace(con) -> None:
    w = RawWriter(con, run_id="r1")
    w.add("member", {"user_id": "7", "name": "secret"})
    w.add("collection_entry", entry("7", "a", have=True))
    w.add("listing_crawl", listing("7", "public", 1))
    w.add("post", {"post_id": "1", "game_id": "a", "post_kind": "rule", "author_user_id": "7", "title": "t"})
    w.flush()
    w = RawWriter(con, run_id="r2")
    w.add("listing_crawl", listing("7", "private", 0))
    w.flush()
    w.add("member", {"user_id": "7", "name": "secret"})  # seen again later in the same run
    w.add("post", {"post_id": "2", "game_id": "a", "post_kind": "review", "author_user_id": "7", "title": "u"})
    w.flush()
    for table in ("raw.members", "raw.collection_entries", "raw.listing_crawls", "raw.posts"):
        dump = str(rows(con, f"SELECT * EXCLUDE (run_id, fetched_at) FROM {table}"))
        assert "'7'" not in dump, table
    assert rows(con, "SELECT count(*) FROM raw.posts") == [(2,)]


def test_game_counters_keep_history_per_run(con) -> None:
    for run, have in (("r1", 3), ("r2", 5), ("r2", 6)):
        w = RawWriter(con, run_id=run)
        w.add("game", {"game_id": "a", "n_have": have, "designers": [], "mechanics": [], "themes": []})
        w.flush()
    assert rows(con, "SELECT run_id, n_have FROM raw.game_counters ORDER BY run_id") == [("r1", 3), ("r2", 6)]


def test_unknown_kind_is_an_error(con) -> None:
    with pytest.raises(ValueError, match="unknown item kind"):
        RawWriter(con, run_id="r1").add("nonsense", {})


def test_failed_batch_rolls_back(con) -> None:
    w = RawWriter(con, run_id="r1")
    w.add("member", {"user_id": "1", "name": "a"})
    w.add("game", {"game_id": None})  # violates the NOT NULL key
    with pytest.raises(Exception):
        w.flush()
    assert rows(con, "SELECT count(*) FROM raw.members") == [(0,)]
