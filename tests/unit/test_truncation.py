"""Cut pages: every parser refuses them, `bodoge parse` names them, a crawl keeps what it had.

A page cut off mid-document still answers HTTP 200 and lxml closes what is open, so a
cut page parses into a plausible partial tree. These tests cut real pages (the samples
in ../shared and the sample site's own rendered pages) at every tag boundary and check
that each cut is flagged `truncated`; then crawl the sample site over HTTP with its cut
pages planted and check that nothing already in the warehouse changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from parsel import Selector

from samplesite.faults import TRUNCATED_REASON, cut_collections, cut_games
from samplesite.generator import generate_site
from samplesite.model import Site
from samplesite.render import render
from scrapers import bgg, pages
from scrapers.items import Game
from scrapers.parse import ParseError, parse_document
from tests.support.conftest_shared import shared_file, shared_params
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


SAMPLE_PAGES = ("game", "post", "catalog", "members", "collection-short", "collection-empty",
                "collection-private", "space")
"""The pages of `_sample_pages`, in its order: one case each (the catalog's 746 cuts alone ~0.5 s)."""


@pytest.fixture(scope="module")
def sample_pages(small_site: Site) -> list[tuple[str, str, str]]:
    pages = _sample_pages(small_site)
    assert [kind for kind, _, _ in pages] == [name.split("-")[0] for name in SAMPLE_PAGES]
    return pages


@pytest.mark.parametrize("index", range(len(SAMPLE_PAGES)), ids=SAMPLE_PAGES)
def test_sample_site_pages_cut_at_every_tag_boundary_are_truncated(
        sample_pages: list[tuple[str, str, str]], index: int) -> None:
    kind, url, text = sample_pages[index]
    assert assert_every_cut_is_truncated(text, kind, BASE + url) > 50  # 60 to 746 tags a page


def test_a_closed_listing_without_its_pagination_block_is_whole(sample_pages: list[tuple[str, str, str]]) -> None:
    """Kaminari draws no pagination block on a one-page listing: a closed page without one is whole."""
    checked = 0
    for kind, url, text in sample_pages:
        if kind in ("catalog", "members", "space") or "list--interests-item" in text:
            bare = re.sub(r'<nav class="pagination">.*?</nav>', "", text, flags=re.DOTALL)
            assert bare.endswith("</html>\n") and bare != text
            items = _PARSERS[kind](Selector(text=bare), BASE + url)
            assert items and items == _PARSERS[kind](Selector(text=text), BASE + url)
            assert parse_document(bare.encode("utf-8"), url=BASE + url) == items
            checked += 1
    assert checked == 4


def test_whole_login_and_empty_pages_are_still_recognised(sample_pages: list[tuple[str, str, str]]) -> None:
    for kind, url, text in sample_pages:
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
