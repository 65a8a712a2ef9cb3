"""Linking BGG to the site: game matches, the BGG marts, and linked members' training rows.

Here: the tests that start real processes; the rest of this subject: tests/unit/test_bgg_links.py.
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
from scrapers.bgg_sync import run_bgg_sync
from tests.support.crawl_fixtures import crawl_and_build
from warehouse.bgg_training import site_rows_only, training_rows
from warehouse.build import build_all
from warehouse.privacy.erase import purge_members

TOKEN = "links-test-token-55aa"


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
WHEN = datetime(2026, 11, 1, tzinfo=timezone.utc)


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
