"""Incremental nights: real crawls over HTTP of the sample site night after night, against its truth.

Night 1 is a full crawl into a fresh warehouse; later nights are incremental (the default
once the warehouse holds a complete crawl). After each night the marts must equal that
night's truth: every collection row, the members, the games that came and went, and no
trace of a member who turned private.
"""

from __future__ import annotations

from pathlib import Path


from samplesite import SampleSiteServer, permanent_faults, truth_frames
from samplesite.model import Site
from samplesite.nights import site_on_night
from tests.support.night_checks import collections_differ, frame, trace_of
from tests.support.crawl_fixtures import NIGHTS_GAMES as G, NIGHTS_MEMBERS as U, crawl_and_build


def test_nights_one_to_three_land_every_change_exactly(tmp_path: Path, site: Site) -> None:
    warehouse = tmp_path / "warehouse.duckdb"
    with SampleSiteServer(site) as srv:
        full = crawl_and_build(srv.base_url, warehouse)
        assert full.stats["bodoge/mode"] == "full" and full.stats["bodoge/complete"] is True
        assert collections_differ(warehouse, site) == 0
        nights = {1: site}
        for k in (2, 3):
            nights[k] = night = site_on_night(site, k)
            srv.site = night
            srv.faults.reset()
            result = crawl_and_build(srv.base_url, warehouse)
            stats = result.stats
            assert stats["bodoge/mode"] == "incremental"
            assert result.pages <= 0.10 * full.pages, (result.pages, full.pages)
            assert stats["bodoge/skipped/collections"] > 0.8 * U
            assert collections_differ(warehouse, night) == 0, f"night {k}"
            truth = truth_frames(night)
            members = set(frame(warehouse, "SELECT user_id FROM marts.members")["user_id"])
            assert set(truth["members"]["user_id"]) <= members
            private = truth["private_users"]["user_id"].to_list()
            assert trace_of(warehouse, private) == 0, f"night {k}: a private member left a trace"
            games = set(frame(warehouse, "SELECT game_id FROM marts.games")["game_id"])
            assert set(truth["games"]["game_id"]) <= games
            gone = [night.games[i].game_id for i in night.gone_games]
            assert gone and not games & set(gone)
            marked = frame(warehouse, "SELECT key FROM raw.pages WHERE kind = 'game' AND http_status = 404")
            assert set(gone) <= set(marked["key"])
            assert set(gone) <= set(frame(warehouse, "SELECT game_id FROM raw.games")["game_id"]), "kept in raw"
        # Night 3 again with a one-day max age: every game and post page is revalidated (304 where unchanged).
        srv.faults.reset()
        again = crawl_and_build(srv.base_url, warehouse, max_age_days=1)
        assert again.stats["bodoge/pages/not_modified"] > 0.5 * G  # the rest changed (counters moved)
        assert collections_differ(warehouse, nights[3]) == 0


def test_an_unchanged_site_crawled_twice_fetches_almost_nothing_the_second_time(site: Site, nights_first_crawl) -> None:
    srv, warehouse, first = nights_first_crawl.server, nights_first_crawl.warehouse, nights_first_crawl.full
    second = crawl_and_build(srv.base_url, warehouse)
    fetched = [target for _, target, _ in srv.requests]
    listings = sum(1 for t in fetched if t.startswith(("/games?", "/friends?", "/spaces")))
    others = [t for t in fetched if not t.startswith(("/games?", "/friends?", "/spaces", "/robots.txt"))]
    assert second.stats["bodoge/mode"] == "incremental"
    # the listings that carry the signals, plus only the pages a cut or broken page left to retry
    assert len(others) <= 15, others
    assert second.pages <= listings + len(others) + 1 and second.pages < 0.08 * first.pages
    assert collections_differ(warehouse, site) == 0


def test_a_night_cut_short_by_its_budget_leaves_a_frontier_the_next_night_fetches_first(
        site: Site, nights_first_crawl) -> None:
    srv, warehouse = nights_first_crawl.server, nights_first_crawl.warehouse
    # A cut night leaves a frontier only if some queued page was not fetched before the
    # stop took effect (the pages in flight still land), which depends on timing: the
    # next nights are cut the same way until one leaves a frontier.
    for night in range(2, 6):
        night2 = site_on_night(site, night)
        srv.site = night2
        short = crawl_and_build(srv.base_url, warehouse, max_pages=30)
        queued = frame(warehouse, "SELECT kind, key, url, fetched_at FROM raw.crawl_frontier")
        assert short.stats["finish_reason"] == "closespider_pagecount"
        assert short.stats["bodoge/queue_left"] == queued.height
        if queued.height:
            break
    assert queued.height > 0, "four nights cut at 30 pages and none left a frontier"
    srv.requests.clear()
    rest = crawl_and_build(srv.base_url, warehouse)
    order = [target for _, target, _ in srv.requests if target != "/robots.txt"]
    left = frame(warehouse, "SELECT url FROM raw.crawl_frontier")
    first = order[: queued.height + 16]  # the old frontier goes first (16 requests at a time)
    assert all(any(t.split("?")[0] == url for t in first) for url in queued["url"]), (queued, first)
    broken = {url for url, _ in permanent_faults(night2)}
    assert rest.stats["bodoge/queue_left"] == left.height and set(left["url"]) <= broken, left  # retried each night
    assert collections_differ(warehouse, night2) == 0


def test_a_server_without_validators_gets_the_same_exact_nights(tmp_path: Path, site: Site) -> None:
    warehouse = tmp_path / "warehouse.duckdb"
    night2 = site_on_night(site, 2)
    with SampleSiteServer(site, validators=False) as srv:
        crawl_and_build(srv.base_url, warehouse)
        srv.site = night2
        srv.faults.reset()
        result = crawl_and_build(srv.base_url, warehouse, max_age_days=1)
    assert result.stats.get("bodoge/pages/not_modified", 0) == 0
    assert result.stats["bodoge/pages/same_body"] > 0.5 * G  # unchanged bodies are not parsed again
    assert collections_differ(warehouse, night2) == 0
