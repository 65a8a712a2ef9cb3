"""The kinds of document `bodoge parse --kind` accepts, and the site's crawl sections, in a
module that imports nothing.

Why apart from `scrapers.parse`: the command line declares its `--kind` choices from this
tuple, and building the parser must stay instant (parse.py loads parsel and lxml). The
sections likewise: `bodoge run`'s supervisor and the night's worker check them
(`scrapers.crawl_setup`) without crawling, and the spider's module loads Scrapy and Twisted.
"""

from __future__ import annotations

ALL_SECTIONS: tuple[str, ...] = ("games", "posts", "members", "cafes")
"""What the site's crawl covers (`scrapers.spiders.site.SiteSpider`'s `sections`)."""

KINDS: tuple[str, ...] = (
    "auto", "catalog", "game", "post", "members", "collection", "space", "bgg-thing", "bgg-collection",
)
