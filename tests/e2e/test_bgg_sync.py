"""The BGG sync: real Scrapy crawls over HTTP against the replay server, into a real DuckDB warehouse."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from samplesite.bgg_replay import BggReplayServer
from scrapers.bgg_sync import TokenError, run_bgg_sync

TOKEN = "sync-secret-token-7c1e0b"
FAST = {"delay": 0.0, "prepare_delay": 0.05, "backoff_base": 0.05}


def _links(tmp_path: Path, rows: str = "u1,alice\nu2,bob\nu3,nobody-here\n") -> Path:
    path = tmp_path / "links.csv"
    path.write_text("user_id,bgg_user\n" + rows, encoding="utf-8")
    return path


def _rows(warehouse: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(warehouse), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_a_first_sync_reads_collections_then_their_things_in_batches(tmp_path: Path) -> None:
    warehouse = tmp_path / "warehouse.duckdb"
    with BggReplayServer(token=TOKEN, script={"collection:alice": [202, 202]}) as srv:
        result = run_bgg_sync(api_url=srv.api_url, warehouse=warehouse, links_file=_links(tmp_path), token=TOKEN,
                              **FAST)
    assert result.outcomes == {"alice": "full", "bob": "full", "nobody-here": "unknown_user"}
    assert result.things == 3 and result.stats["bodoge/bgg/prepare_retries"] == 2
    things = [t.target for t in srv.requests if "/thing?" in t.target]
    assert len(things) == 1 and things[0].count(",") == 2 and "stats=1" in things[0]
    assert all(r.authorized for r in srv.requests if r.target != "/robots.txt")
    assert _rows(warehouse, "SELECT bgg_id, best_players, recommended_players FROM raw.bgg_things ORDER BY 1") == [
        (900001, [3], [2, 3, 4]), (900002, [4, 5], [3, 4, 5]), (900003, None, None)]
    assert _rows(warehouse, "SELECT bgg_user, count(*) FROM raw.bgg_collection_items GROUP BY 1 ORDER BY 1") == [
        ("alice", 3), ("bob", 1)]
    assert _rows(warehouse, "SELECT bgg_user, status FROM raw.bgg_collection_fetches ORDER BY 1") == [
        ("alice", "full"), ("bob", "full"), ("nobody-here", "unknown_user")]


def test_the_next_sync_asks_only_for_changes_and_applies_only_them(tmp_path: Path) -> None:
    warehouse, links = tmp_path / "warehouse.duckdb", _links(tmp_path, "u1,alice\nu2,bob\n")
    with BggReplayServer(token=TOKEN) as srv:
        first = run_bgg_sync(api_url=srv.api_url, warehouse=warehouse, links_file=links, token=TOKEN, **FAST)
        srv.requests.clear()
        changed = (srv.dirs[0] / "collection-bob.xml").read_text(encoding="utf-8").replace(
            'lastmodified="2026-09-15 18:00:00"', 'lastmodified="2099-01-01 00:00:00"').replace(
            '<numplays>12</numplays>', '<numplays>13</numplays>')
        srv.collections["bob"] = changed.encode("utf-8")
        second = run_bgg_sync(api_url=srv.api_url, warehouse=warehouse, links_file=links, token=TOKEN, **FAST)
    asked = [r.target for r in srv.requests if "/collection?" in r.target]
    assert len(asked) == 2 and all("modifiedsince=" in t for t in asked)
    assert second.outcomes == {"alice": "changes", "bob": "changes"}
    assert second.things == 0 and not [r for r in srv.requests if "/thing?" in r.target]  # still fresh
    rows = dict(((u, b), (n, run)) for u, b, n, run in _rows(
        warehouse, "SELECT bgg_user, bgg_id, numplays, run_id FROM raw.bgg_collection_items"))
    assert rows[("bob", 900002)] == (13, second.run_id)
    assert rows[("alice", 900001)] == (3, first.run_id)  # unchanged rows untouched


def test_a_thing_past_its_maximum_age_is_fetched_again(tmp_path: Path) -> None:
    warehouse, links = tmp_path / "warehouse.duckdb", _links(tmp_path, "u2,bob\n")
    with BggReplayServer(token=TOKEN) as srv:
        run_bgg_sync(api_url=srv.api_url, warehouse=warehouse, links_file=links, token=TOKEN, **FAST)
        again = run_bgg_sync(api_url=srv.api_url, warehouse=warehouse, links_file=links, token=TOKEN,
                             max_age_days=0, **FAST)
        srv.collections["bob"] = b'<items totalitems="0"></items>'
        emptied = run_bgg_sync(api_url=srv.api_url, warehouse=warehouse, links_file=links, token=TOKEN,
                               max_age_days=0, **FAST)
    assert again.things == 1 and again.outcomes == {"bob": "full"}  # age 0: the whole collection too
    assert emptied.outcomes == {"bob": "full"}  # a whole read removes what the collection no longer shows
    assert _rows(warehouse, "SELECT count(*) FROM raw.bgg_collection_items") == [(0,)]


def test_a_collection_never_ready_is_reported_and_keeps_what_was_read(tmp_path: Path) -> None:
    warehouse, links = tmp_path / "warehouse.duckdb", _links(tmp_path, "u2,bob\n")
    with BggReplayServer(token=TOKEN) as srv:
        run_bgg_sync(api_url=srv.api_url, warehouse=warehouse, links_file=links, token=TOKEN, **FAST)
        srv.script["collection:bob"] = [202] * 10
        result = run_bgg_sync(api_url=srv.api_url, warehouse=warehouse, links_file=links, token=TOKEN,
                              prepare_retries=3, **FAST)
    assert result.outcomes == {"bob": "not_ready"}
    assert sum("/collection?" in r.target for r in srv.requests) == 1 + 4
    assert _rows(warehouse, "SELECT count(*) FROM raw.bgg_collection_items") == [(1,)]


def test_throttled_answers_are_retried_after_retry_after(tmp_path: Path) -> None:
    warehouse = tmp_path / "warehouse.duckdb"
    with BggReplayServer(token=TOKEN, script={"collection:bob": [429], "thing": [503]}, retry_after="1") as srv:
        result = run_bgg_sync(api_url=srv.api_url, warehouse=warehouse, links_file=_links(tmp_path, "u2,bob\n"),
                              token=TOKEN, **FAST)
    assert result.outcomes == {"bob": "full"} and result.things == 1
    api = [r for r in srv.requests if r.target != "/robots.txt"]
    assert [r.status for r in api] == [429, 200, 503, 200]
    assert api[1].at - api[0].at >= 0.95 and api[3].at - api[2].at >= 0.95


def test_requests_keep_the_configured_pace(tmp_path: Path) -> None:
    with BggReplayServer(token=TOKEN) as srv:
        run_bgg_sync(api_url=srv.api_url, warehouse=tmp_path / "w.duckdb", links_file=_links(tmp_path),
                     token=TOKEN, delay=0.4, prepare_delay=0.05, backoff_base=0.05)
    times = [r.at for r in srv.requests if r.target != "/robots.txt"]
    assert len(times) == 4 and min(b - a for a, b in zip(times, times[1:])) >= 0.38


def test_unlinked_members_lose_their_bgg_rows(tmp_path: Path) -> None:
    warehouse = tmp_path / "warehouse.duckdb"
    with BggReplayServer(token=TOKEN) as srv:
        run_bgg_sync(api_url=srv.api_url, warehouse=warehouse, links_file=_links(tmp_path, "u1,alice\nu2,bob\n"),
                     token=TOKEN, **FAST)
        run_bgg_sync(api_url=srv.api_url, warehouse=warehouse, links_file=_links(tmp_path, "u1,alice\n"),
                     token=TOKEN, **FAST)
    assert _rows(warehouse, "SELECT DISTINCT bgg_user FROM raw.bgg_collection_items") == [("alice",)]
    assert _rows(warehouse, "SELECT user_id, bgg_user FROM raw.bgg_member_links") == [("u1", "alice")]


def test_a_refused_token_is_one_error_and_writes_nothing(tmp_path: Path) -> None:
    warehouse = tmp_path / "warehouse.duckdb"
    with BggReplayServer(token=TOKEN) as srv, pytest.raises(TokenError, match="refused the token"):
        run_bgg_sync(api_url=srv.api_url, warehouse=warehouse, links_file=_links(tmp_path), token="wrong", **FAST)
    assert _rows(warehouse, "SELECT count(*) FROM raw.bgg_collection_items") == [(0,)]


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("BODOGE_BGG")}
    return subprocess.run([sys.executable, "-c", "import sys; from bodoge.cli import main; sys.exit(main(sys.argv[1:]))", *args], env=clean | env, capture_output=True, text=True,
                          timeout=120)


def test_the_cli_never_shows_or_stores_the_token(tmp_path: Path) -> None:
    data = tmp_path / "data"
    links = _links(tmp_path)
    with BggReplayServer(token=TOKEN, script={"collection:alice": [202], "thing": [429]}) as srv:
        ok = _cli(["-v", "bgg", "sync", "--api-url", srv.api_url, "--links", str(links), "--data-dir", str(data),
                   "--delay", "0"], {"BODOGE_BGG_TOKEN": TOKEN})
        refused = _cli(["bgg", "sync", "--api-url", srv.api_url, "--links", str(links), "--data-dir", str(data),
                        "--delay", "0"], {"BODOGE_BGG_TOKEN": TOKEN + "-x"})
    missing = _cli(["bgg", "sync", "--links", str(links), "--data-dir", str(data)], {})
    assert ok.returncode == 0, ok.stderr
    assert "collections 2 full, 1 unknown_user" in ok.stdout and "Powered by BGG" in ok.stdout
    assert (refused.returncode, refused.stderr.strip().count("\n")) == (3, 0)
    assert "refused the token" in refused.stderr
    assert missing.returncode == 3 and missing.stderr.strip() == (
        "bodoge: error: no BoardGameGeek token: set BODOGE_BGG_TOKEN or BODOGE_BGG_TOKEN_FILE (see docs/bgg.md)")
    for run in (ok, refused, missing):
        assert TOKEN not in run.stdout + run.stderr
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".duckdb" for p in files)
    assert not [p for p in files if TOKEN.encode() in p.read_bytes()]


def test_more_than_20_things_go_in_batches_of_20(tmp_path: Path) -> None:
    items = "".join(f'<item objecttype="thing" objectid="{800000 + i}" subtype="boardgame"><status own="1" '
                    f'lastmodified="2026-01-01 00:00:00"/><numplays>0</numplays></item>' for i in range(45))
    with BggReplayServer(token=TOKEN) as srv:
        srv.collections["carol"] = f'<items totalitems="45">{items}</items>'.encode()
        result = run_bgg_sync(api_url=srv.api_url, warehouse=tmp_path / "w.duckdb",
                              links_file=_links(tmp_path, "u9,carol\n"), token=TOKEN, **FAST)
    batches = [r.target.split("id=")[1].split("&")[0].split(",") for r in srv.requests if "/thing?" in r.target]
    assert sorted(len(b) for b in batches) == [5, 20, 20] and len({i for b in batches for i in b}) == 45
    assert result.stats["bodoge/bgg/things_due"] == 45


def test_robots_txt_is_obeyed(tmp_path: Path) -> None:
    with BggReplayServer(token=TOKEN, robots=b"User-agent: *\nDisallow: /xmlapi2/\n") as srv:
        result = run_bgg_sync(api_url=srv.api_url, warehouse=tmp_path / "w.duckdb",
                              links_file=_links(tmp_path, "u2,bob\n"), token=TOKEN, **FAST)
    assert [r.target for r in srv.requests] == ["/robots.txt"]
    assert result.outcomes == {"bob": "failed"}


def test_the_saved_member_collection_syncs_with_its_things(tmp_path: Path) -> None:
    from tests.support.conftest_shared import shared_dir

    saved = shared_dir() / "bgg-xml"
    if not saved.is_dir():
        pytest.skip("../shared/bgg-xml is absent")
    warehouse = tmp_path / "w.duckdb"
    with BggReplayServer(token=TOKEN, saved_dir=saved) as srv:
        result = run_bgg_sync(api_url=srv.api_url, warehouse=warehouse, links_file=_links(tmp_path, "u1,fagentu007\n"),
                              token=TOKEN, **FAST)
    assert result.outcomes == {"fagentu007": "full"}
    assert _rows(warehouse, "SELECT count(*), count(*) FILTER (WHERE own) FROM raw.bgg_collection_items")[0][0] == 40
    assert [len(t.target.split("id=")[1].split("&")[0].split(",")) for t in srv.requests if "/thing?" in t.target] \
        == [20, 20]
