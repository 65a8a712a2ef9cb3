"""Inline pages in the site's shape, and the shared samples, for the page-parser tests.

The inline pages run on a fresh clone; `sample` reads ../shared/site-samples (tests using it
are marked `shared` and skipped where ../shared is absent).
"""

from __future__ import annotations

from parsel import Selector

from tests.support.conftest_shared import shared_file


BASE = "https://bodoge.hoobby.net"


def sel(html: str) -> Selector:
    """A Selector over an inline page."""
    return Selector(text=html)


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


EMPTY_HTML = """<html><body><main id="friends-boardgames" data-friend-id="501"><div class="list--interests">
<p class="empty">検索結果が存在しないか、マイボードゲームが未登録のユーザーです</p></div></main></body></html>"""


LOGIN_HTML = """<html><head><title>ログイン | ボードゲーム情報</title></head><body><main id="sessions-new">
<form action="/login" method="post"><input type="email"><input type="password"></form></main></body></html>"""


MEMBERS_HTML = """<html><body><header><a href="/friends/1">マイページ</a></header><main id="friends-index">
<ul class="friends-list">
 <li class="friends-list-item"><a href="/friends/11"><img alt="アイコン" src="a.png"></a><a href="/friends/11">ねこ</a>
  <span class="friends-list-count">マイボードゲーム 1,203</span></li>
 <li class="friends-list-item"><a href="/friends/22/">inu</a><a href="/friends/22/boardgames">一覧</a></li>
</ul><a rel="next" href="?page=2">次へ</a></main></body></html>"""


SPACE_HTML = """<html><head><title>カフェA の遊べるボードゲーム | ボードゲーム情報</title></head><body><main>
<h1 class="spaces-name">カフェA</h1><ul class="spaces-games-list">
 <li class="spaces-games-item"><a href="/games/a-game"><span class="spaces-games-item-japanese">エー</span></a>
  <span class="spaces-games-item-spec">２人～４人 ／ 10分前後 ／ 20歳～</span></li>
 <li class="spaces-games-item"><a href="/games/b-game"><span class="spaces-games-item-english">B</span></a>
  <span class="spaces-games-item-spec">2023年 / 1人</span></li>
</ul><nav class="pagination"><a rel="prev" href="?page=1">前へ</a></nav></main></body></html>"""


POST_HTML = """<html><body><main id="posts-show" data-post-id="99" data-post-kind="review">
<h1 class="posts-title"><a href="/games/a-game">エー</a>
   ねこさんのレビュー</h1>
<div class="posts-meta"><a class="posts-author" href="/friends/11">ねこ</a>
 <time class="posts-date" datetime="2026-02-03T04:05:06+09:00">約1ヶ月前</time></div>
<article class="posts-body"><h2>感想</h2><p>楽しい。</p><ul><li>良い点</li><li>悪い点</li></ul>本文の続き</article>
<section><a href="/friends/12">いぬ</a><a href="/friends/11">ねこ</a></section></main></body></html>"""


def sample(name: str) -> Selector:
    """A Selector over ../shared/site-samples/<name>."""
    return Selector(text=shared_file("site-samples", name).read_text(encoding="utf-8"))
