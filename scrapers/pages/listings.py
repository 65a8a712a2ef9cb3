"""What every listing page shares: the login page, the empty marker, rows and their names.

A private collection answers with the login page (HTTP 200); past the last page a
listing shows an empty marker. Rows are found by their class, else as the innermost
`<li>`/`<tr>` holding a game link.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lxml import etree
from parsel import Selector

from scrapers.fields import normalize
from scrapers.pages.complete import ROW_CLASSES, require_complete
from scrapers.pages.markup import (
    Node,
    PageParseError,
    class_tokens,
    clean,
    css,
    first,
    game_link,
    has_japanese,
    main_of,
    member_id,
    string,
    text,
    xpath,
)

#: `<main id>` of pages with content: such a page is never the login page.
CONTENT_MAIN_IDS: tuple[str, ...] = (
    "games-index", "games-show", "posts-show", "friends-index", "friends-boardgames", "spaces-games",
)
#: Texts of the "nothing here" marker (the collection one is confirmed on the real site).
EMPTY_TEXTS: tuple[str, ...] = ("検索結果が存在しない", "マイボードゲームが未登録", "見つかりませんでした")
_LIST_CONTAINERS = ".games-table, .list--interests, .friends-list, .spaces-games-list"


def open_listing(selector: Selector, *, what: str) -> tuple[Node, Node] | None:
    """(root, main) of a listing page that is all there; None for the login page.

    Why completeness first: a cut page can look like the login page, and half a
    listing read as a private one would delete the rest (TruncatedPage instead).
    """
    require_complete(selector, what=what)
    root = selector.root
    if is_login(root):
        return None
    return root, main_of(root)


def listing_rows(
    selector: Selector, *, what: str, find: Callable[[Node], list[Node]]
) -> tuple[Node, Node, list[Node]]:
    """(root, main, rows) of a listing page whose rows `find` picks out of its main.

    No rows means nothing to read (the login page, or the empty marker); a page with
    neither rows nor the marker raises. A closed page with rows is whole whether or not
    it draws a pagination block (none on a one-page listing, as Kaminari draws it).
    """
    page = open_listing(selector, what=what)
    if page is None:
        return selector.root, selector.root, []
    root, main = page
    rows = find(main)
    if not rows:
        return root, main, no_rows(root, what)
    return root, main, rows


def is_login_page(selector: Selector) -> bool:
    """Whether the site answered with its login page (how a private collection looks)."""
    return is_login(selector.root)


def is_login(root: Node) -> bool:
    """`is_login_page` on the document's root element."""
    ids = set(xpath(root, "//@id"))  # one pass instead of one `//*[@id=…]` per id
    if "sessions-new" in ids:
        return True
    if any(main_id in ids for main_id in CONTENT_MAIN_IDS):
        return False
    return bool(xpath(root, "//form[.//input[@type='password']]"))


def is_empty_listing(selector: Selector) -> bool:
    """Whether a listing page says it lists nothing (past the last page, or no collection).

    True for the site's `<p class="empty">` marker (or its text) and for a list container
    holding no game or member link; never for a page that has rows.
    """
    return is_empty(selector.root)


def is_empty(root: Node) -> bool:
    """`is_empty_listing` on the document's root element."""
    main = main_of(root)
    if rows_present(main):
        return False
    if css(main, ".empty"):
        return True
    content = normalize(text(main))
    if any(marker in content for marker in EMPTY_TEXTS):
        return True
    containers = css(main, _LIST_CONTAINERS)
    return bool(containers) and not any(
        game_link(c) or any(member_id(h) for h in xpath(c, ".//a/@href")) for c in containers
    )


def rows_present(main: Node) -> bool:
    """Whether any known listing row (catalogue, card, member, cafe game) is on the page.

    A walk that stops at the first row: the CSS query would scan the whole page.
    """
    return any(class_tokens(el) & ROW_CLASSES for el in main.iter(etree.Element))


def rows_with_game_links(scope: Node) -> list[Node]:
    """Fallback rows: the innermost `<li>`/`<tr>` elements that link to a game page."""
    rows = [row for row in xpath(scope, ".//li | .//tr") if game_link(row)]
    return [row for row in rows if not any(game_link(inner) for inner in xpath(row, ".//li | .//tr"))]


def no_rows(root: Node, what: str) -> list[Any]:
    """[] for an empty listing; otherwise the page is not the listing it should be."""
    if is_empty(root):
        return []
    raise PageParseError(f"{what} has no rows and no empty-list marker")


def row_game(row: Node, *, what: str) -> tuple[str, str | None, str | None]:
    """(game_id, name_ja, name_en) of a listing row; a row without a game link is not one we know."""
    found = game_link(row)
    if not found:
        raise PageParseError(f"{what} row has no game link")
    name_ja, name_en = row_names(row, found[1])
    return found[0], name_ja, name_en


def row_names(row: Node, link: Node) -> tuple[str | None, str | None]:
    """(name_ja, name_en) of a listing row, from its `…-japanese`/`…-english` elements."""
    name_ja = string(first(row, ".//*[contains(@class, 'japanese')]"))
    name_en = string(first(row, ".//*[contains(@class, 'english')]"))
    if name_ja or name_en:
        return name_ja, name_en
    parts = [part for part in (string(child) for child in xpath(link, "./*")) if part]
    if len(parts) >= 2:  # one element per name, classes gone: tell them apart by script
        name_ja = next((p for p in parts if has_japanese(p)), None)
        name_en = next((p for p in parts if not has_japanese(p)), None)
        return name_ja, name_en
    name = string(link) or clean(first(link, ".//img/@alt"))
    return (name, None) if has_japanese(name) else (None, name)
