"""A listing page is whole by its closed document; a listing by its rows against its stated total.

These tests hold the rule on page strings, each shape on its own: a page cut before its
`</html>` or mid-card is `truncated`; a closed one-page listing without any pagination
block is whole; a last page is the one without a next link; a one-page listing whose
rows disagree with its 全N個 still gives its rows, and `bodoge parse` says the crawl
would record it incomplete. Then the totals of the real site's samples and of the sample
site, the rule on counts, and a fuzz of the total reader.
"""

from __future__ import annotations


import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from parsel import Selector

from samplesite.faults import cut_collections
from samplesite.model import Site
from samplesite.pages.cafes import CAFE_GAMES_PAGE_SIZE
from samplesite.render import render
from scrapers import pages
from scrapers.parse import ParseError, parse_page
from scrapers.spiders.totals import MOVED, OVER_TOTAL, SHORT_OF_TOTAL, total_problem
from tests.support.conftest_shared import shared_file
from tests.support.samplesite_fixtures import small  # noqa: F401
BASE = "https://bodoge.hoobby.net"
URL = f"{BASE}/friends/17406/boardgames"
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def card(i: int) -> str:
    """One collection card as the site draws it (title, one status, update time)."""
    return (f'<div class="list--interests-item" data-updated-at="2026-10-{i % 28 + 1:02d}T21:14:03+09:00">'
            f'<a class="list--interests-item-title" href="/games/game-{i}">'
            f'<div class="list--interests-item-title-japanese">ゲーム{i}</div></a>'
            '<ul class="friend-interests"><li class="friend-interest have on">持ってる</li></ul></div>\n')


def collection_page(n_cards: int, *, total: int | None = None, nav: str = "") -> str:
    """A whole collection page: its total (if any), its cards, then `nav` (none by default)."""
    stated = f'<p class="friends-boardgames-total">全{total:,}個</p>\n' if total is not None else ""
    cards = "".join(card(i) for i in range(n_cards))
    return ('<!DOCTYPE html>\n<html lang="ja"><head><title>x</title></head><body>\n'
            f'<main id="friends-boardgames" data-friend-id="17406">\n{stated}'
            f'<div class="list--interests">\n{cards}</div>\n{nav}</main>\n</body>\n</html>\n')


def test_a_page_cut_before_its_closing_html_is_truncated() -> None:
    whole = collection_page(3, total=3)
    cut = whole[: whole.rindex("</html>")]  # everything but the layout's end
    with pytest.raises(pages.TruncatedPage, match="closing </html>"):
        pages.collection_items(Selector(text=cut), URL)
    with pytest.raises(ParseError, match="truncated"):
        parse_page(cut.encode("utf-8"), url=URL)


def test_a_page_cut_mid_card_is_truncated_though_no_pagination_block_was_expected() -> None:
    whole = collection_page(3, total=3)
    cut = whole[: whole.index("ゲーム2") + 2]  # inside the third card's title
    assert len(pages.collection_items(Selector(text=whole), URL)) == 3
    with pytest.raises(pages.TruncatedPage):
        pages.collection_items(Selector(text=cut), URL)


def test_a_closed_one_page_listing_without_a_pagination_block_is_whole() -> None:
    text = collection_page(3, total=3)
    selector = Selector(text=text)
    entries = pages.collection_items(selector, URL)
    assert [e.game_id for e in entries] == ["game-0", "game-1", "game-2"]
    assert pages.next_page_url(selector, URL) is None and pages.prev_page_url(selector, URL) is None
    assert pages.stated_total(selector) == 3
    assert parse_page(text.encode("utf-8"), url=URL) == (entries, None)


def test_the_last_page_is_the_one_without_a_next_link() -> None:
    nav = ('<nav class="pagination"><a class="prev" rel="prev" href="/friends/17406/boardgames?page=1">前へ</a>'
           '<span class="page current">2</span></nav>\n')
    last = Selector(text=collection_page(2, total=22, nav=nav))
    assert len(pages.collection_items(last, f"{URL}?page=2")) == 2
    assert pages.next_page_url(last, f"{URL}?page=2") is None
    assert pages.prev_page_url(last, f"{URL}?page=2") == f"{URL}?page=1"
    # one page of a longer listing says nothing about the total on its own
    assert parse_page(last.get().encode("utf-8"), url=f"{URL}?page=2")[1] is None
    first = Selector(text=collection_page(3, total=22, nav=nav.replace('rel="prev"', 'rel="next"')))
    assert pages.next_page_url(first, URL) == f"{URL}?page=1"


@pytest.mark.parametrize(("total", "problem"), [(5, SHORT_OF_TOTAL), (2, OVER_TOTAL)])
def test_a_one_page_listing_that_disagrees_with_its_total_keeps_its_rows_and_says_incomplete(
        total: int, problem: str) -> None:
    text = collection_page(3, total=total)
    items, note = parse_page(text.encode("utf-8"), url=URL)
    assert len(items) == 3  # the crawl takes them too: they are on the site
    assert note is not None and f"states {total}" in note and "incomplete" in note and problem in note


@pytest.mark.shared
def test_the_totals_of_the_real_site_samples() -> None:
    def total(name: str) -> int | None:
        return pages.stated_total(Selector(text=shared_file("site-samples", name).read_text(encoding="utf-8")))

    assert total("games-list-page1.html") == 21406  # 全21,406個
    assert total("space-boardgame-lab-games-page1.html") == 608  # 遊べるボードゲーム 608個
    assert total("members-page1.html") is None  # the directory sample shows none: nothing to check
    assert total("collection-empty.html") is None and total("login-required.html") is None


def test_the_totals_of_the_sample_site_equal_what_its_listings_hold(small: Site) -> None:  # noqa: F811
    member = next(m for m in small.members if not m.private and m.n_boardgames > 20
                  and m.index not in cut_collections(small))
    cafe = next(c for c in small.cafes if len(c.game_indices) > CAFE_GAMES_PAGE_SIZE)
    expected = {"/games": len(small.catalogue_order), "/games?page=3": len(small.catalogue_order),
                "/friends?page=2": len(small.members), member.collection_url: member.n_boardgames,
                f"{member.collection_url}?page=2": member.n_boardgames, f"{cafe.url}/games": len(cafe.game_indices)}
    for target, n in expected.items():
        assert pages.stated_total(Selector(text=render(small, target).text)) == n, target


@pytest.mark.parametrize(("rows", "distinct", "stated", "expect", "problem"), [
    (20, 20, (20,), None, None),
    (0, 0, (), 0, None),  # an empty collection the directory counts 0
    (0, 0, (), None, None),  # no total anywhere: whole by its last page
    (19, 19, (20,), None, SHORT_OF_TOTAL),
    (21, 21, (20,), None, OVER_TOTAL),
    (25, 24, (25,), None, MOVED),  # a card read twice: one slid past the page boundary
    (22, 22, (25, 22), None, MOVED),  # the pages stated different totals
    (19, 19, (), 20, SHORT_OF_TOTAL),  # the directory's count where the pages state none
    (20, 20, (20,), 7, None),  # a stated total wins over the directory's count
])
def test_the_rule_on_counts(rows: int, distinct: int, stated: tuple[int, ...], expect: int | None,
                            problem: str | None) -> None:
    assert total_problem(rows, distinct, stated, expect) == problem


TOTAL_FORMS = st.sampled_from(["全{n}個", "全 {n} 個", "遊べるボードゲーム {n}個", "全{n}人", "全\u3000{n}個"])
NOISE = st.sampled_from(["", "<p>マイボードゲーム 412</p>", '<span class="x">全部で</span>', "<p>3個</p>",
                         '<div class="list--interests-item"><a href="/games/z"><div>全3個</div>と何か</a></div>'])


def _digits(n: int, draw_style: int) -> str:
    text = f"{n:,}" if draw_style & 1 else str(n)
    return text.translate(str.maketrans("0123456789,", "０１２３４５６７８９，")) if draw_style & 2 else text


@FUZZ
@given(st.integers(min_value=0, max_value=10**7), st.integers(min_value=0, max_value=3), TOTAL_FORMS,
       st.lists(NOISE, max_size=3), st.booleans())
def test_the_stated_total_is_read_in_any_form_the_site_writes_it(
        n: int, style: int, form: str, noise: list[str], hooked: bool) -> None:
    written = form.format(n=_digits(n, style))
    element = f'<p class="games-index-total">{written}</p>' if hooked else f"<p>{written}</p>"
    html = f"<html><body><main>{''.join(noise)}{element}{''.join(noise)}</main></body></html>"
    assert pages.stated_total(Selector(text=html)) == n


@FUZZ
@given(st.lists(NOISE, max_size=4))
def test_a_page_without_a_total_states_none(noise: list[str]) -> None:
    html = f"<html><body><main>{''.join(noise)}</main></body></html>"
    assert pages.stated_total(Selector(text=html)) is None
