"""Hypothesis strategies for odd pages in the site's shapes, and the parsers they are fed to
(the property tests of the parsers, of page sources and of the previous game-page parser share them)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from scrapers import pages

BASE = "https://bodoge.hoobby.net"
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PARSERS = (pages.game_item, pages.catalog_items, pages.post_item, pages.member_items,
           pages.collection_items, pages.space_items)

#: Text the site shows, and what breaks naive parsers: U+3000, full-width digits and
#: signs, combining marks, emoji, huge numbers, range signs, labels.
ODD_TEXT = st.one_of(
    st.sampled_from([
        "２人～４人", "2人〜4人", "1人~65536人", "99999999999999999999人", "10分前後", "～30分", "8歳から",
        "未登録", "2025年～", "２０２５年", "1,203", "９", "99999999999999999999", "地理ゲーム\u3000ツイモット",
        "\u3000", "ｶﾀｶﾅ", "e\u0301", "👍🎲", "\u200b", "持ってる", "経験あり", "お気に入り", "興味あり",
        "4人～2人", "-5人", "0分", "3.5", "1e999", "9" * 400, "\ufeff", "\u202e", "&amp;", "<", "次へ",
    ]),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20),
)
CLASSES = st.sampled_from([
    "games-title-japanese", "games-title-english", "games-spec", "games-spec-item games-spec-players",
    "games-spec-item games-spec-age", "games-interests", "games-interest have", "games-interest watching",
    "games-interest-count", "games-credit-headline", "games-overview", "games-table-row",
    "list--interests-item", "friend-interest have on", "friend-interest played off",
    "friends-list-item", "spaces-games-item", "pagination", "empty", "posts-body", "posts-title", "x",
])
HREFS = st.sampled_from([
    "/games/a-game", "/games/b-game/rules/12", "/friends/17", "/friends/17/boardgames", "/spaces/cafe",
    "/designers/3", "/games?mechanics=m", "?page=2", "https://elsewhere.example/games/x", "#", "",
])
TAGS = st.sampled_from(["div", "span", "li", "ul", "a", "tr", "td", "h1", "p", "dt", "dd", "nav", "main"])
ATTRS = st.sampled_from(["", ' data-updated-at="2026-01-02T03:04:05+09:00"', ' data-rating-result="4"',
                         ' data-rating-result="99999999999"', ' data-friend-id="17"', ' rel="next"',
                         ' data-space-slug="cafe"', ' data-post-id="9"', ' data-post-kind="review"'])


@st.composite
def elements(draw: st.DrawFn, depth: int = 0) -> str:
    tag = draw(TAGS)
    href = f' href="{draw(HREFS)}"' if tag == "a" else ""
    children = [] if depth >= 3 else draw(st.lists(elements(depth + 1), max_size=3))
    inner = draw(ODD_TEXT).replace("<", "&lt;") + "".join(children) + draw(ODD_TEXT).replace("<", "&lt;")
    return f'<{tag} class="{draw(CLASSES)}"{href}{draw(ATTRS)}>{inner}</{tag}>'


#: Listing rows in the site's shapes, their texts left to the fuzzer.
ROW_SHAPES = (
    '<table class="games-table"><tr class="games-table-row"><td><a href="/games/g{n}"><span class="j-japanese">{a}'
    '</span></a></td><td class="games-table-spec">{b}<br>{c}</td><td class="games-table-age">{a}</td></tr></table>',
    '<div class="list--interests-item" data-updated-at="{a}" data-rating-result="{c}"><a href="/games/g{n}">{a}</a>'
    '<span class="list--interests-item-option-value">{b}</span><ul class="friend-interests">'
    '<li class="friend-interest have on">{c}</li><li class="friend-interest watching {b}">{a}</li></ul></div>',
    '<ul class="friends-list"><li class="friends-list-item"><a href="/friends/{n}">{a}</a>{b}</li></ul>',
    '<ul class="spaces-games-list"><li class="spaces-games-item"><a href="/games/g{n}">'
    '<span class="spaces-games-item-japanese">{a}</span></a><span class="spaces-games-item-spec">{b} / {c}</span></li></ul>',
)


@st.composite
def rows(draw: st.DrawFn) -> str:
    texts = {k: draw(ODD_TEXT).replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;") for k in "abc"}
    return draw(st.sampled_from(ROW_SHAPES)).format(n=draw(st.integers(1, 99)), **texts)


@st.composite
def documents(draw: st.DrawFn) -> str:
    main_id = draw(st.sampled_from(["games-show", "games-index", "friends-boardgames", "friends-index",
                                    "spaces-games", "posts-show", "sessions-new", ""]))
    body = "".join(draw(st.lists(st.one_of(elements(), rows()), min_size=1, max_size=4)))
    body += '<nav class="pagination"><a rel="next" href="?page=2">次へ</a></nav>' if draw(st.booleans()) else ""
    title = draw(ODD_TEXT).replace("&", "&amp;").replace("<", "&lt;")
    doc = (f'<!DOCTYPE html><html><head><title>{title}</title></head><body>'
           f'<main id="{main_id}" data-friend-id="17" data-space-slug="cafe">{body}')
    return doc + "</main></body></html>\n" if draw(st.booleans()) else doc


#: Credit labels and pieces of them, so that fuzzed pages hold elements reading a label
#: whole, split over several elements, padded with whitespace or wrapped in a link.
LABEL_TEXT = st.one_of(ODD_TEXT, st.sampled_from([
    "ゲームデザイナー", "デザイナー", "メカニクス", "テーマ", " テーマ\n", "ゲーム", "メカ", "ニクス", "テー", "マ",
    "<!--テーマ-->", "<!---->テーマ", "<br>メカニクス", "<a href='/designers/1'>テーマ</a>",
]))
