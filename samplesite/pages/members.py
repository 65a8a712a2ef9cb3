"""The member directory, a member's profile and their collection (マイボードゲーム) pages.

Why together: all three read a member's collection (its count, its newest update, its
cards); `collection_pages` is how urls.py counts a collection's pages.
"""

from __future__ import annotations

import numpy as np

from core.statuses import STATUS_LABELS, STATUSES
from samplesite.model import Member, Site
from samplesite.pages.layout import document, e, fmt, n_pages, pagination

MEMBERS_PAGE_SIZE = 50
COLLECTION_PAGE_SIZE = 20
EMPTY_MARKER = "検索結果が存在しないか、マイボードゲームが未登録のユーザーです"


def directory(site: Site, page: int) -> str:
    """One page of /friends, members in id order."""
    total = n_pages(len(site.members), MEMBERS_PAGE_SIZE)
    chunk = site.members[(page - 1) * MEMBERS_PAGE_SIZE: page * MEMBERS_PAGE_SIZE]
    lis = "".join(directory_row(site, m) for m in chunk)
    main = (
        '<main id="friends-index">\n'
        f'  <p class="friends-index-total">全{fmt(len(site.members))}人</p>\n'
        f'  <ul class="friends-list">\n{lis}  </ul>\n'
        f"{pagination('/friends', page, total)}"
        "</main>\n"
    )
    return document("会員一覧", main)


def directory_row(site: Site, m: Member, *, show_private: bool = True) -> str:
    """A directory row: name, count and last update of the member's マイボードゲーム.

    The change signals an incremental crawl reads (a reconstruction: the real directory
    shows the count): `data-updated-at` is the newest card's update, and a private
    collection shows 非公開 instead of a count and no update time (`show_private=False`
    draws it like a public row: the `no-private-marker` variant).
    """
    link = f'<a href="{m.url}">{e(m.name)}</a>'
    if m.private and show_private:
        return (f'    <li class="friends-list-item friends-list-private">{link}'
                '<span class="friends-list-count">マイボードゲーム 非公開</span></li>\n')
    rows = site.collections.rows(m.index)
    updated = f' data-updated-at="{site.collections.updated_at[rows[0]]}"' if rows.size else ""
    return (f'    <li class="friends-list-item"{updated}>{link}'
            f'<span class="friends-list-count">マイボードゲーム {fmt(m.n_boardgames)}</span></li>\n')


def profile(site: Site, m: Member) -> str:
    """A member's profile: the link to their collection and their first ten posts."""
    posts = [p for p in site.posts if p.author_index == m.index]
    lis = "".join(f'    <li class="friends-post"><a href="{e(p.url)}">{e(p.title)}</a></li>\n'
                  for p in posts[:10])
    post_list = f'  <ul class="friends-posts">\n{lis}  </ul>\n' if lis else ""
    main = (
        f'<main id="friends-show" data-friend-id="{m.user_id}">\n'
        f'  <h1 class="friends-name">{e(m.name)}さん</h1>\n'
        f'  <p class="friends-boardgames-link"><a href="{m.collection_url}">'
        f"マイボードゲーム</a> {fmt(m.n_boardgames)}</p>\n"
        f"{post_list}"
        "</main>\n"
    )
    return document(f"{m.name}さん", main)


def _collection_empty(m: Member) -> str:
    main = (
        f'<main id="friends-boardgames" data-friend-id="{m.user_id}">\n'
        f'  <h1 class="friends-name">{e(m.name)}さんのマイボードゲーム</h1>\n'
        '  <div class="list--interests">\n'
        f'    <p class="empty">{EMPTY_MARKER}</p>\n'
        "  </div>\n"
        "</main>\n"
    )
    return document("マイボードゲーム", main)


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


def collection(site: Site, m: Member, status: str | None, page: int) -> str:
    """One page of a member's collection (or one status of it), newest update first; past the last page, the empty page."""
    rows = site.collections.rows(m.index, status)
    total = -(-rows.size // COLLECTION_PAGE_SIZE)
    if rows.size == 0 or page > total:
        return _collection_empty(m)
    base = m.collection_url
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
        f'  <p class="friends-boardgames-total">全{fmt(int(rows.size))}個</p>\n'
        f'  <form class="friends-boardgames-search" action="{url}" method="get">\n'
        '    <select name="search[players]"><option value="">人数</option><option value="2">2人</option>'
        '<option value="3">3人</option></select>\n'
        '    <select name="search[playtimes]"><option value="">時間</option><option value="30">～30分</option>'
        '<option value="60">～60分</option></select>\n'
        '    <select name="search[sort]"><option value="updated_desc">更新順</option>'
        '<option value="name_asc">名前順</option></select>\n'
        "  </form>\n\n"
        f'  <div class="list--interests">\n{cards}  </div>\n\n'
        f"{pagination(url, page, total)}"
        "</main>\n"
    )
    return document(f"{m.name}さんのマイボードゲーム", main)


def collection_pages(site: Site, member: Member, status: str | None = None) -> int:
    """How many non-empty pages the member's collection (or one status of it) has."""
    rows: np.ndarray = site.collections.rows(member.index, status)
    return -(-int(rows.size) // COLLECTION_PAGE_SIZE)
