"""The catalogue and game pages: inline pages in the site's shape, then the shared samples."""

from __future__ import annotations

import pytest

from scrapers.items import Game, GameSummary
from scrapers.pages import (
    PageParseError,
    catalog_items,
    game_item,
    game_links,
    next_page_url,
    post_links,
    space_links,
)

from tests.support.page_fixtures import BASE, CATALOG_HTML, GAME_HTML, sample, sel


def test_game_page_inline() -> None:
    game = game_item(sel(GAME_HTML), f"{BASE}/games/test-game")
    assert game == Game(
        game_id="test-game", name_ja="テストゲーム", name_en="Test Game",
        min_players=2, max_players=5, min_minutes=45, max_minutes=45, min_age=8, year=2020,
        n_watching=7, n_played=0, n_favorite=None, n_have=1024,
        designers=["山田 太郎", "Jane Doe"], mechanics=["セットコレクション"], themes=[],
        overview="一行目。\n二行目\n三行目", url=f"{BASE}/games/test-game",
    )


def test_game_page_without_spans_canonical_or_spec_classes() -> None:
    """Fallbacks: names from `<title>`, id from the URL, specs by unit, 未登録 age."""
    html = """<html><head><title>ボドゲ / Bodoge | ボードゲーム情報</title></head><body><main>
      <h1>ボドゲ</h1><ul><li>3人～6人</li><li>20分〜40分</li><li>未登録</li><li>2019年</li></ul>
      <p>ゲームデザイナー <a href="/designers/9">作者</a></p>
      <p>テーマ: <a href="/games?themes=sf">SF</a><a href="/games?themes=space">宇宙</a></p>
      <ul><li>3興味あり</li><li>4経験あり</li><li>5お気に入り</li><li>6持ってる</li></ul>
    </main></body></html>"""
    game = game_item(sel(html), f"{BASE}/games/bodoge?ref=x")
    assert (game.game_id, game.name_ja, game.name_en) == ("bodoge", "ボドゲ", "Bodoge")
    assert (game.min_players, game.max_players, game.min_minutes, game.max_minutes) == (3, 6, 20, 40)
    assert (game.min_age, game.year) == (None, 2019)
    assert (game.n_watching, game.n_played, game.n_favorite, game.n_have) == (3, 4, 5, 6)
    assert game.designers == ["作者"]
    assert game.themes == ["SF", "宇宙"]
    assert game.url == f"{BASE}/games/bodoge?ref=x"


@pytest.mark.parametrize(
    ("html", "reason"),
    [
        ('<html><body><main id="games-show"><ul class="games-spec"><li>2人</li></ul></main></body></html>',
         "game page has no title"),
        ('<html><head><link rel="canonical" href="https://bodoge.hoobby.net/games/x"><title>X | ボード',
         "truncated"),
        ('<html><body><main id="games-show"><h1 class="games-title"><span class="games-title-japanese">名前</span>',
         "truncated"),
        ('<html><body><main id="games-show"><h1 class="games-title"><span class="games-title-japanese">名前</span>'
         "</h1></main></body></html>",
         "game page has no game id"),
        ("", "game page has no title"),
    ],
)
def test_malformed_game_page_raises(html: str, reason: str) -> None:
    with pytest.raises(PageParseError) as excinfo:
        game_item(sel(html or "<html></html>"), "saved.html")
    assert excinfo.value.reason == reason


def test_catalog_inline() -> None:
    items = catalog_items(sel(CATALOG_HTML), f"{BASE}/games?page=2")
    assert items == [
        GameSummary(game_id="a-game", name_ja="エー", name_en="A", min_players=2, max_players=4,
                    min_minutes=30, max_minutes=60, min_age=10, year=2024),
        GameSummary(game_id="b-game", name_ja="2人", name_en=None, min_players=None, max_players=None,
                    min_minutes=10, max_minutes=10, min_age=None, year=None),
    ]
    assert next_page_url(sel(CATALOG_HTML), f"{BASE}/games?page=2") == f"{BASE}/games?page=3"
    assert game_links(sel(CATALOG_HTML), f"{BASE}/games?page=2") == [f"{BASE}/games/a-game", f"{BASE}/games/b-game"]


def test_catalog_without_any_class_names() -> None:
    """With every class gone, rows are the `<tr>`s linking a game; names split by script."""
    html = """<html><body><main><table><tr><th>ゲーム名</th></tr>
      <tr><td><a href="/games/c-game"><span>シー</span><span>Sea</span></a></td><td>3人～5人<br>60分前後</td>
      <td>未登録</td><td>2001年</td></tr></table><nav class="pagination"><span>1</span></nav></main></body></html>"""
    assert catalog_items(sel(html), f"{BASE}/games") == [
        GameSummary(game_id="c-game", name_ja="シー", name_en="Sea", min_players=3, max_players=5,
                    min_minutes=60, max_minutes=60, min_age=None, year=2001),
    ]


def test_catalog_row_without_game_link_raises() -> None:
    html = ('<html><body><main id="games-index"><table class="games-table"><tr class="games-table-row"><td>名前'
            '</td></tr></table><nav class="pagination"></nav></main></body></html>')
    with pytest.raises(PageParseError, match="no game link"):
        catalog_items(sel(html), f"{BASE}/games")


def test_listing_of_another_page_raises() -> None:
    with pytest.raises(PageParseError, match="no rows and no empty-list marker"):
        catalog_items(sel(GAME_HTML.replace('href="/games/other-game"', "")), f"{BASE}/games")


def test_links_on_inline_game_page() -> None:
    page, url = sel(GAME_HTML), f"{BASE}/games/test-game"
    assert post_links(page, url) == [f"{BASE}/games/test-game/rules/10", f"{BASE}/games/test-game/reviews/11"]
    assert game_links(page, url) == [f"{BASE}/games/other-game"]
    assert space_links(page, url) == [f"{BASE}/spaces/cafe-a"]
    assert next_page_url(page, url) is None


@pytest.mark.shared
def test_sample_game_propolis() -> None:
    game = game_item(sample("game-propolis.html"), "game-propolis.html")
    assert (game.game_id, game.name_ja, game.name_en) == ("propolis", "プロポリス", "PROPOLIS")
    assert (game.min_players, game.max_players, game.min_minutes, game.max_minutes) == (1, 4, 15, 30)
    assert (game.min_age, game.year) == (10, 2025)
    assert (game.n_watching, game.n_played, game.n_favorite, game.n_have) == (9, 13, 2, 14)
    assert game.designers == ["ジョン・D・クレア（John D. Clair）"]
    assert game.mechanics == ["ワーカープレイスメント", "エリアマジョリティ", "エンジンビルド"]
    assert game.themes == ["動物", "中世"]
    assert game.overview is not None and game.overview.startswith("PROPOLIS™は、1〜4人のプレイヤー向けの")
    assert game.url == f"{BASE}/games/propolis"
    url = f"{BASE}/games/propolis"
    assert post_links(sample("game-propolis.html"), url) == [f"{url}/rules/41877", f"{url}/reviews/77201"]
    assert space_links(sample("game-propolis.html"), url) == [f"{BASE}/spaces/boardgame-lab"]


@pytest.mark.shared
def test_sample_game_khora() -> None:
    game = game_item(sample("game-khora.html"), "game-khora.html")
    assert game == Game(
        game_id="khra-rise-an-empire", name_ja="コーラ：ライズ・オブ・アン・エンパイア", name_en="Khôra: Rise of an Empire",
        min_players=2, max_players=4, min_minutes=75, max_minutes=75, min_age=14, year=2021,
        n_watching=144, n_played=358, n_favorite=120, n_have=249,
        designers=["イオアニス・ステファニス（Ioannis Stefanidis）", "ゼノフォン・カトラミス（Xenofon Katramis）"],
        mechanics=["ダイスロール", "プレイヤー別能力"], themes=["文明"],
        overview="古代ギリシャの都市国家を率い、9ラウンドで最も多くの勝利点を獲得することを目指します。",
        url=f"{BASE}/games/khra-rise-an-empire",
    )


@pytest.mark.shared
def test_sample_catalog() -> None:
    page = sample("games-list-page1.html")
    items = catalog_items(page, f"{BASE}/games?page=1")
    assert [i.game_id for i in items] == ["propolis", "sky-team", "yes-man-wo-sagase", "party-kingo"]
    assert items[0] == GameSummary(game_id="propolis", name_ja="プロポリス", name_en="PROPOLIS", min_players=1,
                                   max_players=4, min_minutes=15, max_minutes=30, min_age=10, year=2025)
    assert (items[1].min_players, items[1].max_players, items[1].min_minutes, items[1].max_minutes) == (2, 2, 15, 15)
    assert items[2] == GameSummary(game_id="yes-man-wo-sagase", name_ja="YESマンをさがせ", name_en="Yes man wo sagase",
                                   min_players=None, max_players=None, min_minutes=None, max_minutes=None,
                                   min_age=None, year=None)
    assert (items[3].min_players, items[3].max_players, items[3].min_minutes, items[3].min_age, items[3].year) == (
        1, 65536, 20, 6, 2019)
    assert next_page_url(page, f"{BASE}/games?page=1") == f"{BASE}/games?page=2"
    assert len(game_links(page, f"{BASE}/games?page=1")) == 4
