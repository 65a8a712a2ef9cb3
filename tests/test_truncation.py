"""Cut pages: every parser refuses them, `bodoge parse` names them, a crawl keeps what it had.

A page cut off mid-document still answers HTTP 200 and lxml closes what is open, so a
cut page parses into a plausible partial tree. These tests cut real pages (the samples
in ../shared and the sample site's own rendered pages) at every tag boundary and check
that each cut is flagged `truncated`; then crawl the sample site over HTTP with its cut
pages planted and check that nothing already in the warehouse changes.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from parsel import Selector

from samplesite.faults import TRUNCATED_REASON, cut_collections, cut_games
from samplesite.generator import generate_site
from samplesite.model import Site
from samplesite.render import render
from samplesite.server import SampleSiteServer
from scrapers import bgg, pages
from scrapers.items import Game
from scrapers.parse import ParseError, parse_document
from tests.support.conftest_shared import shared_file, shared_params
from tests.support.crawl_fixtures import crawl_and_build
from warehouse.db import connect

ROOT = Path(__file__).resolve().parents[1]
BASE = "https://bodoge.hoobby.net"
_PARSERS: dict[str, Callable[[Selector, str], Any]] = {
    "game": pages.game_item, "catalog": pages.catalog_items, "post": pages.post_item,
    "members": pages.member_items, "collection": pages.collection_items, "space": pages.space_items,
}
#: The shared samples, the parser each page is for, and the URL it was fetched from.
SHARED_PAGES: dict[str, tuple[str, str]] = {
    "game-propolis.html": ("game", f"{BASE}/games/propolis"),
    "game-khora.html": ("game", f"{BASE}/games/khra-rise-an-empire"),
    "games-list-page1.html": ("catalog", f"{BASE}/games?page=1"),
    "rule-post-propolis.html": ("post", f"{BASE}/games/propolis/rules/30114"),
    "members-page1.html": ("members", f"{BASE}/friends?page=1"),
    "collection-17406-page1.html": ("collection", f"{BASE}/friends/17406/boardgames"),
    "collection-empty.html": ("collection", f"{BASE}/friends/17406/boardgames?page=99"),
    "login-required.html": ("collection", f"{BASE}/friends/17406/boardgames"),
    "space-boardgame-lab-games-page1.html": ("space", f"{BASE}/spaces/boardgame-lab/games"),
}


def tag_boundaries(text: str) -> list[int]:
    """Every offset just before a `<` or just after a `>`, up to the end of `</html>`."""
    end = text.lower().rindex("</html>") + len("</html>")
    cuts = {m.start() for m in re.finditer("<", text)} | {m.end() for m in re.finditer(">", text)}
    return sorted(c for c in cuts if 0 < c < end)


def assert_every_cut_is_truncated(text: str, kind: str, url: str) -> int:
    """Parse the page cut at each tag boundary: each must raise TruncatedPage; the whole page parses."""
    parse = _PARSERS[kind]
    parse(Selector(text=text), url)  # the whole page is fine
    cuts = tag_boundaries(text)
    for cut in cuts:
        with pytest.raises(pages.TruncatedPage) as excinfo:
            parse(Selector(text=text[:cut]), url)
        assert excinfo.value.reason == TRUNCATED_REASON, cut
        with pytest.raises(ParseError, match=r"truncated"):
            parse_document(text[:cut].encode("utf-8"), url="saved.html")
    return len(cuts)


@pytest.mark.shared
@pytest.mark.parametrize("name", shared_params("site-samples", "*.html"))
def test_shared_samples_cut_at_every_tag_boundary_are_truncated(name: str) -> None:
    text = shared_file("site-samples", name).read_text(encoding="utf-8")
    kind, url = SHARED_PAGES[name]
    assert assert_every_cut_is_truncated(text, kind, url) > 20


@pytest.fixture(scope="module")
def small_site() -> Site:
    return generate_site(n_games=60, n_users=80, seed=11)


def _sample_pages(site: Site) -> list[tuple[str, str, str]]:
    """(kind, url path, page text) of one page of each kind the sample site serves."""
    game = next(g for g in site.games if g.post_ids and g.mechanics and not g.malformed
                and g.index not in cut_games(site))
    post = site.posts[site.post_by_id[game.post_ids[0]]]
    members = [m for m in site.members if not m.private and m.index not in cut_collections(site)]
    short = next(m for m in members if 2 <= m.n_boardgames <= 4)
    empty = next(m for m in members if m.n_boardgames == 0)
    private = next(m for m in site.members if m.private)
    cafe = site.cafes[0]
    urls = [("game", game.url), ("post", post.url), ("catalog", "/games?page=3"), ("members", "/friends"),
            ("collection", short.collection_url), ("collection", empty.collection_url),
            ("collection", private.collection_url), ("space", f"{cafe.url}/games")]
    return [(kind, url, render(site, url).text) for kind, url in urls]


def test_sample_site_pages_cut_at_every_tag_boundary_are_truncated(small_site: Site) -> None:
    total = 0
    for kind, url, text in _sample_pages(small_site):
        total += assert_every_cut_is_truncated(text, kind, BASE + url)
    assert total > 500


def test_a_closed_listing_without_its_pagination_block_is_whole(small_site: Site) -> None:
    """Kaminari draws no pagination block on a one-page listing: a closed page without one is whole."""
    checked = 0
    for kind, url, text in _sample_pages(small_site):
        if kind in ("catalog", "members", "space") or "list--interests-item" in text:
            bare = re.sub(r'<nav class="pagination">.*?</nav>', "", text, flags=re.DOTALL)
            assert bare.endswith("</html>\n") and bare != text
            items = _PARSERS[kind](Selector(text=bare), BASE + url)
            assert items and items == _PARSERS[kind](Selector(text=text), BASE + url)
            assert parse_document(bare.encode("utf-8"), url=BASE + url) == items
            checked += 1
    assert checked == 4


def test_whole_login_and_empty_pages_are_still_recognised(small_site: Site) -> None:
    for kind, url, text in _sample_pages(small_site):
        if kind == "collection" and "list--interests-item" not in text:
            assert pages.collection_items(Selector(text=text), BASE + url) == []
            assert parse_document(text.encode("utf-8"), url="saved.html") == []


def test_ideographic_space_in_names_is_kept() -> None:
    """`遊んで学べる地理ゲーム　ツイモット` keeps its U+3000; ASCII whitespace still collapses."""
    name = "遊んで学べる地理ゲーム\u3000ツイモット"
    html = f"""<!DOCTYPE html><html><head><title>{name} | ボードゲーム情報</title>
<link rel="canonical" href="{BASE}/games/tsuimotto"></head><body><main id="games-show">
<h1 class="games-title"><span class="games-title-japanese">
  {name}</span><span class="games-title-english">Tsui  Motto</span></h1>
<ul class="games-spec"><li class="games-spec-item games-spec-players">２人～４人</li></ul>
<ul class="games-interests"><li class="games-interest have"><span class="games-interest-count">１２</span>持ってる</li></ul>
<section class="games-overview"><h2>概要</h2><p>地図を広げて\u3000遊ぶ。</p></section>
</main></body></html>"""
    game = pages.game_item(Selector(text=html), f"{BASE}/games/tsuimotto")
    assert isinstance(game, Game)
    assert (game.name_ja, game.name_en) == (name, "Tsui Motto")
    assert (game.min_players, game.max_players, game.n_have) == (2, 4, 12)
    assert game.overview == "地図を広げて\u3000遊ぶ。"
    row = f'<tr class="games-table-row"><td><a href="/games/tsuimotto"><span class="x-japanese">{name}</span></a></td></tr>'
    listing = (f'<html><body><main id="games-index"><table class="games-table">{row}</table>'
               '<nav class="pagination"></nav></main></body></html>')
    assert pages.catalog_items(Selector(text=listing), f"{BASE}/games")[0].name_ja == name


def test_bgg_names_keep_ideographic_space_and_a_cut_response_is_an_error() -> None:
    xml = ('<?xml version="1.0" encoding="utf-8"?><items termsofuse="x"><item type="boardgame" id="7">'
           '<name type="primary" value="Tsui\u3000Motto"/><name type="alternate" value="地理ゲーム\u3000ツイモット"/>'
           "</item></items>")
    (game,) = bgg.bgg_thing_items(xml)
    assert (game.name_en, game.name_ja) == ("Tsui\u3000Motto", "地理ゲーム\u3000ツイモット")
    for cut in range(1, len(xml)):
        with pytest.raises(bgg.BggError, match="^truncated"):
            bgg.bgg_thing_items(xml[:cut])
    with pytest.raises(bgg.BggError, match="^not a BoardGameGeek"):  # broken, not cut
        bgg.bgg_thing_items(xml.replace("</item>", "</itemx>"))


@pytest.mark.shared
@pytest.mark.parametrize("name", shared_params("bgg-xml", "*.xml"))
def test_shared_bgg_xml_cut_anywhere_is_truncated(name: str) -> None:
    data = shared_file("bgg-xml", name).read_bytes()
    end = data.rstrip().rindex(b">") + 1
    for cut in range(1, end, max(1, end // 150)):
        with pytest.raises(bgg.BggError, match="^truncated"):
            bgg._root(data[:cut])
    bgg._root(data)


def _run_parse(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bodoge.cli", "parse", str(path), *extra], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_bodoge_parse_on_a_cut_page_fails_with_one_line(small_site: Site, tmp_path: Path) -> None:
    game = next(g for g in small_site.games if g.index in cut_games(small_site))
    page = tmp_path / "cut.html"
    page.write_bytes(render(small_site, game.url).body)
    whole = tmp_path / "whole.html"
    whole.write_bytes(render(small_site, small_site.games[0].url).body)
    xml = tmp_path / "thing.xml"
    xml.write_text('<?xml version="1.0"?><items><item type="boardgame" id="1"><name type="primary" value="A"/>',
                   encoding="utf-8")
    for path in (page, xml):
        out = _run_parse(path)
        assert out.returncode != 0 and out.stdout == ""
        assert out.stderr.startswith("bodoge: error: ") and "truncated" in out.stderr, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1
    assert _run_parse(page, "--kind", "game").returncode != 0
    ok = _run_parse(whole)
    assert ok.returncode == 0 and '"kind": "game"' in ok.stdout


# --- a real crawl over HTTP: cut pages change nothing --------------------------------


def _rows(warehouse: Path, sql: str, params: list[Any] | None = None) -> pl.DataFrame:
    with connect(warehouse, read_only=True) as con:
        return con.sql(sql, params=params).pl()


def _whole_and_cut(*, n_users: int, cut_pages: Callable[[Site], frozenset[int]]) -> tuple[Site, Site, int]:
    """The same site twice, whole and with one page cut by `cut_pages`, and which page that is."""
    whole = generate_site(n_games=40, n_users=n_users, seed=5, faults=False)
    cut = generate_site(n_games=40, n_users=n_users, seed=5)
    (index,) = cut_pages(cut)
    return whole, cut, index


@pytest.mark.slow
def test_a_cut_game_page_keeps_the_values_of_the_last_whole_crawl(tmp_path: Path) -> None:
    whole, cut, index = _whole_and_cut(n_users=30, cut_pages=cut_games)
    game = cut.games[index]
    warehouse = tmp_path / "warehouse.duckdb"
    with SampleSiteServer(whole, transient_faults=False) as server:
        crawl_and_build(server.base_url, warehouse, sections=["games"])
    cols = "game_id, n_watching, n_played, n_favorite, n_have, mechanics, designers, run_id"
    before = _rows(warehouse, f"SELECT {cols} FROM raw.games WHERE game_id = ?", [game.game_id])
    assert before["mechanics"].to_list() == [list(game.mechanic_labels)] and before["n_have"][0] == game.n_have
    with SampleSiteServer(cut, transient_faults=False) as server:
        crawl_and_build(server.base_url, warehouse, sections=["games"])
    after = _rows(warehouse, f"SELECT {cols} FROM raw.games WHERE game_id = ?", [game.game_id])
    assert after.equals(before)  # same values, and still the first run's row
    marts = _rows(warehouse, "SELECT n_watching, n_played, n_favorite, n_have, mechanics FROM marts.games "
                             "WHERE game_id = ?", [game.game_id]).row(0)
    assert marts == (game.n_watching, game.n_played, game.n_favorite, game.n_have, list(game.mechanic_labels))
    quarantine = _rows(warehouse, "SELECT url, reason, http_status FROM raw.quarantine WHERE reason = 'truncated'")
    assert [(u.split("/", 3)[3], r, s) for u, r, s in quarantine.iter_rows()] == [
        (game.url.lstrip("/"), TRUNCATED_REASON, 200)]
    runs = _rows(warehouse, "SELECT count(DISTINCT run_id) AS n FROM raw.games")["n"][0]
    assert runs == 2  # the other games were refreshed by the second crawl


@pytest.mark.slow
def test_a_cut_collection_page_deletes_nothing(tmp_path: Path) -> None:
    whole, cut, index = _whole_and_cut(n_users=60, cut_pages=cut_collections)
    member = cut.members[index]
    other = next(m for m in cut.members if not m.private and m.n_boardgames > 20 and m.index != index)
    users = [member.user_id, other.user_id]
    warehouse = tmp_path / "warehouse.duckdb"
    with SampleSiteServer(whole, transient_faults=False) as server:
        crawl_and_build(server.base_url, warehouse, sections=["members"], users=users)
    sql = "SELECT user_id, game_id, have, played, favorite, watching, rating, run_id FROM raw.collection_entries"
    before = _rows(warehouse, f"{sql} ORDER BY user_id, game_id")
    assert before.filter(pl.col("user_id") == member.user_id).height == member.n_boardgames > 20
    with SampleSiteServer(cut, transient_faults=False) as server:
        base_url = server.base_url
        crawl_and_build(base_url, warehouse, sections=["members"], users=users)
    after = _rows(warehouse, f"{sql} ORDER BY user_id, game_id")
    mine = pl.col("user_id") == member.user_id
    assert after.filter(mine).equals(before.filter(mine))  # untouched: same rows, first run's run_id
    assert after.filter(~mine).drop("run_id").equals(before.filter(~mine).drop("run_id"))
    assert not set(after.filter(~mine)["run_id"]) & set(before.filter(~mine)["run_id"])  # refreshed
    listings = dict(_rows(warehouse, "SELECT key, status FROM raw.listing_crawls").iter_rows())
    assert listings == {member.user_id: "incomplete", other.user_id: "public"}
    reasons = _rows(warehouse, "SELECT url, reason FROM raw.quarantine")
    assert reasons.rows() == [(f"{base_url}{member.collection_url}", TRUNCATED_REASON)]
    assert _rows(warehouse, "SELECT count(*) AS n FROM marts.collections WHERE user_id = ?",
                 [member.user_id])["n"][0] == member.n_boardgames
