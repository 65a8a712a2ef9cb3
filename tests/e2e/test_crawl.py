"""A real Scrapy crawl over HTTP of a generated site, compared field by field with its truth.

One module-scoped crawl (small site, faults on) feeds most tests; re-crawl, removal and
politeness tests crawl again against the same or an evolved site.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from samplesite.faults import TRUNCATED_REASON, cut_collections, cut_games
from samplesite.generator import generate_site
from samplesite.server import SampleSiteServer
from samplesite.truth import truth_frames
from tests.support.crawl_fixtures import crawl_and_build, without_entries
from warehouse.db import connect

SPEC = ["min_players", "max_players", "min_minutes", "max_minutes", "min_age", "year"]
COUNTERS = ["n_watching", "n_played", "n_favorite", "n_have"]


@pytest.fixture(scope="module")
def site():
    return generate_site(n_games=150, n_users=260, seed=7)


@pytest.fixture(scope="module")
def truth(site):
    return truth_frames(site)


@pytest.fixture(scope="module")
def served(site):
    with SampleSiteServer(site) as server:
        yield server


@pytest.fixture(scope="module")
def crawled(served, tmp_path_factory):
    warehouse = tmp_path_factory.mktemp("crawl") / "warehouse.duckdb"
    result = crawl_and_build(served.base_url, warehouse)
    return warehouse, result


def query(warehouse: Path, sql: str) -> pl.DataFrame:
    with connect(warehouse, read_only=True) as con:
        return con.sql(sql).pl()


def sort(frame: pl.DataFrame, *keys: str) -> pl.DataFrame:
    return frame.sort(list(keys))


def test_games_equal_truth_field_by_field(crawled, truth) -> None:
    warehouse, _ = crawled
    cols = ["game_id", "name_ja", "name_en", *SPEC, *COUNTERS, "designers", "mechanics", "themes"]
    got = query(warehouse, f"SELECT {', '.join(cols)}, url FROM marts.games WHERE source = 'page'")
    exp = truth["games"]
    assert got.height == exp.height
    cast = {c: pl.Int64 for c in SPEC + COUNTERS}
    assert_frame_equal(sort(got.select(cols).cast(cast), "game_id"), sort(exp.select(cols).cast(cast), "game_id"))
    assert got["url"].str.ends_with("/games/" + got["game_id"]).all()
    assert got["name_ja"].str.contains("\u3000").any()  # an ideographic space is stored as shown


def test_catalogue_covers_games_whose_page_is_broken(crawled, truth, site) -> None:
    warehouse, _ = crawled
    catalog_only = set(query(warehouse, "SELECT game_id FROM marts.games WHERE source = 'catalog'")["game_id"])
    assert catalog_only == {g.game_id for g in site.games if g.malformed} | {site.games[i].game_id for i in cut_games(site)}
    assert query(warehouse, "SELECT count(*) AS n FROM marts.games")["n"][0] == len(site.games)


def test_collections_equal_truth_exactly(crawled, truth) -> None:
    warehouse, _ = crawled
    cols = ["user_id", "game_id", "have", "played", "favorite", "watching", "rating"]
    got = query(warehouse, f"SELECT {', '.join(cols)}, updated_at FROM marts.collections")
    exp = truth["collections"]
    assert got.height == exp.height > 1000
    assert_frame_equal(
        sort(got.select(cols).cast({"rating": pl.Int64}), "user_id", "game_id"),
        sort(exp.select(cols).cast({"rating": pl.Int64}), "user_id", "game_id"),
    )
    # timestamps: the same instants as published
    exp_ts = exp.select("user_id", "game_id", pl.col("updated_at").str.to_datetime("%Y-%m-%dT%H:%M:%S%:z").dt.convert_time_zone("Etc/UTC"))
    joined = got.select("user_id", "game_id", "updated_at").join(exp_ts, on=["user_id", "game_id"], suffix="_exp")
    assert (joined["updated_at"] == joined["updated_at_exp"]).all()


def test_members_posts_and_cafes_equal_truth(crawled, truth) -> None:
    warehouse, _ = crawled
    members = query(warehouse, "SELECT user_id, name FROM raw.members")
    assert_frame_equal(sort(members, "user_id"), sort(truth["members"].select("user_id", "name"), "user_id"))
    cafes = query(warehouse, "SELECT space_slug, game_id, space_name FROM marts.cafe_games")
    assert_frame_equal(sort(cafes, "space_slug", "game_id"),
                       sort(truth["cafe_games"].select("space_slug", "game_id", "space_name"), "space_slug", "game_id"))
    posts = query(warehouse, "SELECT post_id, game_id, post_kind, author_user_id, title, published_at FROM raw.posts")
    private = set(truth["private_users"]["user_id"])
    exp = truth["posts"].with_columns(
        pl.when(pl.col("author_user_id").is_in(list(private))).then(None).otherwise(pl.col("author_user_id"))
        .alias("author_user_id")
    ).with_columns(pl.col("post_id").cast(pl.String))
    assert_frame_equal(sort(posts, "post_id"), sort(exp.select(posts.columns), "post_id"))


def test_broken_pages_are_quarantined_and_the_crawl_goes_on(crawled, truth) -> None:
    warehouse, result = crawled
    got = query(warehouse, "SELECT url, reason, http_status, body_sha256 FROM raw.quarantine")
    paths = sorted(u.split("//", 1)[1].split("/", 1)[1] for u in got["url"])
    assert ["/" + p for p in paths] == sorted(truth["quarantine"]["url"])
    cut_urls = got.filter(pl.col("reason") == TRUNCATED_REASON)["url"]
    truncated = {"/" + u.split("//", 1)[1].split("/", 1)[1] for u in cut_urls}
    assert truncated == set(truth["quarantine"].filter(pl.col("reason") == TRUNCATED_REASON)["url"])
    assert len(truncated) >= 2  # a cut game page and a cut collection page at least
    assert got.filter(pl.col("http_status") == 200)["body_sha256"].str.len_chars().to_list() == [64] * int(
        (got["http_status"] == 200).sum()
    )
    assert query(warehouse, "SELECT status FROM raw.crawl_runs")["status"].to_list() == ["finished"]
    assert result.stats.get("retry/count", 0) > 0  # transient 503/429 answers were retried, and recovered


def test_cut_pages_leave_their_listing_incomplete_and_give_nothing(crawled, truth, site) -> None:
    """The cut member's listing is `incomplete` (nothing deleted), every other public one complete."""
    warehouse, _ = crawled
    listings = query(warehouse, "SELECT key, status FROM raw.listing_crawls WHERE listing = 'collection'")
    statuses = dict(listings.iter_rows())
    cut = {site.members[i].user_id for i in cut_collections(site)}
    assert cut and {statuses[u] for u in cut} == {"incomplete"}
    public = set(truth["members"]["user_id"])
    assert {statuses[u] for u in public - cut} <= {"public", "empty"}
    got_users = set(query(warehouse, "SELECT DISTINCT user_id FROM raw.collection_entries")["user_id"])
    assert not cut & got_users  # first crawl: nothing taken from the cut page 1
    cut_ids = {site.games[i].game_id for i in cut_games(site)}
    assert cut_ids and not cut_ids & set(query(warehouse, "SELECT game_id FROM raw.games")["game_id"])


def test_no_trace_of_private_members(crawled, truth) -> None:
    warehouse, _ = crawled
    private = set(truth["private_users"]["user_id"])
    assert private
    with connect(warehouse, read_only=True) as con:
        columns = con.execute(
            "SELECT table_schema, table_name, column_name FROM information_schema.columns "
            "WHERE data_type = 'VARCHAR' AND (column_name LIKE '%user_id%' OR column_name IN ('key', 'url'))"
        ).fetchall()
        for schema, table, column in columns:
            values = {r[0] for r in con.execute(f'SELECT DISTINCT "{column}" FROM {schema}.{table}').fetchall()}
            leaked = {v for v in values if v and (v in private or any(f"/friends/{p}/" in v for p in private))}
            assert not leaked, f"{schema}.{table}.{column}"


def test_empty_collections_leave_a_member_without_entries(crawled, truth) -> None:
    warehouse, _ = crawled
    empty = set(truth["empty_users"]["user_id"])
    rows = query(warehouse, "SELECT user_id, n_games FROM marts.members")
    assert empty and empty <= set(rows["user_id"])
    assert rows.filter(pl.col("user_id").is_in(list(empty)))["n_games"].sum() == 0


def test_second_crawl_adds_no_duplicates(crawled, served, truth) -> None:
    warehouse, _ = crawled
    before = {t: query(warehouse, f"SELECT count(*) AS n FROM raw.{t}")["n"][0]
              for t in ("games", "collection_entries", "members", "posts", "cafe_games", "quarantine")}
    crawl_and_build(served.base_url, warehouse)
    after = {t: query(warehouse, f"SELECT count(*) AS n FROM raw.{t}")["n"][0] for t in before}
    assert after == before
    assert query(warehouse, "SELECT count(*) AS n FROM marts.collections")["n"][0] == truth["collections"].height
    assert query(warehouse, "SELECT count(DISTINCT run_id) AS n FROM raw.collection_entries")["n"][0] == 1
    assert query(warehouse, "SELECT count(*) AS n FROM raw.crawl_runs")["n"][0] == 2


def test_removed_entry_disappears_after_the_next_crawl(site, tmp_path) -> None:
    member = next(m for m in site.members
                  if not m.private and site.collections.offsets[m.index + 1] - site.collections.offsets[m.index] > 25)
    warehouse = tmp_path / "warehouse.duckdb"
    with SampleSiteServer(site, transient_faults=False) as server:
        crawl_and_build(server.base_url, warehouse, sections=["members"], users=[member.user_id])
    before = query(warehouse, "SELECT game_id FROM marts.collections")["game_id"].to_list()
    evolved = without_entries(site, member.index, 3)
    with SampleSiteServer(evolved, transient_faults=False) as server:
        crawl_and_build(server.base_url, warehouse, sections=["members"], users=[member.user_id])
    after = query(warehouse, "SELECT game_id FROM marts.collections")["game_id"].to_list()
    removed = {site.games[int(g)].game_id for g in site.collections.game[site.collections.offsets[member.index]:][:3]}
    assert len(after) == len(before) - 3 and set(before) - set(after) == removed


def test_robots_txt_is_obeyed(served, crawled) -> None:
    targets = [t for _, t, _ in served.requests]
    assert "/robots.txt" in targets
    assert not [t for t in targets if t.startswith(("/login", "/mypage", "/shop/cart"))]
