"""Linking BGG to the site: game matches, the BGG marts, and linked members' training rows.

The matching is checked on a hand-made warehouse; the rest on a real crawl of a small
sample site, a real BGG sync against the replay server, and real DuckDB builds.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import duckdb
import polars as pl
import pytest

from models.content import ContentModel
from models.discovery.members import mark_site
from models.discovery.run import catalog_frame, discover_interactions
from models.interactions import normalise_interactions
from samplesite import SampleSiteServer, generate_site
from samplesite.bgg_replay import BggReplayServer
from scrapers.bgg_store import upsert
from scrapers.bgg_sync import run_bgg_sync
from tests.support.crawl_fixtures import crawl_and_build
from warehouse.bgg_links import link_games, normalize_name, read_overrides
from warehouse.bgg_training import site_rows_only, training_rows
from warehouse.build import build_all
from warehouse.privacy import purge_members
from warehouse.raw import ensure_raw_schema

TOKEN = "links-test-token-55aa"
WHEN = datetime(2026, 11, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize(("name", "key"), [
    ("Brass: Lancashire", "brasslancashire"), ("ブラス：ランカシャー", "ブラスランカシャー"),
    ("ＣＯＵＰ", "coup"), ("The  Castles of Burgundy!", "thecastlesofburgundy"), (None, ""),
])
def test_normalize_name(name: str | None, key: str) -> None:
    assert normalize_name(name) == key


def _thing(bgg_id: int, name: str, year: int | None, alternates: list[str] = (), kind: str = "boardgame") -> dict:
    return {"bgg_id": bgg_id, "thing_type": kind, "name": name, "alternate_names": list(alternates), "year": year,
            "poll_source": "none", "run_id": "r", "fetched_at": WHEN}


def test_matches_ambiguities_misses_and_overrides(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    ensure_raw_schema(con)
    con.execute("""INSERT INTO raw.games (game_id, name_ja, name_en, year, run_id, fetched_at) VALUES
        ('harbor', 'ハーバーライツ', 'Harbor Lights', 2019, 'r', now()),
        ('river', 'リバートレーダーズ', NULL, 2021, 'r', now()),
        ('coup', 'クー', 'Coup', NULL, 'r', now()),
        ('agricola', 'アグリコラ', 'Agricola', 2007, 'r', now())""")
    upsert(con, "bgg_things", [
        _thing(1, "Harbor Lights", 2019, ["ハーバーライツ"]),
        _thing(2, "River Traders", 2021, ["Flussh\u00e4ndler", "リバートレーダーズ"]),
        _thing(3, "Harbor Lights: Night Market", 2020, kind="boardgameexpansion"),
        _thing(4, "Coup", 1991), _thing(5, "Coup", 2012),  # the site's Coup has no year: both claim it
        _thing(6, "Agricola", 2016),  # another year: not the site's 2007 Agricola
        _thing(7, "Nothing Like It", 2000),
        _thing(8, "Harbor Lights", 2019),  # a second thing for the same site game... settled by an override
    ])
    report = link_games(con, overrides={8: None, 9: "agricola"}, run_id="r1")
    matches = dict(((b, (g, m)) for b, g, m in con.execute(
        "SELECT bgg_id, game_id, method FROM raw.bgg_game_matches").fetchall()))
    assert matches == {1: ("harbor", "name_year"), 2: ("river", "alternate_year"), 9: ("agricola", "override")}
    assert report["matched"] == 3 and report["by_method"] == {"name_year": 1, "alternate_year": 1, "override": 1}
    assert {"game_id": "coup", "bgg_ids": [4, 5], "reason": "several BGG things match"} in report["ambiguities"]
    assert {m["bgg_id"] for m in report["misses"]} == {6, 7} and report["things"] == 7
    con.close()


def test_overrides_file(tmp_path: Path) -> None:
    path = tmp_path / "overrides.csv"
    path.write_text("bgg_id,game_id\n31260,agricola\n1653,\n", encoding="utf-8")
    assert read_overrides(path) == {31260: "agricola", 1653: None}
    path.write_text("bgg_id,game_id\nx,agricola\n", encoding="utf-8")
    with pytest.raises(ValueError, match="must be a number"):
        read_overrides(path)


# -- a real site, a real BGG sync -------------------------------------------------------


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A crawled sample site; its most popular unowned games matched (by override) to the replay's fixtures."""
    tmp = tmp_path_factory.mktemp("bgg-links")
    warehouse = tmp / "warehouse.duckdb"
    site = generate_site(n_games=40, n_users=30, seed=3, faults=False)
    with SampleSiteServer(site, transient_faults=False) as srv:
        crawl_and_build(srv.base_url, warehouse)
    with duckdb.connect(str(warehouse)) as con:
        member = con.execute("SELECT user_id FROM marts.members WHERE n_games > 0 ORDER BY user_id LIMIT 1").fetchone()[0]
        popular = [r[0] for r in con.execute(
            "SELECT game_id FROM marts.collections GROUP BY game_id HAVING NOT bool_or(user_id = ?) "
            "ORDER BY count(*) DESC, game_id LIMIT 2", [member]).fetchall()]
    overrides = tmp / "overrides.csv"
    overrides.write_text(f"bgg_id,game_id\n900001,{popular[0]}\n900002,{popular[1]}\n", encoding="utf-8")
    links = tmp / "links.csv"
    links.write_text(f"user_id,bgg_user\n{member},alice\n", encoding="utf-8")
    with BggReplayServer(token=TOKEN) as bgg:
        result = run_bgg_sync(api_url=bgg.api_url, warehouse=warehouse, links_file=links, token=TOKEN, delay=0,
                              prepare_delay=0.05, backoff_base=0.05, overrides_file=overrides)
    return {"warehouse": warehouse, "member": member, "popular": popular, "result": result, "links": links,
            "overrides": overrides}


def test_bgg_games_keep_bgg_facts_apart_and_name_the_matched_game(synced: dict) -> None:
    with duckdb.connect(str(synced["warehouse"]), read_only=True) as con:
        rows = con.execute("SELECT bgg_id, game_id, name, year, weight, best_players, recommended_players, "
                           "min_age_suggested, n_owned, n_wishing, is_expansion FROM marts.bgg_games ORDER BY 1").fetchall()
    first, second = synced["popular"]
    assert rows == [
        (900001, first, "Harbor Lights", 2019, 2.4667, [3], [2, 3, 4], 10, 1200, 250, False),
        (900002, second, "River Traders", 2021, None, [4, 5], [3, 4, 5], None, 800, 95, False),
        (900003, None, "Harbor Lights: Night Market", 2020, 2.2, None, None, None, 150, 40, True),
    ]
    assert synced["result"].report["by_method"] == {"override": 2}


def test_a_linked_members_bgg_collection_becomes_training_rows_only(synced: dict) -> None:
    member, (first, second) = synced["member"], synced["popular"]
    with duckdb.connect(str(synced["warehouse"]), read_only=True) as con:
        bgg = con.execute("SELECT user_id, game_id, have, played, favorite, watching, rating "
                          "FROM marts.bgg_interactions ORDER BY game_id").fetchall()
        rows = training_rows(con)
        site = con.sql("SELECT * FROM marts.collections").pl()
        games = con.sql("SELECT * FROM marts.games").pl()
    # alice owns Harbor Lights, played it 3 times, rated it 8.5; River Traders is on her wishlist.
    assert sorted(bgg) == sorted([(member, first, True, True, True, False, 5),
                                  (member, second, False, False, False, True, None)])
    assert rows.height == site.height + 2
    assert not site.filter(pl.col("game_id").is_in([first, second]) & (pl.col("user_id") == member)).height

    def top(collections: pl.DataFrame) -> tuple[list[str], object]:
        # as the night's discovery asset does: cleaned rows, the site rows marked (reasons and shelves)
        found = discover_interactions(
            interactions=mark_site(normalise_interactions(collections), site), content=content,
            champion="popularity", params={}, weighting="graded", run_id="run-1", generated_at=WHEN)
        mine = found.recommendations.filter(pl.col("user_id") == member).sort("rank")
        return mine["game_id"].to_list(), found

    content = ContentModel.fit(catalog_frame(games), None)
    before, _ = top(site)
    after, found = top(rows)
    assert first in before and first not in after and second not in after  # owned on BGG: not news to them
    assert before != after
    shelf = found.watch_next.filter(pl.col("user_id") == member)
    assert second not in shelf["game_id"].to_list()  # their BGG wishlist is never shown as their site watch list
    assert site_rows_only(found.watch_next, site).height == found.watch_next.height  # the shelves: site rows only


def test_a_member_turned_private_or_unlinked_loses_their_bgg_rows(synced: dict, tmp_path: Path) -> None:
    copy = tmp_path / "w.duckdb"
    copy.write_bytes(synced["warehouse"].read_bytes())
    with duckdb.connect(str(copy)) as con:
        purge_members(con, {synced["member"]})
        build_all(con)
        assert con.execute("SELECT count(*) FROM marts.bgg_interactions").fetchone()[0] == 0
    unlinked = tmp_path / "w2.duckdb"
    unlinked.write_bytes(synced["warehouse"].read_bytes())
    with duckdb.connect(str(unlinked)) as con:
        con.execute("DELETE FROM raw.bgg_member_links")
        build_all(con)
        assert con.execute("SELECT count(*) FROM marts.bgg_interactions").fetchone()[0] == 0
