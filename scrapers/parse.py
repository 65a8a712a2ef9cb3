"""One saved document (a page of the site or a BoardGameGeek XML response) → items.

Why: `bodoge parse PATH_OR_URL [--kind KIND]` must print exactly what the spiders
would emit for that page, so it calls the spiders' own parsing functions
(`scrapers.pages`, `scrapers.bgg`) and only adds telling the page kind apart. Where one
page is a whole listing (no next and no previous page) it also says what the crawl
would conclude from its stated total (`scrapers.spiders.totals`): a one-page listing
whose rows disagree with 全N個 is `incomplete`, its rows still taken.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from parsel import Selector

from scrapers import bgg, pages
from scrapers.items import Item
from scrapers.kinds import KINDS
from scrapers.spiders.totals import total_problem

#: `<main id>` of each page of the site (`sessions-new` is the login page).
MAIN_IDS: dict[str, str] = {
    "games-index": "catalog",
    "games-show": "game",
    "posts-show": "post",
    "friends-index": "members",
    "friends-boardgames": "collection",
    "spaces-games": "space",
    "sessions-new": "login",
}
#: Second-best hooks when the ids are gone, most specific first: content only, since a
#: member's profile also carries `data-friend-id` and a cafe's top page `data-space-slug`
#: (a post page also carries the game's spec list and counters: it is tried first).
_CLASS_HOOKS: tuple[tuple[str, str], ...] = (
    ("[data-post-id], .posts-body", "post"),
    (".list--interests, .list--interests-item, .friend-interest", "collection"),
    (".spaces-games-list, .spaces-games-item", "space"),
    (".games-title, .games-interests, .games-credit", "game"),
    (".games-table", "catalog"),
    (".friends-list", "members"),
)
#: URL paths of the site, for pages whose markup says nothing.
_URL_HINTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^/games/[^/]+/(rules|reviews)/\d+"), "post"),
    (re.compile(r"^/games/[^/]+/?$"), "game"),
    (re.compile(r"^/games/?$"), "catalog"),
    (re.compile(r"^/friends/\d+/boardgames"), "collection"),
    (re.compile(r"^/friends/?$"), "members"),
    (re.compile(r"^/spaces/[^/]+/games"), "space"),
    (re.compile(r"^/login"), "login"),
    (re.compile(r"/xmlapi2?/thing"), "bgg-thing"),
    (re.compile(r"/xmlapi2?/collection"), "bgg-collection"),
)
_XML_ROOTS = frozenset({"items", "errors", "error", "message", "plays", "user", "users"})
_PROLOG = re.compile(r"^\s*(?:<\?[^>]*\?>\s*|<!--.*?-->\s*|<!DOCTYPE[^>]*>\s*)*", re.DOTALL | re.IGNORECASE)
_FIRST_TAG = re.compile(r"<([A-Za-z][\w:.-]*)([^>]*)>")


class ParseError(ValueError):
    """A document `bodoge parse` cannot turn into items; the message is one line for the CLI."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))


def _text(body: bytes | str) -> str:
    """The document as text (the site and BGG both send UTF-8)."""
    return body.decode("utf-8-sig", errors="replace") if isinstance(body, (bytes, bytearray)) else body


def html_selector(body: bytes | str) -> Selector:
    """A Selector over a saved page, as `response.selector` would be for the spiders."""
    return Selector(text=_text(body) or "<html></html>", type="html")


def _xml_kind(text: str, url: str) -> str | None:
    """bgg-thing / bgg-collection for a BGG XML document, None for HTML or unsupported XML."""
    doc = _PROLOG.sub("", text, count=1)
    match = _FIRST_TAG.match(doc)
    if not match or match[1].lower() not in _XML_ROOTS:
        return None
    root, attrs = match[1].lower(), match[2]
    if root == "items":
        first_item = _FIRST_TAG.search(doc, match.end())
        item_attrs = first_item[2] if first_item and first_item[1] == "item" else ""
        if "objectid=" in item_attrs or "totalitems=" in attrs:
            return "bgg-collection"
        return "bgg-search" if re.search(r"\stotal=", attrs) else "bgg-thing"
    if root in ("errors", "error", "message"):
        return "bgg-thing" if "thing" in _url_name(url) else "bgg-collection"
    return f"bgg-{root}"


def _url_name(url: str) -> str:
    """The last path segment of a URL or file path, plus the query, for hints."""
    parts = urlsplit(url or "")
    return (parts.path.rsplit("/", 1)[-1] + "?" + parts.query).lower()


def _url_kind(url: str) -> str | None:
    """The page kind the site's URL scheme (or BGG's API path) suggests."""
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https"):
        return None
    return next((kind for pattern, kind in _URL_HINTS if pattern.search(parts.path)), None)


def detect_kind(body: bytes | str, url: str) -> str:
    """The kind of a document: one of KINDS (not "auto") or "login" for the login page.

    The markup decides (BGG's XML root, the page's `<main id>`, then class hooks); the
    URL is only a hint for a page whose markup says nothing. Raises ParseError when
    neither tells.
    """
    text = _text(body)
    xml_kind = _xml_kind(text, url)
    if xml_kind in ("bgg-thing", "bgg-collection"):
        return xml_kind
    if xml_kind:
        raise ParseError(f"unsupported BoardGameGeek response ({xml_kind.removeprefix('bgg-')}): {url}")
    selector = html_selector(text)
    for main_id, kind in MAIN_IDS.items():
        if selector.xpath("//*[@id=$id]", id=main_id):
            return kind
    if pages.is_login_page(selector):
        return "login"
    for css, kind in _CLASS_HOOKS:
        if selector.css(css):
            return kind
    url_kind = _url_kind(url)
    if url_kind:
        return url_kind
    if not pages.has_layout_end(text):
        raise ParseError(f"truncated: the page ends before its closing </html>: {url}")
    page_main = selector.xpath("//main/@id").get()
    if page_main:
        raise ParseError(f"not a page with items (main#{page_main}); kinds: {', '.join(KINDS[1:])}: {url}")
    raise ParseError(f"cannot tell what kind of page this is: {url}")


_HTML_PARSERS: dict[str, Callable[[Selector, str], Any]] = {
    "catalog": pages.catalog_items,
    "game": pages.game_item,
    "post": pages.post_item,
    "members": pages.member_items,
    "collection": pages.collection_items,
    "space": pages.space_items,
}


def _bgg_items(body: bytes | str, url: str, kind: str) -> list[Item]:
    """Items of a BGG response; a collection needs the user name from the URL or file name."""
    if kind == "bgg-thing":
        return list(bgg.bgg_thing_items(body))
    username = bgg.username_from_source(url)
    if not username:
        raise ParseError(f"no BoardGameGeek user name in {url!r} (expected username=NAME or username-NAME)")
    return list(bgg.bgg_collection_items(body, username=username))


#: Listing kinds whose pages state a total, and what the crawl does with a disagreement.
_LISTING_KINDS: dict[str, str] = {
    "catalog": "count it", "members": "count it",
    "collection": "record the listing incomplete and delete nothing",
    "space": "record the listing incomplete and delete nothing",
}


def parse_document(body: bytes | str, *, url: str, kind: str = "auto") -> list[Item]:
    """The items one document holds, as the spiders would emit them (see `parse_page`)."""
    return parse_page(body, url=url, kind=kind)[0]


def listing_note(selector: Selector, url: str, kind: str, items: list[Item]) -> str | None:
    """What the crawl would conclude from a page that is a whole listing, when its rows disagree with its total.

    Only a page with neither a next nor a previous page is the whole listing, so only
    there one page can be checked; a page of a longer listing says nothing alone.
    """
    if kind not in _LISTING_KINDS or not items:
        return None
    total = pages.stated_total(selector)
    if total is None or pages.next_page_url(selector, url) or pages.prev_page_url(selector, url):
        return None
    keys = [getattr(item, "game_id", None) or getattr(item, "user_id", None) for item in items]
    problem = total_problem(len(keys), len(set(keys)), (total,))
    if problem is None:
        return None
    return (f"{kind} page {url} is its whole listing with {len(items):,} rows, but the site states {total:,}: "
            f"the crawl would {_LISTING_KINDS[kind]} ({problem})")


def parse_page(body: bytes | str, *, url: str, kind: str = "auto") -> tuple[list[Item], str | None]:
    """The items one document holds, as the spiders would emit them, and a note (`listing_note`).

    `kind` is one of KINDS; "auto" detects it. A login page (a private collection) and
    an empty listing give []. Raises ParseError for an unknown kind, a page whose kind
    cannot be told, or a page or response the parsers reject: a cut page (no closing
    `</html>`, XML whose root never closes) gives a message with `truncated`, never the
    items of its first half. A closed listing page without a pagination block is a
    one-page listing like any other.
    """
    if kind not in KINDS:
        raise ParseError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    if kind == "auto":
        kind = detect_kind(body, url)
    try:
        if kind.startswith("bgg-"):
            return _bgg_items(body, url, kind), None
        selector = html_selector(body)
        if kind == "login" or pages.is_login_page(selector):
            pages.require_complete(selector, what="login page")  # a cut page is no answer
            return [], None
        result = _HTML_PARSERS[kind](selector, url)
    except pages.PageParseError as exc:
        raise ParseError(f"{kind} page {url}: {exc}") from exc
    except bgg.BggError as exc:
        raise ParseError(f"BoardGameGeek {kind.removeprefix('bgg-')} {url}: {exc}") from exc
    items = list(result) if isinstance(result, list) else [result]
    return items, listing_note(selector, url, kind, items)
