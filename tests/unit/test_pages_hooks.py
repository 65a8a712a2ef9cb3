"""The hooks behind the fast paths: lxml walks that must agree with the XPath/CSS they replace."""

from __future__ import annotations

import pytest

from scrapers.items import CollectionEntry
from scrapers.pages import collection_items, is_empty_listing, is_login_page
from scrapers.pages.markup import class_tokens, css, first, main_of, string, xpath

from tests.support.page_fixtures import BASE, COLLECTION_HTML, sel


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
