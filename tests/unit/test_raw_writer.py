"""The raw layer: exactly-once upserts, safe listing replacement, no trace of private members."""

from __future__ import annotations

from pathlib import Path

import pytest

from warehouse.crawl_runs import mark_interrupted
from warehouse.db import connect
from warehouse.raw import RawWriter


def entry(user: str, game: str, **status: bool) -> dict:
    flags = {"have": False, "played": False, "favorite": False, "watching": False, **status}
    return {"user_id": user, "game_id": game, "rating": None, "updated_at": "2026-10-30T21:14:03+09:00", **flags}


def listing(user: str, status: str, n: int, pages: int = 1) -> dict:
    return {"listing": "collection", "key": user, "status": status, "n_entries": n, "n_pages": pages}


def member(user: str) -> dict:
    return {"user_id": user, "name": f"name-{user}"}


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
    w.add("listing_crawl", listing("1", "public", 0))  # releases the member row into the batch
    w.add("game", {"game_id": None})  # violates the NOT NULL key
    with pytest.raises(Exception):
        w.flush()
    assert rows(con, "SELECT count(*) FROM raw.members") == [(0,)]


def test_directory_row_waits_for_the_collection_outcome(con) -> None:
    w = RawWriter(con, run_id="r1", batch_size=1)  # every buffered item is written at once
    for user in ("1", "2", "3", "4", "5", "6"):
        w.add("member", member(user))
    assert rows(con, "SELECT count(*) FROM raw.members") == [(0,)]
    assert w.held_members == 6
    w.add("listing_crawl", listing("1", "public", 3))
    w.add("listing_crawl", listing("2", "empty", 0))
    w.add("listing_crawl", listing("3", "incomplete", 20, pages=2))  # page 1 was a real collection page
    w.add("listing_crawl", listing("4", "incomplete", 0, pages=1))  # page 1 never came: may be private
    w.add("listing_crawl", listing("5", "private", 0))
    w.add("listing_crawl", listing("7", "public", 1))  # outcome first, directory row later
    w.add("member", member("7"))
    w.flush()
    assert rows(con, "SELECT user_id, name FROM raw.members ORDER BY 1") == [
        ("1", "name-1"), ("2", "name-2"), ("3", "name-3"), ("7", "name-7")]
    assert w.held_members == 2  # 4 (unknown) and 6 (never crawled) are never written


def test_writer_dying_before_the_outcome_leaves_no_private_member(tmp_path: Path) -> None:
    path = tmp_path / "wh.duckdb"
    con = connect(path)
    w = RawWriter(con, run_id="r1")
    w.add("member", member("3"))
    w.add("listing_crawl", listing("3", "public", 0))
    w.flush()
    con.close()

    con = connect(path)
    w = RawWriter(con, run_id="r2", batch_size=1)
    w.start_run(base_url="http://site")
    for user in ("1", "2", "3"):  # 2 is private, but its login page has not arrived yet
        w.add("member", member(user))
    w.add("listing_crawl", listing("1", "public", 0))
    w.add("post", {"post_id": "p", "game_id": "a", "post_kind": "rule", "author_user_id": "9", "title": "t"})
    con.close()  # killed: no flush, no finish

    with connect(path, read_only=True) as con:
        assert rows(con, "SELECT user_id, run_id FROM raw.members ORDER BY 1") == [("1", "r2"), ("3", "r1")]
        assert rows(con, "SELECT status FROM raw.crawl_runs") == [("running",)]


def test_a_new_run_closes_runs_left_running_by_a_dead_process(con, caplog) -> None:
    RawWriter(con, run_id="dead").start_run(base_url="http://site")
    done = RawWriter(con, run_id="done")
    done.start_run(base_url="http://site")  # "dead" never finished: this already closes it
    done.finish_run(status="finished", stats={})
    assert rows(con, "SELECT status FROM raw.crawl_runs WHERE run_id = 'dead'") == [("interrupted",)]
    con.execute("UPDATE raw.crawl_runs SET status = 'running', finished_at = NULL WHERE run_id = 'dead'")
    caplog.clear()
    with caplog.at_level("WARNING", logger="bodoge.warehouse"):
        RawWriter(con, run_id="next").start_run(base_url="http://site")
    got = rows(con, "SELECT run_id, status, finished_at IS NOT NULL FROM raw.crawl_runs ORDER BY run_id")
    assert got == [("dead", "interrupted", True), ("done", "finished", True), ("next", "running", False)]
    assert [r.getMessage() for r in caplog.records] == [
        "crawl runs left running by a dead process marked interrupted: dead"]


def test_mark_interrupted_closes_only_a_running_record(con) -> None:
    w = RawWriter(con, run_id="killed")
    w.start_run(base_url="http://site")
    assert mark_interrupted(con, run_id="killed") is True
    assert mark_interrupted(con, run_id="killed") is False  # already closed
    w = RawWriter(con, run_id="ok")
    w.start_run(base_url="http://site")
    w.finish_run(status="finished", stats={"pages": 3})
    assert mark_interrupted(con, run_id="ok") is False
    assert mark_interrupted(con, run_id="never-started") is False
    got = rows(con, "SELECT run_id, status, finished_at IS NOT NULL FROM raw.crawl_runs ORDER BY run_id")
    assert got == [("killed", "interrupted", True), ("ok", "finished", True)]
