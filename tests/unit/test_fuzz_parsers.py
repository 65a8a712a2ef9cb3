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
from hypothesis import given
from hypothesis import strategies as st
from parsel import Selector

from samplesite.generator import generate_site
from samplesite.render import render
from scrapers import bgg, pages
from scrapers.fields import INT32_MAX, parse_age, parse_count, parse_minutes, parse_players, parse_rating, parse_year
from scrapers.pages import markup
from scrapers.parse import ParseError, parse_document
from tests.support.fuzz_pages import BASE, CLASSES, FUZZ, LABEL_TEXT, ODD_TEXT, PARSERS, documents


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
