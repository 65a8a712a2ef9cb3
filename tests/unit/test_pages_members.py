"""Collections (with their empty and login variants) and the member directory."""

from __future__ import annotations

import pytest

from scrapers.items import CollectionEntry, Member
from scrapers.pages import (
    PageParseError,
    catalog_items,
    collection_items,
    is_empty_listing,
    is_login_page,
    member_items,
    member_links,
    next_page_url,
    space_items,
)

from tests.support.page_fixtures import (
    BASE,
    COLLECTION_HTML,
    EMPTY_HTML,
    GAME_HTML,
    LOGIN_HTML,
    MEMBERS_HTML,
    sample,
    sel,
)


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


def test_members_inline() -> None:
    page = sel(MEMBERS_HTML)
    assert member_items(page, f"{BASE}/friends") == [Member(user_id="11", name="アイコン"), Member(user_id="22", name="inu")]
    assert member_links(page, f"{BASE}/friends") == [f"{BASE}/friends/1", f"{BASE}/friends/11", f"{BASE}/friends/22"]
    assert next_page_url(page, f"{BASE}/friends?page=1") == f"{BASE}/friends?page=2"


def test_members_fallback_without_row_classes() -> None:
    html = '<html><body><main><p><a href="/friends/5">A</a> <a href="/friends/6">B</a> <a href="/friends/5">A2</a></p></main></body></html>'
    assert member_items(sel(html), f"{BASE}/friends") == [Member(user_id="5", name="A"), Member(user_id="6", name="B")]


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
