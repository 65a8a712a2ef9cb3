"""Property tests of the parsers: odd text and odd markup never crash them or change types.

What may happen to any input: the parsers answer items whose fields have their declared
types (ints that fit the warehouse's INTEGER columns, or None), or raise their own
PageParseError (BggError for XML). A page cut anywhere before its `</html>` is always
`truncated`. Examples are few (a few seconds in all): the grammar below aims them at the
hooks the parsers read.
"""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from parsel import Selector

from samplesite.generator import generate_site
from samplesite.render import render
from scrapers import bgg, pages
from scrapers.fields import INT32_MAX, parse_age, parse_count, parse_minutes, parse_players, parse_rating, parse_year
from scrapers.pages import markup
from scrapers.parse import ParseError, parse_document

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


def assert_typed(item: Any) -> None:
    """Every field has its declared type; ints fit Int32; bools are bools."""
    for f in dataclasses.fields(item):
        value, kind = getattr(item, f.name), str(f.type)
        if kind.startswith("list"):
            assert isinstance(value, list) and all(isinstance(v, str) and v for v in value), f.name
        elif kind.startswith("bool"):
            assert isinstance(value, bool), f.name
        elif kind.startswith("int"):
            assert value is None or (type(value) is int and -INT32_MAX - 1 <= value <= INT32_MAX), (f.name, value)
        else:
            assert value is None or (isinstance(value, str) and value.strip()), (f.name, value)


def parse_any(parse: Any, html: str) -> list[Any]:
    """The items a parser gives (as a list), or [] when it raises its own PageParseError."""
    try:
        result = parse(Selector(text=html), f"{BASE}/games/a-game")
    except pages.PageParseError:
        return []
    return result if isinstance(result, list) else [result]


@FUZZ
@given(documents())
def test_random_pages_give_typed_items_or_a_page_parse_error(html: str) -> None:
    whole = html.rstrip().endswith("</html>")
    for parse in PARSERS:
        items = parse_any(parse, html)
        assert whole or not items  # a page without its end gives nothing
        for item in items:
            assert_typed(item)
    try:
        for item in parse_document(html.encode("utf-8"), url="saved.html"):
            assert_typed(item)
    except ParseError as exc:
        assert "\n" not in str(exc)


@cache
def rendered_pages() -> tuple[tuple[Any, str], ...]:
    """A whole page of each kind from a small sample site, with its parser."""
    site = generate_site(n_games=30, n_users=40, seed=3, faults=False)
    game = next(g for g in site.games if g.post_ids)
    member = next(m for m in site.members if not m.private and m.n_boardgames > 3)
    urls = ((pages.game_item, game.url), (pages.post_item, site.posts[site.post_by_id[game.post_ids[0]]].url),
            (pages.catalog_items, "/games"), (pages.member_items, "/friends"),
            (pages.collection_items, member.collection_url), (pages.space_items, f"{site.cafes[0].url}/games"))
    return tuple((parse, render(site, url).text) for parse, url in urls)


@FUZZ
@given(st.integers(min_value=0, max_value=5), st.floats(min_value=0.0, max_value=1.0, exclude_max=True))
def test_a_page_cut_anywhere_is_truncated(which: int, share: float) -> None:
    parse, text = rendered_pages()[which]
    cut = text[: int(len(text.rstrip()) * share)]  # any character, mid-tag and mid-word included
    with pytest.raises(pages.TruncatedPage):
        parse(Selector(text=cut), f"{BASE}/x")


@FUZZ
@given(ODD_TEXT)
def test_field_parsers_answer_typed_values_for_any_text(text: str) -> None:
    for low, high in (parse_players(text), parse_minutes(text)):
        for value in (low, high):
            assert value is None or (type(value) is int and 0 < value <= INT32_MAX)
    for value in (parse_age(text), parse_year(text), parse_count(text), parse_rating(text)):
        assert value is None or (type(value) is int and 0 <= value <= INT32_MAX)


@FUZZ
@given(ODD_TEXT, st.integers(min_value=0, max_value=10**30))
def test_bgg_items_have_typed_fields_and_cut_xml_is_an_error(name: str, number: int) -> None:
    value = name.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    xml = (f'<?xml version="1.0" encoding="utf-8"?><items><item type="boardgame" id="5">'
           f'<name type="primary" value="{value}"/><minplayers value="{number}"/><maxplayers value="-{number}"/>'
           f'<statistics><ratings><owned value="{number}"/></ratings></statistics></item></items>')
    try:
        games = bgg.bgg_thing_items(xml)
    except bgg.BggError:  # a name with characters XML cannot carry
        return
    for game in games:
        assert_typed(game)
    with pytest.raises(bgg.BggError, match="^truncated"):
        bgg.bgg_thing_items(xml[: len(xml) * 2 // 3])


#: Credit labels and pieces of them, so that fuzzed pages hold elements reading a label
#: whole, split over several elements, padded with whitespace or wrapped in a link.
LABEL_TEXT = st.one_of(ODD_TEXT, st.sampled_from([
    "ゲームデザイナー", "デザイナー", "メカニクス", "テーマ", " テーマ\n", "ゲーム", "メカ", "ニクス", "テー", "マ",
    "<!--テーマ-->", "<!---->テーマ", "<br>メカニクス", "<a href='/designers/1'>テーマ</a>",
]))
HOOK_CLASSES = ("title-japanese", "games-spec", "games-interest", "games-overview")
HOOK_LABELS = ("ゲームデザイナー", "デザイナー", "メカニクス", "テーマ")


@st.composite
def labelled(draw: st.DrawFn, depth: int = 0) -> str:
    tag = draw(st.sampled_from(["div", "span", "li", "a", "dt", "dd", "b", "script"]))
    children = [] if depth >= 3 else draw(st.lists(labelled(depth + 1), max_size=3))
    inner = draw(LABEL_TEXT) + "".join(child + draw(LABEL_TEXT) for child in children)
    return f'<{tag} class="{draw(CLASSES)}">{inner}</{tag}>'


@FUZZ
@given(st.one_of(documents(), st.lists(labelled(), min_size=1, max_size=4).map(
    lambda parts: "<html><body><main>" + "".join(parts) + "</main></body></html>")))
def test_find_hooks_answers_what_its_xpaths_select(html: str) -> None:
    main = markup.main_of(Selector(text=html).root)
    found = markup.find_hooks(main, HOOK_CLASSES, HOOK_LABELS)
    by_class, by_label = found.by_class, found.by_label
    for name in HOOK_CLASSES:
        assert by_class[name] == markup.xpath(main, f".//*[contains(@class, '{name}')]"), name
    for label in HOOK_LABELS:
        query = ".//*[not(self::a) and normalize-space(.)=$label and not(*[normalize-space(.)=$label])]"
        assert by_label[label] == markup.xpath(main, query, label=label), label
