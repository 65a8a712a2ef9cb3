"""Pages of the site → typed items, and the links the spiders follow.

Every function takes a `parsel.Selector` (a spider passes `response.selector`, or for
game pages `source.page_selector`: the tree parsed from the bytes, without Scrapy's
per-page decoding and fresh parser) and the page URL. They lean on stable hooks: class
names, data-attributes, `href` shapes (`/games/<slug>`, `/friends/<id>`, `?mechanics=`),
the Japanese labels and the text formats (via `scrapers.fields`), never on deep
positional paths, because the site's markup is partly reconstructed and will drift.
Each hook has a fallback.

A page whose required hooks are missing raises `PageParseError`; a page cut off before
its closing markup raises `TruncatedPage` (a PageParseError with reason `truncated`),
before anything else is read from it; a (whole) login page (a private collection) or
an empty listing gives [] from the listing functions.

Modules: `markup` (XPath on lxml elements, text and href helpers), `complete` (whether a
page arrived whole, and the total a listing states), `specs` (spec cells
and statuses), `listings` (login page, empty marker, rows), then one per page kind:
`games` (catalogue and game pages), `posts`, `members` (directory and collections),
`cafes`, and `links` (what the spiders follow). Import from `scrapers.pages`; only
`source` (a page's tree from its bytes, for the spider) is imported from its module.
"""

from __future__ import annotations

from scrapers.pages.cafes import space_items
from scrapers.pages.complete import TRUNCATED, TruncatedPage, has_layout_end, require_complete, stated_total
from scrapers.pages.games import catalog_items, game_item
from scrapers.pages.links import (
    author_links,
    game_links,
    member_links,
    next_page_url,
    prev_page_url,
    post_links,
    space_links,
)
from scrapers.pages.listings import CONTENT_MAIN_IDS, EMPTY_TEXTS, is_empty_listing, is_login_page
from scrapers.pages.markup import PageParseError, game_slug, member_id, space_slug
from scrapers.pages.members import DirectorySignal, collection_items, collection_total, directory_signals, member_items
from scrapers.pages.posts import post_item

__all__ = [
    "TRUNCATED", "DirectorySignal", "PageParseError", "collection_total", "directory_signals", "TruncatedPage", "author_links", "catalog_items", "collection_items", "game_item", "game_links",
    "game_slug", "has_layout_end", "is_empty_listing", "is_login_page", "member_id", "member_items",
    "member_links", "next_page_url", "post_item", "post_links", "prev_page_url", "require_complete", "space_items",
    "space_links", "space_slug", "stated_total",
]
