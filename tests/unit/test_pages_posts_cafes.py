"""Cafe game lists and rule/review posts."""

from __future__ import annotations

import pytest

from scrapers.items import CafeGame, Post
from scrapers.pages import PageParseError, author_links, post_item, space_items

from tests.support.page_fixtures import BASE, POST_HTML, SPACE_HTML, sample, sel


def test_space_inline() -> None:
    items = space_items(sel(SPACE_HTML), f"{BASE}/spaces/cafe-a/games?page=1")
    assert items == [
        CafeGame(space_slug="cafe-a", space_name="カフェA", game_id="a-game", name_ja="エー", name_en=None,
                 min_players=2, max_players=4, min_minutes=10, max_minutes=10, min_age=20, year=None),
        CafeGame(space_slug="cafe-a", space_name="カフェA", game_id="b-game", name_ja=None, name_en="B",
                 min_players=1, max_players=1, min_minutes=None, max_minutes=None, min_age=None, year=2023),
    ]
    with pytest.raises(PageParseError, match="no space slug"):
        space_items(sel(SPACE_HTML), "saved.html")


def test_post_inline() -> None:
    post = post_item(sel(POST_HTML), "saved-review.html")
    assert post == Post(
        post_id="99", game_id="a-game", post_kind="review", author_user_id="11",
        title="エー ねこさんのレビュー", body="感想\n楽しい。\n良い点\n悪い点\n本文の続き",
        published_at="2026-02-03T04:05:06+09:00",
    )
    assert author_links(sel(POST_HTML), f"{BASE}/games/a-game/reviews/99") == [f"{BASE}/friends/11", f"{BASE}/friends/12"]


def test_post_ids_from_url_when_markup_lacks_them() -> None:
    html = POST_HTML.replace(' data-post-id="99" data-post-kind="review"', "")
    post = post_item(sel(html), f"{BASE}/games/a-game/rules/123")
    assert (post.post_id, post.post_kind, post.game_id) == ("123", "rule", "a-game")
    with pytest.raises(PageParseError, match="no post id"):
        post_item(sel(html), "saved.html")


@pytest.mark.shared
def test_sample_space() -> None:
    items = space_items(sample("space-boardgame-lab-games-page1.html"), "space.html")
    assert {(i.space_slug, i.space_name) for i in items} == {("boardgame-lab", "ボドゲ研究所")}
    assert [i.game_id for i in items] == ["cubitos", "witness-night", "daimyo-green", "barten-doubt"]
    assert items[0] == CafeGame(space_slug="boardgame-lab", space_name="ボドゲ研究所", game_id="cubitos",
                                name_ja="キュビトス", name_en="Cubitos", min_players=2, max_players=4,
                                min_minutes=30, max_minutes=60, min_age=10, year=2021)
    assert (items[2].min_players, items[2].max_players, items[2].min_minutes, items[2].max_minutes) == (2, 2, 60, 90)
    assert (items[3].min_minutes, items[3].max_minutes, items[3].min_age, items[3].year) == (15, 25, None, None)


@pytest.mark.shared
def test_sample_rule_post() -> None:
    page = sample("rule-post-propolis.html")
    post = post_item(page, "rule-post-propolis.html")
    assert (post.post_id, post.game_id, post.post_kind, post.author_user_id) == ("41877", "propolis", "rule", "88120")
    assert post.title == "プロポリス jurongさんのルール/インスト"
    assert post.published_at == "2026-10-19T12:00:00+09:00"
    assert post.body is not None
    assert post.body.split("\n")[:2] == [
        "概要", "PROPOLIS™は、1〜4人のプレイヤー向けのワーカープレイスメント、エンジン建築、エリアコントロール、およびタブロー建築ゲームです。"
    ]
    assert post.body.count("\n") == 7
    assert author_links(page, f"{BASE}/games/propolis/rules/41877") == [f"{BASE}/friends/88120"]
