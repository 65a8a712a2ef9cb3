"""Render any page of a generated site on demand, in the markup of the real site.

Why on demand: a site of 2,000 games and 5,000 members has tens of thousands of pages
(every collection page of every member, filtered views, cafe pages...); rendering only
what is asked keeps start-up instant and memory flat. The permanent faults (malformed
and cut pages, HTTP 500 posts) are rendered here, as `faults` designates them. `render` is a pure function of
(site, target): the same request always gives the same bytes. Transient faults
(503/429 on a first request) are not here but in the server (see faults.py), because
they depend on what that server instance has already answered.

The markup follows /work/shared/site-samples (element ids, classes, data-attributes,
href shapes and Japanese labels); where the samples are silent (member profile, cafe
index, designer pages) the pages are small reconstructions in the same style.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import format_datetime
from html import escape
from urllib.parse import parse_qs, urlsplit

import numpy as np

from samplesite import faults, vocab
from samplesite.model import GAME_PAGES_SINCE, SITE_NAME, STATUS_LABELS, STATUSES, Cafe, Game, Member, Post, Site

CATALOGUE_PAGE_SIZE = 20
MEMBERS_PAGE_SIZE = 50
COLLECTION_PAGE_SIZE = 20
CAFE_GAMES_PAGE_SIZE = 20
SPACES_PAGE_SIZE = 20

HTML = "text/html; charset=utf-8"
TEXT = "text/plain; charset=utf-8"
EMPTY_MARKER = "検索結果が存在しないか、マイボードゲームが未登録のユーザーです"
ROBOTS_DISALLOW = ("/login", "/mypage", "/shop/cart")

_HEADER = (
    '<header class="header"><a class="header-logo" href="/">ボードゲーム情報</a>\n'
    '  <nav><a href="/games">ボードゲームを探す</a><a href="/spaces">ボードゲームカフェ</a>'
    '<a href="/friends">会員一覧</a><a href="/login">ログイン</a></nav>\n'
    "</header>\n"
)
_FOOTER = '<footer class="footer">© hoobby</footer>\n'


@dataclass(frozen=True, slots=True)
class Response:
    """What the server sends: status, Content-Type, body bytes and extra headers."""

    status: int
    content_type: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def body_bytes(self) -> bytes:
        return self.body

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


def e(text: object) -> str:
    """HTML-escape text for element content and attribute values."""
    return escape(str(text), quote=True)


def _fmt(n: int) -> str:
    return f"{n:,}"


def _page(title: str | None, main: str, *, head: str = "") -> str:
    full = f"{e(title)} | {SITE_NAME}" if title else SITE_NAME
    return (
        '<!DOCTYPE html>\n<html lang="ja">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{full}</title>\n{head}</head>\n<body>\n{_HEADER}{main}{_FOOTER}</body>\n</html>\n"
    )


def _html(status: int, text: str, headers: dict[str, str] | None = None) -> Response:
    return Response(status, HTML, text.encode("utf-8"), headers or {})


def _pagination(base: str, page: int, total: int) -> str:
    """`<nav class="pagination">`: a window of page links, 前へ and 次へ (rel="next")."""
    sep = "&" if "?" in base else "?"
    parts = ['  <nav class="pagination">\n']
    if page > 1:
        parts.append(f'    <a class="prev" rel="prev" href="{e(base)}{sep}page={page - 1}">前へ</a>\n')
    for p in range(max(1, page - 2), min(total, page + 2) + 1):
        if p == page:
            parts.append(f'    <span class="page current">{p}</span>\n')
        else:
            parts.append(f'    <a class="page" href="{e(base)}{sep}page={p}">{p}</a>\n')
    if page < total:
        parts.append(f'    <a class="next" rel="next" href="{e(base)}{sep}page={page + 1}">次へ</a>\n')
    parts.append("  </nav>\n")
    return "".join(parts)


def n_pages(n: int, size: int) -> int:
    return max(1, -(-n // size))


# ---------------------------------------------------------------------------
# static pages
# ---------------------------------------------------------------------------


def robots_txt(crawl_delay: float | None = None) -> str:
    """The sample's Disallow lines; a Crawl-delay line only when asked for."""
    lines = ["User-agent: *", *(f"Disallow: {p}" for p in ROBOTS_DISALLOW)]
    if crawl_delay is not None:
        lines.append(f"Crawl-delay: {crawl_delay:g}")
    return "\n".join(lines) + "\n"


def login_page() -> str:
    main = (
        '<main id="sessions-new">\n'
        "  <h1>ログイン</h1>\n"
        '  <p class="notice">このページを見るにはログインが必要です。</p>\n'
        '  <form class="login-form" action="/login" method="post">\n'
        '    <input type="email" name="session[email]">\n'
        '    <input type="password" name="session[password]">\n'
        '    <button type="submit">ログインする</button>\n'
        "  </form>\n"
        "</main>\n"
    )
    return _page("ログイン", main)


def not_found_page() -> str:
    main = (
        '<main id="errors-not-found">\n'
        '  <h1>ページが見つかりません</h1>\n'
        '  <p class="notice">お探しのページは削除されたか、URLが間違っている可能性があります。</p>\n'
        "</main>\n"
    )
    return _page("ページが見つかりません", main)


def error_page(status: int) -> str:
    label = {500: "サーバーエラー", 503: "ただいまアクセスが集中しています",
             429: "リクエストが多すぎます"}.get(status, "エラー")
    return _page(label, f'<main id="errors-{status}">\n  <h1>{e(label)}</h1>\n</main>\n')


def _home(site: Site) -> str:
    main = (
        '<main id="home">\n'
        f'  <p class="home-lead">登録ボードゲーム {_fmt(len(site.games))}個</p>\n'
        '  <ul class="home-links">\n'
        '    <li><a href="/games">ボードゲームを探す</a></li>\n'
        '    <li><a href="/spaces">ボードゲームカフェ</a></li>\n'
        '    <li><a href="/friends">会員一覧</a></li>\n'
        "  </ul>\n</main>\n"
    )
    return _page(None, main)


# ---------------------------------------------------------------------------
# games
# ---------------------------------------------------------------------------


def _spec_list(g: Game, indent: str = "      ") -> str:
    items = (("players", g.players_text), ("playtime", g.playtime_text),
             ("age", g.age_page_text), ("year", g.year_page_text))
    lis = "".join(f'{indent}  <li class="games-spec-item games-spec-{k}">{e(v)}</li>\n'
                  for k, v in items if v is not None)
    return f'{indent}<ul class="games-spec">\n{lis}{indent}</ul>\n'


def _interests(g: Game, indent: str = "  ") -> str:
    counts = (("watching", g.n_watching), ("played", g.n_played),
              ("favorite", g.n_favorite), ("have", g.n_have))
    lis = "".join(f'{indent}  <li class="games-interest {k}"><span class="games-interest-count">{n}'
                  f"</span>{STATUS_LABELS[k]}</li>\n" for k, n in counts)
    return f'{indent}<ul class="games-interests">\n{lis}{indent}</ul>\n'


def _game_page(site: Site, g: Game) -> str:
    title = f"{g.name_ja} / {g.name_en}" if g.name_en else g.name_ja
    head = f'<link rel="canonical" href="{e(g.canonical_url)}">\n'
    if not g.image_url.endswith("noimage_game.png"):
        head += f'<meta property="og:image" content="{e(g.image_url)}">\n'
    en = (f'        <span class="games-title-english">{e(g.name_en)}</span>\n' if g.name_en else "")
    catch = f'      <p class="games-catchcopy">{e(g.catchcopy)}</p>\n' if g.catchcopy else ""
    catcharea = (
        '  <div id="games-catcharea">\n'
        f'    <div class="games-catcharea-image"><img src="{e(g.image_url)}" alt="{e(g.name_ja)}"></div>\n'
        '    <div class="games-catcharea-body">\n'
        '      <h1 class="games-title">\n'
        f'        <span class="games-title-japanese">{e(g.name_ja)}</span>\n{en}'
        "      </h1>\n"
        f"{_spec_list(g)}{catch}"
        "    </div>\n  </div>\n\n"
    )
    credit_rows: list[str] = []
    if g.designers:
        links = "".join(f'<a href="/designers/{d.ref_id}">{e(d.label)}</a>' for d in g.designers)
        credit_rows.append(f'<li><span class="games-credit-headline">ゲームデザイナー</span>{links}</li>')
    if g.makers:
        links = "".join(f'<a href="/makers/{m.ref_id}">{e(m.label)}</a>' for m in g.makers)
        credit_rows.append(f'<li><span class="games-credit-headline">メーカー・発売元</span>{links}</li>')
    if g.mechanics:
        links = "".join(f'<a href="/games?mechanics={s}">{e(lab)}</a>'
                        for s, lab in zip(g.mechanics, g.mechanic_labels))
        credit_rows.append(f'<li><span class="games-credit-headline">メカニクス</span>{links}</li>')
    if g.themes:
        links = "".join(f'<a href="/games?themes={s}">{e(lab)}</a>'
                        for s, lab in zip(g.themes, g.theme_labels))
        credit_rows.append(f'<li><span class="games-credit-headline">テーマ</span>{links}</li>')
    credit = ""
    if credit_rows:
        rows = "".join(f"      {r}\n" for r in credit_rows)
        credit = ('  <section class="games-credit">\n    <ul class="games-credit-list">\n'
                  f"{rows}    </ul>\n  </section>\n\n")
    overview = ('  <section class="games-overview">\n    <h2>概要</h2>\n'
                f"    <p>{e(g.overview)}</p>\n  </section>\n\n")
    posts = [site.posts[site.post_by_id[pid]] for pid in g.post_ids]
    post_html = ""
    if posts:
        blocks = []
        for kind, heading in (("rule", "ルール/インスト"), ("review", "レビュー")):
            mine = [p for p in posts if p.kind == kind]
            if not mine:
                continue
            lis = "".join(f'      <li class="games-post"><a href="{e(p.url)}">{e(p.title)}</a>'
                          f'<span class="games-post-meta">{e(p.age_label)}</span></li>\n' for p in mine)
            blocks.append(f"    <h2>{heading}</h2>\n    <ul class=\"games-posts-list\">\n{lis}    </ul>\n")
        post_html = f'  <section class="games-posts">\n{"".join(blocks)}  </section>\n\n'
    spaces = ""
    if g.cafe_slugs:
        lis = "".join(f'<li><a href="/spaces/{s}">{e(site.cafes[site.cafe_by_slug[s]].name)}</a></li>'
                      for s in g.cafe_slugs)
        spaces = ('  <section class="games-spaces">\n    <h2>このゲームが遊べるボードゲームカフェ</h2>\n'
                  f"    <ul>{lis}</ul>\n  </section>\n")
    if g.malformed:
        return _malformed_game_page(g, head, catcharea, credit + overview + post_html + spaces)
    main = (f'<main id="games-show" data-game-id="{g.numeric_id}">\n{catcharea}'
            f"{_interests(g)}\n{credit}{overview}{post_html}{spaces}</main>\n")
    return _page(title, main, head=head)


def _malformed_game_page(g: Game, head: str, catcharea: str, rest: str) -> str:
    """A permanently broken game page (fault): HTTP 200, but no title and no spec list.

    Two shapes, by game id parity: cut off mid-document just before the title, or the
    catch area replaced by a template error comment (counters and credits still there).
    """
    if faults.malformed_is_cut(g):
        full = _page(None, f'<main id="games-show" data-game-id="{g.numeric_id}">\n{catcharea}</main>\n',
                     head=head)
        return full[: full.index('<h1 class="games-title">')]
    main = (f'<main id="games-show" data-game-id="{g.numeric_id}">\n'
            '  <div id="games-catcharea"><!-- ActionView::Template::Error --></div>\n\n'
            f"{_interests(g)}\n{rest}</main>\n")
    return _page(None, main, head=head)


def _catalogue(site: Site, query: dict[str, list[str]], page: int) -> str:
    order: list[int] | tuple[int, ...] = site.catalogue_order
    base = "/games"
    mech = (query.get("mechanics") or [None])[0]
    theme = (query.get("themes") or [None])[0]
    if mech is not None:
        order = [i for i in order if mech in site.games[i].mechanics]
        base = f"/games?mechanics={mech}"
    elif theme is not None:
        order = [i for i in order if theme in site.games[i].themes]
        base = f"/games?themes={theme}"
    total = n_pages(len(order), CATALOGUE_PAGE_SIZE)
    rows = []
    for i in order[(page - 1) * CATALOGUE_PAGE_SIZE: page * CATALOGUE_PAGE_SIZE]:
        g = site.games[i]
        en = f'<span class="games-table-name-english">{e(g.name_en)}</span>' if g.name_en else ""
        spec = "<br>".join(e(t) for t in (g.players_text, g.playtime_text) if t)
        rows.append(
            '      <tr class="games-table-row">\n'
            f'        <td class="games-table-name"><a href="{g.url}"><span class="games-table-name-japanese">'
            f"{e(g.name_ja)}</span>{en}</a></td>\n"
            f'        <td class="games-table-image"><img src="{e(g.image_url)}" alt=""></td>\n'
            f'        <td class="games-table-spec">{spec}</td>\n'
            f'        <td class="games-table-age">{e(g.age_list_text or "")}</td>\n'
            f'        <td class="games-table-year">{e(g.year_list_text or "")}</td>\n'
            "      </tr>\n")
    heading = ""
    if mech is not None or theme is not None:
        tags = vocab.MECHANICS if mech is not None else vocab.THEMES
        label = next((t.label for t in tags if t.slug == (mech or theme)), mech or theme)
        heading = f'  <h1 class="games-index-filter">{e(label)}</h1>\n'
    main = (
        '<main id="games-index">\n'
        f"{heading}"
        f'  <p class="games-index-total">全{_fmt(len(order))}個</p>\n'
        '  <table class="games-table">\n'
        "    <thead><tr><th>ゲーム名</th><th></th><th>人数・時間</th><th>対象年齢</th><th>発売年</th></tr></thead>\n"
        f'    <tbody>\n{"".join(rows)}    </tbody>\n'
        "  </table>\n"
        f"{_pagination(base, page, total)}"
        "</main>\n"
    )
    return _page("ボードゲームを探す", main)


def _post_page(site: Site, p: Post) -> str:
    g = site.games[p.game_index]
    sections = "".join(f"    <h2>{e(h)}</h2>\n    <p>{e(t)}</p>\n" for h, t in p.sections)
    main = (
        f'<main id="posts-show" data-post-id="{p.post_id}" data-post-kind="{p.kind}">\n'
        f"{_spec_list(g, '  ')}"
        f'  <h1 class="posts-title"><a href="{g.url}">{e(g.name_ja)}</a> {e(p.title_suffix)}</h1>\n'
        '  <div class="posts-meta">\n'
        f'    <a class="posts-author" href="/friends/{p.author_user_id}">{e(p.author_name)}</a>\n'
        f'    <span class="posts-views">{p.views}名</span>\n'
        f'    <span class="posts-nice-count">{p.nice}</span>\n'
        f'    <time class="posts-date" datetime="{p.published_at}">{e(p.age_label)}</time>\n'
        "  </div>\n"
        f'  <article class="posts-body">\n{sections}  </article>\n'
        f"{_interests(g)}"
        "</main>\n"
    )
    return _page(p.title, main)


def _credit_page(site: Site, kind: str, ref_id: int) -> str | None:
    names = site.designers if kind == "designers" else site.makers
    games = site.designer_games if kind == "designers" else site.maker_games
    if ref_id not in names:
        return None
    lis = "".join(f'    <li><a href="{site.games[i].url}">{e(site.games[i].name_ja)}</a></li>\n'
                  for i in games.get(ref_id, ()))
    main = (f'<main id="{kind}-show" data-{kind[:-1]}-id="{ref_id}">\n'
            f'  <h1 class="{kind}-name">{e(names[ref_id])}</h1>\n'
            f'  <ul class="{kind}-games">\n{lis}  </ul>\n</main>\n')
    return _page(names[ref_id], main)


# ---------------------------------------------------------------------------
# members and collections
# ---------------------------------------------------------------------------


def _directory(site: Site, page: int) -> str:
    total = n_pages(len(site.members), MEMBERS_PAGE_SIZE)
    chunk = site.members[(page - 1) * MEMBERS_PAGE_SIZE: page * MEMBERS_PAGE_SIZE]
    lis = "".join(_directory_row(site, m) for m in chunk)
    main = (
        '<main id="friends-index">\n'
        f'  <p class="friends-index-total">全{_fmt(len(site.members))}人</p>\n'
        f'  <ul class="friends-list">\n{lis}  </ul>\n'
        f"{_pagination('/friends', page, total)}"
        "</main>\n"
    )
    return _page("会員一覧", main)


def _directory_row(site: Site, m: Member) -> str:
    """A directory row: name, count and last update of the member's マイボードゲーム.

    The change signals an incremental crawl reads (a reconstruction: the real directory
    shows the count): `data-updated-at` is the newest card's update, and a private
    collection shows 非公開 instead of a count and no update time.
    """
    link = f'<a href="/friends/{m.user_id}">{e(m.name)}</a>'
    if m.private:
        return (f'    <li class="friends-list-item friends-list-private">{link}'
                '<span class="friends-list-count">マイボードゲーム 非公開</span></li>\n')
    rows = site.collections.rows(m.index)
    updated = f' data-updated-at="{site.collections.updated_at[rows[0]]}"' if rows.size else ""
    return (f'    <li class="friends-list-item"{updated}>{link}'
            f'<span class="friends-list-count">マイボードゲーム {_fmt(m.n_boardgames)}</span></li>\n')


def _profile(site: Site, m: Member) -> str:
    posts = [p for p in site.posts if p.author_index == m.index]
    lis = "".join(f'    <li class="friends-post"><a href="{e(p.url)}">{e(p.title)}</a></li>\n'
                  for p in posts[:10])
    post_list = f'  <ul class="friends-posts">\n{lis}  </ul>\n' if lis else ""
    main = (
        f'<main id="friends-show" data-friend-id="{m.user_id}">\n'
        f'  <h1 class="friends-name">{e(m.name)}さん</h1>\n'
        f'  <p class="friends-boardgames-link"><a href="/friends/{m.user_id}/boardgames">'
        f"マイボードゲーム</a> {_fmt(m.n_boardgames)}</p>\n"
        f"{post_list}"
        "</main>\n"
    )
    return _page(f"{m.name}さん", main)


def _collection_empty(m: Member) -> str:
    main = (
        f'<main id="friends-boardgames" data-friend-id="{m.user_id}">\n'
        f'  <h1 class="friends-name">{e(m.name)}さんのマイボードゲーム</h1>\n'
        '  <div class="list--interests">\n'
        f'    <p class="empty">{EMPTY_MARKER}</p>\n'
        "  </div>\n"
        "</main>\n"
    )
    return _page("マイボードゲーム", main)


def _card(site: Site, row: int) -> str:
    c = site.collections
    g = site.games[int(c.game[row])]
    en = (f'        <div class="list--interests-item-title-english">{e(g.name_en)}</div>\n'
          if g.name_en else "")
    options = "".join(f'        <span class="list--interests-item-option-value">{e(t or "")}</span>\n'
                      for t in (g.players_text, g.playtime_text, g.age_list_text, g.year_list_text))
    flags = "".join(
        f'        <li class="friend-interest {s} {"on" if getattr(c, s)[row] else "off"}">'
        f"{STATUS_LABELS[s]}</li>\n" for s in STATUSES)
    return (
        f'    <div class="list--interests-item" data-updated-at="{c.updated_at[row]}">\n'
        f'      <div class="list--interests-item-image"><img src="{e(g.image_url)}" alt=""></div>\n'
        f'      <a class="list--interests-item-title" href="{g.url}">\n'
        f'        <div class="list--interests-item-title-japanese">{e(g.name_ja)}</div>\n{en}'
        "      </a>\n"
        f'      <div class="list--interests-item-options">\n{options}      </div>\n'
        f'      <div class="rating--result-stars" data-rating-mode="result" '
        f'data-rating-result="{int(c.rating[row])}"></div>\n'
        f'      <ul class="friend-interests">\n{flags}      </ul>\n'
        "    </div>\n"
    )


def _collection(site: Site, m: Member, status: str | None, page: int) -> str:
    rows = site.collections.rows(m.index, status)
    total = -(-rows.size // COLLECTION_PAGE_SIZE)
    if rows.size == 0 or page > total:
        return _collection_empty(m)
    base = f"/friends/{m.user_id}/boardgames"
    tabs = "".join(
        f'    <li><a href="{base}{"/" + s if s else ""}">{lab}</a></li>\n'
        for s, lab in ((None, "すべて"), *((s, STATUS_LABELS[s]) for s in STATUSES)))
    cards = "\n".join(_card(site, int(r)) for r in
                      rows[(page - 1) * COLLECTION_PAGE_SIZE: page * COLLECTION_PAGE_SIZE])
    url = f"{base}/{status}" if status else base
    main = (
        f'<main id="friends-boardgames" data-friend-id="{m.user_id}">\n'
        f'  <h1 class="friends-name">{e(m.name)}さんのマイボードゲーム</h1>\n'
        f'  <ul class="friends-boardgames-tabs">\n{tabs}  </ul>\n'
        f'  <p class="friends-boardgames-total">全{_fmt(int(rows.size))}個</p>\n'
        f'  <form class="friends-boardgames-search" action="{url}" method="get">\n'
        '    <select name="search[players]"><option value="">人数</option><option value="2">2人</option>'
        '<option value="3">3人</option></select>\n'
        '    <select name="search[playtimes]"><option value="">時間</option><option value="30">～30分</option>'
        '<option value="60">～60分</option></select>\n'
        '    <select name="search[sort]"><option value="updated_desc">更新順</option>'
        '<option value="name_asc">名前順</option></select>\n'
        "  </form>\n\n"
        f'  <div class="list--interests">\n{cards}  </div>\n\n'
        f"{_pagination(url, page, total)}"
        "</main>\n"
    )
    return _page(f"{m.name}さんのマイボードゲーム", main)


# ---------------------------------------------------------------------------
# cafes
# ---------------------------------------------------------------------------


def _spaces_index(site: Site, page: int) -> str:
    total = n_pages(len(site.cafes), SPACES_PAGE_SIZE)
    lis = "".join(
        f'    <li class="spaces-list-item"><a href="/spaces/{c.slug}">{e(c.name)}</a>'
        f'<span class="spaces-list-address">{e(c.address)}</span></li>\n'
        for c in site.cafes[(page - 1) * SPACES_PAGE_SIZE: page * SPACES_PAGE_SIZE])
    main = ('<main id="spaces-index">\n'
            f'  <p class="spaces-index-total">全{_fmt(len(site.cafes))}件</p>\n'
            f'  <ul class="spaces-list">\n{lis}  </ul>\n'
            f"{_pagination('/spaces', page, total)}</main>\n")
    return _page("ボードゲームカフェ", main)


def _space_info(c: Cafe) -> str:
    return ('  <dl class="spaces-info">\n'
            f'    <dt>住所</dt><dd class="spaces-address">{e(c.address)}</dd>\n'
            f'    <dt>営業時間</dt><dd class="spaces-hours">{e(c.hours)}</dd>\n'
            "  </dl>\n")


def _space(c: Cafe) -> str:
    main = (f'<main id="spaces-show" data-space-slug="{c.slug}">\n'
            f'  <h1 class="spaces-name">{e(c.name)}</h1>\n{_space_info(c)}'
            f'  <p class="spaces-games-link"><a href="/spaces/{c.slug}/games">遊べるボードゲーム '
            f"{_fmt(len(c.game_indices))}個</a></p>\n</main>\n")
    return _page(c.name, main)


def _space_games(site: Site, c: Cafe, page: int) -> str:
    total = n_pages(len(c.game_indices), CAFE_GAMES_PAGE_SIZE)
    items = []
    for i in c.game_indices[(page - 1) * CAFE_GAMES_PAGE_SIZE: page * CAFE_GAMES_PAGE_SIZE]:
        g = site.games[i]
        spec = " / ".join(t for t in (g.players_text, g.playtime_text, g.age_list_text,
                                      g.year_list_text) if t)
        en = f'<span class="spaces-games-item-english">{e(g.name_en)}</span>' if g.name_en else ""
        items.append(
            '    <li class="spaces-games-item">\n'
            f'      <a href="{g.url}"><img src="{e(g.image_url)}" alt="">\n'
            f'        <span class="spaces-games-item-japanese">{e(g.name_ja)}</span>{en}</a>\n'
            f'      <span class="spaces-games-item-spec">{e(spec)}</span>\n'
            "    </li>\n")
    main = (
        f'<main id="spaces-games" data-space-slug="{c.slug}">\n'
        f'  <h1 class="spaces-name">{e(c.name)}</h1>\n{_space_info(c)}'
        f'  <p class="spaces-games-total">遊べるボードゲーム {_fmt(len(c.game_indices))}個</p>\n'
        f'  <ul class="spaces-games-list">\n{"".join(items)}  </ul>\n'
        f"{_pagination(f'/spaces/{c.slug}/games', page, total)}"
        "</main>\n"
    )
    return _page(f"{c.name}の遊べるボードゲーム", main)


# ---------------------------------------------------------------------------
# routing
# ---------------------------------------------------------------------------

Handler = Callable[["_Request"], "Response | None"]
"""A route handler: the response, or None for a 404 (an unknown game, member, cafe...)."""


@dataclass(frozen=True, slots=True)
class _Request:
    """What a route handler needs: the site, the path's groups, the query and its page."""

    site: Site
    groups: tuple[str | None, ...]
    query: dict[str, list[str]]
    page: int
    crawl_delay: float | None


def _game(r: _Request) -> Response | None:
    gi = r.site.game_by_slug.get(r.groups[0] or "")
    if gi is None:
        return None
    text = _game_page(r.site, r.site.games[gi])
    text = faults.cut_game_page(text) if gi in faults.cut_games(r.site) else text
    return _html(200, text, game_validators(r.site, gi, text))


def _post(r: _Request) -> Response | None:
    pi = r.site.post_by_id.get(int(r.groups[2] or 0))
    if pi is None:
        return None
    p = r.site.posts[pi]
    if p.game_id != r.groups[0] or f"{p.kind}s" != r.groups[1]:
        return None
    return _html(500, error_page(500)) if p.http500 else _html(200, _post_page(r.site, p))


def _member(r: _Request) -> Member | None:
    mi = r.site.member_by_id.get(r.groups[0] or "")
    return None if mi is None else r.site.members[mi]


def _profile_route(r: _Request) -> Response | None:
    m = _member(r)
    return None if m is None else _html(200, _profile(r.site, m))


def _collection_route(r: _Request) -> Response | None:
    m = _member(r)
    if m is None:
        return None
    if m.private:
        return _html(200, login_page())
    text = _collection(r.site, m, r.groups[1], r.page)
    cut = r.groups[1] is None and r.page == 1 and m.index in faults.cut_collections(r.site)
    return _html(200, faults.cut_collection_page(text) if cut else text)


def _cafe(r: _Request, page: Callable[[Cafe], str]) -> Response | None:
    ci = r.site.cafe_by_slug.get(r.groups[0] or "")
    return None if ci is None else _html(200, page(r.site.cafes[ci]))


def _credit(r: _Request) -> Response | None:
    text = _credit_page(r.site, r.groups[0] or "", int(r.groups[1] or 0))
    return None if text is None else _html(200, text)


# Every route once: its path pattern (matched in full) and what answers it (None → 404).
_ROUTES: tuple[tuple[re.Pattern[str], Handler], ...] = tuple((re.compile(rx), handler) for rx, handler in (
    (r"/", lambda r: _html(200, _home(r.site))),
    (r"/robots\.txt", lambda r: Response(200, TEXT, robots_txt(r.crawl_delay).encode("utf-8"))),
    (r"/(?:login|mypage)", lambda r: _html(200, login_page())),
    (r"/games", lambda r: _html(200, _catalogue(r.site, r.query, r.page))),
    (r"/games/([a-z0-9-]+)", _game),
    (r"/games/([a-z0-9-]+)/(rules|reviews)/(\d+)", _post),
    (r"/friends", lambda r: _html(200, _directory(r.site, r.page))),
    (r"/friends/(\d+)", _profile_route),
    (r"/friends/(\d+)/boardgames(?:/(have|played|favorite|watching))?", _collection_route),
    (r"/spaces", lambda r: _html(200, _spaces_index(r.site, r.page))),
    (r"/spaces/([a-z0-9-]+)", lambda r: _cafe(r, _space)),
    (r"/spaces/([a-z0-9-]+)/games", lambda r: _cafe(r, lambda c: _space_games(r.site, c, r.page))),
    (r"/(designers|makers)/(\d+)", _credit),
))


def _page_number(query: dict[str, list[str]]) -> int:
    try:
        return max(1, int(query.get("page", ["1"])[0]))
    except ValueError:
        return 1


def render(site: Site, path_with_query: str, *, crawl_delay: float | None = None) -> Response:
    """The response to a GET of `path_with_query` (e.g. "/games?page=2"); never raises."""
    parts = urlsplit(path_with_query)
    path = parts.path or "/"
    if len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/")
    query = parse_qs(parts.query)
    for rx, handler in _ROUTES:
        m = rx.fullmatch(path)
        if m is not None:
            body = handler(_Request(site, m.groups(), query, _page_number(query), crawl_delay))
            return body if body is not None else _html(404, not_found_page())
    return _html(404, not_found_page())


def game_validators(site: Site, game_index: int, text: str) -> dict[str, str]:
    """ETag (a hash of the page) and Last-Modified (when its game last changed) of a game page."""
    modified = datetime.fromisoformat(site.game_modified.get(game_index, GAME_PAGES_SINCE))
    return {"ETag": f'"{hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]}"',
            "Last-Modified": format_datetime(modified.astimezone(timezone.utc), usegmt=True)}


def collection_pages(site: Site, member: Member, status: str | None = None) -> int:
    """How many non-empty pages the member's collection (or one status of it) has."""
    rows: np.ndarray = site.collections.rows(member.index, status)
    return -(-int(rows.size) // COLLECTION_PAGE_SIZE)
