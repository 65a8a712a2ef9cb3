"""scrapers.pages and scrapers.parse on pages of the site.

Two halves: small pages written here in the site's shape (they run on a fresh clone),
and every sample in ../shared/site-samples with concrete expected values (skipped
where ../shared is absent).
"""

from __future__ import annotations

import pytest
from parsel import Selector

from scrapers.items import CafeGame, CollectionEntry, Game, GameSummary, Member, Post
from scrapers.pages import (
    PageParseError,
    author_links,
    catalog_items,
    collection_items,
    game_item,
    game_links,
    is_empty_listing,
    is_login_page,
    member_items,
    member_links,
    next_page_url,
    post_item,
    post_links,
    space_items,
    space_links,
)
from scrapers.pages.markup import class_tokens, css, first, main_of, string, xpath
from scrapers.parse import ParseError, detect_kind, parse_document
from tests.conftest_shared import shared_file, shared_params

BASE = "https://bodoge.hoobby.net"


def sel(html: str) -> Selector:
    """A Selector over an inline page."""
    return Selector(text=html)


# --- inline pages in the site's shape ------------------------------------------------

GAME_HTML = """<html><head><title>テストゲーム / Test Game | ボードゲーム情報</title>
<link rel="canonical" href="https://bodoge.hoobby.net/games/test-game"></head>
<body><header><a href="/login">ログイン</a></header>
<main id="games-show" data-game-id="1">
 <h1 class="games-title"><span class="games-title-japanese">テストゲーム</span>
   <span class="games-title-english">Test  Game</span></h1>
 <ul class="games-spec">
  <li class="games-spec-item games-spec-year">２０２０年～</li>
  <li class="games-spec-item games-spec-players">２人〜５人</li>
  <li class="games-spec-item games-spec-age">8歳から</li>
  <li class="games-spec-item games-spec-playtime">45分前後</li>
 </ul>
 <ul class="games-interests">
  <li class="games-interest have"><span class="games-interest-count">1,024</span>持ってる</li>
  <li class="games-interest watching"><span class="games-interest-count">７</span>興味あり</li>
  <li class="games-interest played"><span class="games-interest-count">0</span>経験あり</li>
 </ul>
 <section class="games-credit"><dl>
  <dt>ゲームデザイナー</dt><dd><a href="/designers/1">山田 太郎</a><a href="/designers/2">Jane Doe</a></dd>
  <dt>メカニクス</dt><dd><a href="/games?mechanics=set-collection">セットコレクション</a></dd>
 </dl></section>
 <section class="games-overview"><h2>概要</h2><p>一行目。</p><p>二行目<br>三行目</p></section>
 <section class="games-posts"><ul>
  <li><a href="/games/test-game/rules/10">ルール</a><span>1年以上前</span></li>
  <li><a href="/games/test-game/reviews/11">レビュー</a></li>
  <li><a href="/games/test-game/rules/10">ルール (dup)</a></li>
 </ul></section>
 <a href="/games/other-game">関連</a><a href="https://example.com/games/elsewhere">外部</a>
 <a href="/spaces/cafe-a">カフェA</a><a href="/spaces/cafe-a/games?page=2">カフェA 2</a>
</main></body></html>"""


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


CATALOG_HTML = """<html><body><main id="games-index"><p class="games-index-total">全1,234個</p>
<table class="games-table"><tbody>
 <tr class="games-table-row"><td class="games-table-name"><a href="/games/a-game">
   <span class="games-table-name-japanese">エー</span><span class="games-table-name-english">A</span></a></td>
   <td class="games-table-spec">２人～４人<br>30分～60分</td><td class="games-table-age">10歳～</td>
   <td class="games-table-year">2024年</td></tr>
 <tr class="games-table-row"><td class="games-table-name"><a href="/games/b-game">
   <span class="games-table-name-japanese">2人</span></a></td>
   <td class="games-table-spec">10分前後</td><td class="games-table-age">未登録</td><td class="games-table-year"></td></tr>
</tbody></table>
<nav class="pagination"><a class="page" href="/games?page=1">1</a><a href="/games?page=3">次へ</a></nav>
</main></body></html>"""


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


COLLECTION_HTML = """<html><body><main id="friends-boardgames" data-friend-id="501">
<div class="list--interests">
 <div class="list--interests-item" data-updated-at="2026-01-02T03:04:05+09:00">
  <a class="list--interests-item-title" href="/games/x-game">
   <div class="list--interests-item-title-japanese">エックス</div></a>
  <div class="rating--result-stars" data-rating-result="0"></div>
  <ul class="friend-interests"><li class="friend-interest have on">持ってる</li>
   <li class="friend-interest played off">経験あり</li><li class="friend-interest favorite on">お気に入り</li>
   <li class="friend-interest watching off">興味あり</li></ul></div>
 <div class="list--interests-item" data-updated-at="not a date">
  <a href="https://bodoge.hoobby.net/games/y-game">ワイ</a>
  <div class="rating--result-stars" data-rating-result="2"></div>
  <ul class="friend-interests"><li class="friend-interest watching on">興味あり</li></ul></div>
</div>
<nav class="pagination"><span class="page current">1</span></nav></main></body></html>"""


def test_collection_inline() -> None:
    entries = collection_items(sel(COLLECTION_HTML), f"{BASE}/friends/501/boardgames")
    assert entries == [
        CollectionEntry(user_id="501", game_id="x-game", have=True, played=False, favorite=True,
                        watching=False, rating=None, updated_at="2026-01-02T03:04:05+09:00"),
        CollectionEntry(user_id="501", game_id="y-game", have=False, played=False, favorite=False,
                        watching=True, rating=2, updated_at=None),
    ]


def test_collection_owner_from_url_when_no_data_attribute() -> None:
    html = COLLECTION_HTML.replace(' data-friend-id="501"', "")
    entries = collection_items(sel(html), f"{BASE}/friends/777/boardgames/have?page=3")
    assert {e.user_id for e in entries} == {"777"}
    with pytest.raises(PageParseError, match="no member id"):
        collection_items(sel(html), "saved-page.html")


def test_collection_card_without_game_link_raises() -> None:
    html = COLLECTION_HTML.replace('href="/games/x-game"', 'href="#"')
    with pytest.raises(PageParseError, match="card has no game link"):
        collection_items(sel(html), f"{BASE}/friends/501/boardgames")


EMPTY_HTML = """<html><body><main id="friends-boardgames" data-friend-id="501"><div class="list--interests">
<p class="empty">検索結果が存在しないか、マイボードゲームが未登録のユーザーです</p></div></main></body></html>"""
LOGIN_HTML = """<html><head><title>ログイン | ボードゲーム情報</title></head><body><main id="sessions-new">
<form action="/login" method="post"><input type="email"><input type="password"></form></main></body></html>"""


def test_empty_and_login_pages_give_no_items() -> None:
    for html in (EMPTY_HTML, LOGIN_HTML):
        page = sel(html)
        for parse in (catalog_items, collection_items, member_items, space_items):
            assert parse(page, f"{BASE}/friends/501/boardgames") == []
    assert is_empty_listing(sel(EMPTY_HTML)) and not is_login_page(sel(EMPTY_HTML))
    assert is_login_page(sel(LOGIN_HTML))
    assert not is_login_page(sel(GAME_HTML))  # a header link to /login is not the login page
    assert not is_empty_listing(sel(COLLECTION_HTML))
    empty_table = '<html><body><main id="games-index"><table class="games-table"><tbody></tbody></table></main></body></html>'
    assert catalog_items(sel(empty_table), f"{BASE}/games?page=999") == []


MEMBERS_HTML = """<html><body><header><a href="/friends/1">マイページ</a></header><main id="friends-index">
<ul class="friends-list">
 <li class="friends-list-item"><a href="/friends/11"><img alt="アイコン" src="a.png"></a><a href="/friends/11">ねこ</a>
  <span class="friends-list-count">マイボードゲーム 1,203</span></li>
 <li class="friends-list-item"><a href="/friends/22/">inu</a><a href="/friends/22/boardgames">一覧</a></li>
</ul><a rel="next" href="?page=2">次へ</a></main></body></html>"""


def test_members_inline() -> None:
    page = sel(MEMBERS_HTML)
    assert member_items(page, f"{BASE}/friends") == [Member(user_id="11", name="アイコン"), Member(user_id="22", name="inu")]
    assert member_links(page, f"{BASE}/friends") == [f"{BASE}/friends/1", f"{BASE}/friends/11", f"{BASE}/friends/22"]
    assert next_page_url(page, f"{BASE}/friends?page=1") == f"{BASE}/friends?page=2"


def test_members_fallback_without_row_classes() -> None:
    html = '<html><body><main><p><a href="/friends/5">A</a> <a href="/friends/6">B</a> <a href="/friends/5">A2</a></p></main></body></html>'
    assert member_items(sel(html), f"{BASE}/friends") == [Member(user_id="5", name="A"), Member(user_id="6", name="B")]


SPACE_HTML = """<html><head><title>カフェA の遊べるボードゲーム | ボードゲーム情報</title></head><body><main>
<h1 class="spaces-name">カフェA</h1><ul class="spaces-games-list">
 <li class="spaces-games-item"><a href="/games/a-game"><span class="spaces-games-item-japanese">エー</span></a>
  <span class="spaces-games-item-spec">２人～４人 ／ 10分前後 ／ 20歳～</span></li>
 <li class="spaces-games-item"><a href="/games/b-game"><span class="spaces-games-item-english">B</span></a>
  <span class="spaces-games-item-spec">2023年 / 1人</span></li>
</ul><nav class="pagination"><a rel="prev" href="?page=1">前へ</a></nav></main></body></html>"""


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


POST_HTML = """<html><body><main id="posts-show" data-post-id="99" data-post-kind="review">
<h1 class="posts-title"><a href="/games/a-game">エー</a>
   ねこさんのレビュー</h1>
<div class="posts-meta"><a class="posts-author" href="/friends/11">ねこ</a>
 <time class="posts-date" datetime="2026-02-03T04:05:06+09:00">約1ヶ月前</time></div>
<article class="posts-body"><h2>感想</h2><p>楽しい。</p><ul><li>良い点</li><li>悪い点</li></ul>本文の続き</article>
<section><a href="/friends/12">いぬ</a><a href="/friends/11">ねこ</a></section></main></body></html>"""


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


def test_links_on_inline_game_page() -> None:
    page, url = sel(GAME_HTML), f"{BASE}/games/test-game"
    assert post_links(page, url) == [f"{BASE}/games/test-game/rules/10", f"{BASE}/games/test-game/reviews/11"]
    assert game_links(page, url) == [f"{BASE}/games/other-game"]
    assert space_links(page, url) == [f"{BASE}/spaces/cafe-a"]
    assert next_page_url(page, url) is None


@pytest.mark.parametrize(
    ("html", "kind"),
    [(GAME_HTML, "game"), (CATALOG_HTML, "catalog"), (COLLECTION_HTML, "collection"), (EMPTY_HTML, "collection"),
     (LOGIN_HTML, "login"), (MEMBERS_HTML, "members"), (SPACE_HTML, "space"), (POST_HTML, "post")],
)
def test_detect_kind_inline(html: str, kind: str) -> None:
    assert detect_kind(html.encode("utf-8"), "saved.html") == kind


def test_parse_document_inline() -> None:
    assert parse_document(LOGIN_HTML, url="saved.html") == []
    assert parse_document(LOGIN_HTML, url="saved.html", kind="game") == []
    assert [i.game_id for i in parse_document(CATALOG_HTML.encode(), url="x.html")] == ["a-game", "b-game"]
    assert parse_document(GAME_HTML, url="x.html", kind="game")[0].game_id == "test-game"
    assert detect_kind("<html><body><p>hi</p></body></html>", f"{BASE}/games/z") == "game"
    with pytest.raises(ParseError, match="cannot tell"):
        parse_document("<html><body><p>hi</p></body></html>", url="x.html")
    profile = '<html><body><main id="friends-show" data-friend-id="5"><h1>ねこさん</h1></main></body></html>'
    with pytest.raises(ParseError, match=r"not a page with items \(main#friends-show\)"):
        parse_document(profile, url=f"{BASE}/friends/5")
    with pytest.raises(ParseError, match="unknown kind"):
        parse_document(GAME_HTML, url="x.html", kind="games")
    with pytest.raises(ParseError, match="game page has no title") as excinfo:
        parse_document('<html><body><main id="games-show"></main></body></html>', url="x.html")
    assert "\n" not in str(excinfo.value)


# --- the shared site samples ---------------------------------------------------------


def sample(name: str) -> Selector:
    """A Selector over ../shared/site-samples/<name>."""
    return Selector(text=shared_file("site-samples", name).read_text(encoding="utf-8"))


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


@pytest.mark.shared
def test_sample_collection() -> None:
    page = sample("collection-17406-page1.html")
    entries = collection_items(page, "collection-17406-page1.html")
    flags = [(e.game_id, e.have, e.played, e.favorite, e.watching) for e in entries]
    assert flags == [
        ("cubitos", True, True, True, False),
        ("brass-birmingham", False, False, False, True),
        ("witness-night", False, True, False, False),
        ("sky-team", True, False, False, False),
    ]
    assert [e.rating for e in entries] == [4, None, 3, 5]
    assert {e.user_id for e in entries} == {"17406"}
    assert entries[0].updated_at == "2026-10-30T21:14:03+09:00"
    assert next_page_url(page, f"{BASE}/friends/17406/boardgames") == f"{BASE}/friends/17406/boardgames?page=2"


@pytest.mark.shared
def test_sample_empty_and_login() -> None:
    assert collection_items(sample("collection-empty.html"), f"{BASE}/friends/17406/boardgames?page=9") == []
    assert is_empty_listing(sample("collection-empty.html"))
    assert next_page_url(sample("collection-empty.html"), f"{BASE}/friends/17406/boardgames?page=9") is None
    assert collection_items(sample("login-required.html"), f"{BASE}/friends/1/boardgames") == []
    assert is_login_page(sample("login-required.html"))


@pytest.mark.shared
def test_sample_members() -> None:
    page = sample("members-page1.html")
    assert member_items(page, f"{BASE}/friends") == [
        Member(user_id="17406", name="ふくろう"), Member(user_id="88120", name="jurong"), Member(user_id="90001", name="Hide"),
    ]
    assert member_links(page, f"{BASE}/friends")[0] == f"{BASE}/friends/17406"
    assert next_page_url(page, f"{BASE}/friends") == f"{BASE}/friends?page=2"


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


EXPECTED_SAMPLE_ITEMS = {
    "collection-17406-page1.html": ("collection", 4),
    "collection-empty.html": ("collection", 0),
    "game-khora.html": ("game", 1),
    "game-propolis.html": ("game", 1),
    "games-list-page1.html": ("catalog", 4),
    "login-required.html": ("login", 0),
    "members-page1.html": ("members", 3),
    "rule-post-propolis.html": ("post", 1),
    "space-boardgame-lab-games-page1.html": ("space", 4),
}


@pytest.mark.shared
@pytest.mark.parametrize("name", shared_params("site-samples", "*.html"))
def test_every_sample_parses_through_parse_document(name: str) -> None:
    """`bodoge parse` detects each sample's kind and yields the expected number of items."""
    path = shared_file("site-samples", name)
    kind, count = EXPECTED_SAMPLE_ITEMS[name]
    body = path.read_bytes()
    assert detect_kind(body, str(path)) == kind
    assert len(parse_document(body, url=str(path))) == count
    if kind != "login":
        assert len(parse_document(body, url=str(path), kind=kind)) == count


# --- the hooks behind the fast paths (lxml walks that must agree with the XPath/CSS) ---


def test_collection_card_hooks_anywhere_in_the_card() -> None:
    """A card's own attributes come first; the first *game* link wins; odd class spacing counts."""
    html = """<html><body><main id="friends-boardgames" data-friend-id="8">
    <div class="list--interests-item" data-rating-result="4"><!-- a comment -->
     <a>no href</a><a href="/games/z-game/rules/5">ルール</a><a href="/games/z-game">ゼット</a>
     <span data-updated-at="2026-03-04T05:06:07+09:00"><i data-rating-result="1"></i></span>
     <ul class="friend-interests">
      <li class="friend-interest	have
        on">持ってる</li>
      <li class="friend-interest-badge played on">経験あり</li>
      <li class=" friend-interest favorite active ">お気に入り</li>
      <li class="friend-interest watching on off">興味あり</li>
     </ul></div><nav class="pagination"></nav></main></body></html>"""
    assert collection_items(sel(html), f"{BASE}/friends/8/boardgames") == [
        CollectionEntry(user_id="8", game_id="z-game", have=True, played=False, favorite=True, watching=False,
                        rating=4, updated_at="2026-03-04T05:06:07+09:00"),
    ]


def test_collection_cards_found_without_the_card_class() -> None:
    """Fallback: a card is the nearest ancestor of `friend-interests` that links a game."""
    html = COLLECTION_HTML.replace("list--interests-item", "card")
    entries = collection_items(sel(html), f"{BASE}/friends/501/boardgames")
    assert [(e.game_id, e.have, e.watching, e.rating) for e in entries] == [
        ("x-game", True, False, None), ("y-game", False, True, 2),
    ]


@pytest.mark.parametrize(
    "class_attr",
    ["list--interests-item", " list--interests-item ", "a\tlist--interests-item\nb", "list--interests-item\r\nx",
     "list--interests-item-title", "list--interests-itemx", "x\u3000list--interests-item", "LIST--INTERESTS-ITEM"],
)
def test_class_tokens_agree_with_css(class_attr: str) -> None:
    """`class_tokens` (the Python walks) sees a class exactly as parsel's `.css(".name")` does."""
    page = sel(f'<html><body><div class="{class_attr}">x</div></body></html>')
    div = page.xpath("//div")[0]
    assert ("list--interests-item" in class_tokens(div.root)) == bool(page.css(".list--interests-item"))


def test_login_page_ids_match_exactly() -> None:
    assert is_login_page(sel('<html><body><div id="sessions-new"></div></body></html>'))
    assert not is_login_page(sel('<html><body><div id=" sessions-new"></div></body></html>'))
    form = '<form><input type="password"></form>'
    assert is_login_page(sel(f"<html><body><main>{form}</main></body></html>"))
    assert not is_login_page(sel(f'<html><body><main id="friends-boardgames">{form}</main></body></html>'))


def test_a_listing_with_rows_is_never_empty() -> None:
    """Rows win over an empty marker, wherever they sit (the walk stops at the first row)."""
    marker = '<p class="empty">検索結果が存在しない</p>'
    assert is_empty_listing(sel(f"<html><body><main>{marker}</main></body></html>"))
    row = '<div><span class="x  friends-list-item"><a href="/friends/3">c</a></span></div>'
    assert not is_empty_listing(sel(f"<html><body><main>{marker}{row}</main></body></html>"))
    assert not is_empty_listing(sel(f'<html><body><main class="games-table-row">{marker}</main></body></html>'))


def test_markup_helpers_answer_like_parsel() -> None:
    """`xpath`/`first`/`css` on lxml elements give parsel's strings and elements."""
    page = sel(COLLECTION_HTML)
    root = page.root
    assert xpath(root, "//a/@href") == page.xpath("//a/@href").getall()
    assert first(root, "//@data-friend-id") == "501"
    assert first(root, "//@data-missing") is None
    assert [el.get("data-updated-at") for el in css(main_of(root), ".list--interests-item")] == (
        page.css(".list--interests-item").xpath("@data-updated-at").getall()
    )
    assert string(first(root, "//*[contains(@class, 'japanese')]")) == "エックス"
    assert main_of(sel("<p>no main</p>").root).tag == "body"
